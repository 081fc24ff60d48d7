package gitstore

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Large files the store reads whole and only reads — .git/index, pack
// indexes — are mapped rather than read: a one-shot `lunad edit` reads a
// 2 MB index and a 600 KB pack index, and read(2) into fresh heap memory
// cost it a page fault per 4 KiB page plus the copy, where a mapping of the
// page cache takes one fault per sixteen pages and no copy.

// mapFile maps the file at name read-only and returns its stat data. An
// empty file maps to nil; a missing one is an error satisfying
// os.IsNotExist. Release the mapping with unmapFile.
func mapFile(name string) ([]byte, unix.Stat_t, error) {
	var st unix.Stat_t
	f, err := os.Open(name)
	if err != nil {
		return nil, st, err
	}
	defer f.Close()
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, st, fmt.Errorf("map %s: %w", name, err)
	}
	b, err := mapOpen(f, st.Size)
	return b, st, err
}

// mapOpen maps the first size bytes of an open file (opened for reading).
func mapOpen(f *os.File, size int64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("map %s: %d bytes is too large to map", f.Name(), size)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", f.Name(), err)
	}
	return b, nil
}

// unmapFile releases a mapping made by mapFile (nil: nothing).
func unmapFile(b []byte) {
	if b != nil {
		unix.Munmap(b)
	}
}

// errFault is what guardFault reports: a mapped file was truncated under
// the reader (git and lunad replace .git/index by a rename, but a program
// that rewrites it in place would do that).
var errFault = errors.New("a mapped file was truncated while it was read")

// guardFault, deferred after
//
//	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
//
// turns the panic of a fault on a mapping (SIGBUS past the end of a
// truncated file) into *err = errFault; other panics go on.
func guardFault(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if _, ok := r.(interface{ Addr() uintptr }); ok {
		*err = errFault
		return
	}
	panic(r)
}
