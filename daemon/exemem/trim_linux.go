//go:build linux

package exemem

import (
	"fmt"
	"os"
	"syscall"
)

// Trim marks the executable's clean read-only mappings MADV_NOHUGEPAGE and
// drops their resident pages (MADV_DONTNEED): they fault back in from the
// page cache, 4 KiB at a time, as the process uses them. A mapping with an
// anonymous page (a debugger's breakpoint) is left alone. It returns an
// error if /proc/self is not readable or madvise fails; the process is
// unaffected then.
func Trim() (Result, error) {
	ms, err := Mappings()
	if err != nil {
		return Result{}, err
	}
	return trim(ms)
}

// trim is Trim on the mappings ms (as Mappings read them).
func trim(ms []Mapping) (Result, error) {
	var r Result
	for _, m := range ms {
		if m.Anonymous != 0 {
			continue
		}
		if err := madvise(m, syscall.MADV_NOHUGEPAGE); err != nil {
			return r, err
		}
		if err := madvise(m, syscall.MADV_DONTNEED); err != nil {
			return r, err
		}
		r.Mappings++
		r.Released += m.Rss
	}
	return r, nil
}

// Mappings returns the executable's private read-only mappings as
// /proc/self/smaps shows them now.
func Mappings() ([]Mapping, error) {
	st, err := os.Stat("/proc/self/exe")
	if err != nil {
		return nil, fmt.Errorf("executable mappings: %w", err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("executable mappings: no device and inode for /proc/self/exe")
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, fmt.Errorf("executable mappings: %w", err)
	}
	defer f.Close()
	dev := uint64(sys.Dev)
	// smaps writes the device as major:minor in hex, the Linux encoding.
	major := (dev >> 8 & 0xfff) | (dev >> 32 & ^uint64(0xfff))
	minor := (dev & 0xff) | (dev >> 12 & ^uint64(0xff))
	return parseSmaps(f, fmt.Sprintf("%02x:%02x", major, minor), sys.Ino)
}

func madvise(m Mapping, advice int) error {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(m.Start), uintptr(m.End-m.Start), uintptr(advice))
	if errno != 0 {
		return fmt.Errorf("madvise %#x-%#x (%s) %d: %w", m.Start, m.End, m.Perms, advice, errno)
	}
	return nil
}
