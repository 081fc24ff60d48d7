package gitstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/lunad/lunad"
)

// ErrUnmerged is lunad.ErrUnmerged: an artifact's file is in conflict in
// git's index, never recorded.
var ErrUnmerged = lunad.ErrUnmerged

// unmerged reports whether .git/index holds p at a stage other than 0.
// Callers hold s.mu.
func (s *Store) unmerged(p string) (found bool, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer guardFault(&err) // the index is mapped
	b, _, err := s.lastIndex.read(s.gitDir)
	if err != nil {
		return false, err
	}
	found, err = unmergedIn(b, p)
	if !errors.Is(err, errIndexFormat) {
		return found, err
	}
	// Index version 4, split or sparse: go-git decodes it.
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(b)).Decode(&idx); err != nil {
		return false, fmt.Errorf("read git index: %w", err)
	}
	for _, e := range idx.Entries {
		if e.Name == p && e.Stage != index.Merged {
			return true, nil
		}
	}
	return false, nil
}

// unmergedIn scans a version 2 or 3 index for p at a stage other than 0
// (bits 12-13 of an entry's flags). Entries are sorted by name, so the scan
// stops past p.
func unmergedIn(b []byte, p string) (bool, error) {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return false, errIndexFormat
	}
	if v := binary.BigEndian.Uint32(b[4:8]); v != 2 && v != 3 {
		return false, errIndexFormat
	}
	body := b[:len(b)-20]
	off := 12
	for range binary.BigEndian.Uint32(b[8:12]) {
		if off+62 > len(body) {
			return false, errIndexFormat
		}
		flags := binary.BigEndian.Uint16(body[off+60:])
		fixed := 62
		if flags&0x4000 != 0 {
			fixed = 64
		}
		nul := bytes.IndexByte(body[off+fixed:], 0)
		if nul < 0 {
			return false, errIndexFormat
		}
		switch name := string(body[off+fixed : off+fixed+nul]); {
		case name == p && flags>>12&3 != 0:
			return true, nil
		case name > p:
			return false, nil
		}
		off += (fixed + nul + 8) &^ 7
	}
	return false, nil
}
