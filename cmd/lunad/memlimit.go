package main

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/lunad/lunad"
)

// ByteSize is a size in bytes, written as GOMEMLIMIT writes it: a whole
// number with an optional unit B, KiB, MiB, GiB or TiB ("128MiB"), or a
// TOML integer of bytes. 0 (or "off") means none.
type ByteSize int64

// Sizes bounding daemon.memory_limit.
const (
	// defaultMemoryLimit is daemon.memory_limit's default (docs/cli.md):
	// on the 10,000-artifact benchmark workspace the daemon's live heap is
	// 40–60 MB, so the collector keeps some headroom and the resident
	// memory stays under 150 MB (docs/benchmarks.md).
	defaultMemoryLimit = ByteSize(96 << 20)
	// minMemoryLimit: below it a daemon's live heap alone (the runtime,
	// the store, a small workspace's index) would keep the collector
	// running without a pause.
	minMemoryLimit = ByteSize(32 << 20)
	maxMemoryLimit = ByteSize(1 << 40)
)

var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// ParseByteSize reads a size as ByteSize documents it.
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	if t == "off" {
		return 0, nil
	}
	shift := uint(0)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, shift = strings.TrimSpace(n), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%q is not a size (a whole number of bytes, or with a unit: 96MiB, 1GiB; 0 or off: none)", s)
	}
	return ByteSize(n << shift), nil
}

// String writes the size in the largest unit that divides it.
func (b ByteSize) String() string {
	for _, u := range sizeUnits {
		if b != 0 && b%(1<<u.shift) == 0 {
			return strconv.FormatInt(int64(b>>u.shift), 10) + u.suffix
		}
	}
	return "0"
}

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

// validateMemoryLimit checks daemon.memory_limit.
func (c Config) validateMemoryLimit(bad func(string, ...any) error) error {
	if l := c.Daemon.MemoryLimit; l != 0 && (l < minMemoryLimit || l > maxMemoryLimit) {
		return bad("daemon.memory_limit %s must be 0 (none) or between %s and %s (set it in .luna/config.toml or LUNAD_MEMORY_LIMIT)", l, minMemoryLimit, maxMemoryLimit)
	}
	return nil
}

// loadMemoryLimitEnv reads LUNAD_MEMORY_LIMIT.
func (c *Config) loadMemoryLimitEnv(getenv func(string) string) error {
	v := getenv("LUNAD_MEMORY_LIMIT")
	if v == "" {
		return nil
	}
	n, err := ParseByteSize(v)
	if err != nil {
		return fmt.Errorf("%w: LUNAD_MEMORY_LIMIT=%v", lunad.ErrInvalid, err)
	}
	c.Daemon.MemoryLimit = n
	return nil
}

// setMemoryLimit gives the Go runtime the daemon's soft memory limit:
// the collector then runs more often as the heap nears it instead of
// letting the heap grow to twice what is live (GOGC=100). A GOMEMLIMIT in
// the environment is the user's choice and is left as the runtime read it.
// It returns the limit in effect (math.MaxInt64: none) and what restores
// the previous one (the daemon also runs inside tests).
func setMemoryLimit(limit ByteSize, getenv func(string) string) (effective int64, restore func()) {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1), func() {}
	}
	n := int64(limit)
	if n == 0 {
		n = math.MaxInt64
	}
	prev := debug.SetMemoryLimit(n)
	return debug.SetMemoryLimit(-1), func() { debug.SetMemoryLimit(prev) }
}
