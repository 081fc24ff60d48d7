package exemem

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lunad/lunad"
)

// parseSmaps reads the mappings of smaps (the format of /proc/PID/smaps)
// that map the file with device dev ("fe:00") and inode ino, are not
// writable and are private. It returns lunad.ErrInvalid for a line it
// cannot read.
func parseSmaps(r io.Reader, dev string, ino uint64) ([]Mapping, error) {
	var (
		out  []Mapping
		cur  *Mapping
		line int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line++
		text := sc.Text()
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if isHeader(f[0]) {
			cur = nil
			if len(f) < 5 {
				return nil, fmt.Errorf("smaps line %d: %q has %d fields, want at least 5: %w", line, text, len(f), lunad.ErrInvalid)
			}
			start, end, err := addrRange(f[0])
			if err != nil {
				return nil, fmt.Errorf("smaps line %d: %w", line, err)
			}
			n, err := strconv.ParseUint(f[4], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("smaps line %d: inode %q: %w", line, f[4], lunad.ErrInvalid)
			}
			perms := f[1]
			if f[3] != dev || n != ino || len(perms) != 4 || perms[1] == 'w' || perms[3] != 'p' {
				continue
			}
			out = append(out, Mapping{Start: start, End: end, Perms: perms})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		key := strings.TrimSuffix(f[0], ":")
		if key == "VmFlags" {
			for _, fl := range f[1:] {
				cur.NoHugePage = cur.NoHugePage || fl == "nh"
			}
			continue
		}
		var dst *uint64
		switch key {
		case "Rss":
			dst = &cur.Rss
		case "Anonymous":
			dst = &cur.Anonymous
		case "FilePmdMapped":
			dst = &cur.FilePmdMapped
		default:
			continue
		}
		if len(f) != 3 || f[2] != "kB" {
			return nil, fmt.Errorf("smaps line %d: %q: want \"%s: N kB\": %w", line, text, key, lunad.ErrInvalid)
		}
		kb, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil || kb > 1<<50 {
			return nil, fmt.Errorf("smaps line %d: %q: %w", line, text, lunad.ErrInvalid)
		}
		*dst = kb << 10
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("smaps: %w", err)
	}
	return out, nil
}

// isHeader reports whether a smaps line's first field is a mapping's
// address range ("00400000-00402000") rather than a "Key:".
func isHeader(f string) bool {
	return !strings.HasSuffix(f, ":") && strings.Contains(f, "-")
}

func addrRange(s string) (start, end uint64, err error) {
	a, b, _ := strings.Cut(s, "-")
	start, err1 := strconv.ParseUint(a, 16, 64)
	end, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil || end <= start {
		return 0, 0, fmt.Errorf("address range %q: %w", s, lunad.ErrInvalid)
	}
	return start, end, nil
}
