package lunad

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the binary units a size may be written with, as
// GOMEMLIMIT writes them, largest first.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// ParseSize reads a size in bytes: a whole number, optionally followed by
// a unit B, KiB, MiB, GiB or TiB ("512MiB", " 1 GiB "). ok is false for
// anything else, a negative number, or one that overflows; the caller
// says what it expected, where.
func ParseSize(s string) (n int64, ok bool) {
	t := strings.TrimSpace(s)
	shift := uint(0)
	for _, u := range sizeUnits {
		if num, found := strings.CutSuffix(t, u.suffix); found {
			t, shift = strings.TrimSpace(num), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, false
	}
	return n << shift, true
}

// FormatSize writes n in the largest unit that divides it ("96MiB",
// "1000B"); 0 is "0". ParseSize reads it back.
func FormatSize(n int64) string {
	for _, u := range sizeUnits {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return "0"
}

// ByteSize is a size in bytes as a configuration writes it, as GOMEMLIMIT
// does: a whole number with an optional unit B, KiB, MiB, GiB or TiB
// ("128MiB"), or a TOML integer of bytes. 0 (or "off") means none, or the
// setting's default where it has one.
type ByteSize int64

// ParseByteSize reads a size as ByteSize documents it.
func ParseByteSize(s string) (ByteSize, error) {
	if strings.TrimSpace(s) == "off" {
		return 0, nil
	}
	n, ok := ParseSize(s)
	if !ok {
		return 0, fmt.Errorf("%q is not a size (a whole number of bytes, or with a unit: 96MiB, 1GiB; 0 or off: none)", s)
	}
	return ByteSize(n), nil
}

// String writes the size in the largest unit that divides it.
func (b ByteSize) String() string { return FormatSize(int64(b)) }

// UnmarshalTOML accepts a string with a unit or an integer of bytes.
func (b *ByteSize) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		if v < 0 {
			return fmt.Errorf("%d is not a size: it is negative", v)
		}
		*b = ByteSize(v)
		return nil
	case string:
		n, err := ParseByteSize(v)
		*b = n
		return err
	}
	return fmt.Errorf("%v is not a size (a string such as \"96MiB\", or an integer of bytes)", v)
}
