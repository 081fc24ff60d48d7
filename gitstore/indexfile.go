package gitstore

import (
	"bytes"
	"crypto/sha1"
	"encoding"
	"encoding/binary"
	"errors"
	"slices"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A byte-level patcher for .git/index (versions 2 and 3). Refreshing a few
// entries of a 20,000-entry index this way costs one pass over it to find
// them, two SHA-1s (checking the old file, signing the new one) and a
// write; the entries between changes are copied as they are, never
// decoded. Indexes it does not handle (version 4, split or sparse indexes)
// go through go-git's codec instead.

var errIndexFormat = errors.New("index format not handled by the fast path")

// indexEdit replaces every entry of path (all stages) with entry, or
// removes them when entry is nil.
type indexEdit struct {
	path  string
	entry []byte
}

// patchIndex returns the chunks of the new index file, its trailing
// checksum included, or nil chunks when b already holds every edit (each
// path's one entry byte for byte, each removed path absent): there is
// nothing to write. edits must be sorted by path and name distinct paths.
// The checksum of b is verified unless trusted (lunad wrote b itself).
func patchIndex(b []byte, edits []indexEdit, trusted bool) ([][]byte, error) {
	chunks, _, err := patchIndexFrom(b, edits, trusted, nil)
	return chunks, err
}

// patchIndexFrom is patchIndex resuming the new checksum from marks, the
// states of the SHA-1 of b after each markEvery bytes (see signIndex):
// only what follows the first change is hashed. It also returns the marks
// of the new index.
func patchIndexFrom(b []byte, edits []indexEdit, trusted bool, marks [][]byte) ([][]byte, [][]byte, error) {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return nil, nil, errIndexFormat
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version != 2 && version != 3 {
		return nil, nil, errIndexFormat
	}
	body := b[:len(b)-20]
	if !trusted {
		if sum := sha1.Sum(body); !bytes.Equal(sum[:], b[len(b)-20:]) {
			return nil, nil, errIndexFormat
		}
	}
	header := make([]byte, 12)
	copy(header, body[:8])
	chunks := [][]byte{header}
	count, j := 0, 0
	off, run := 12, 12
	changed := false
	same := len(body) // bytes the new index shares with b from its start
	put := func(e indexEdit) {
		if e.entry != nil {
			chunks = append(chunks, e.entry)
			count++
		}
	}
	for range binary.BigEndian.Uint32(b[8:12]) {
		if off+62 > len(body) {
			return nil, nil, errIndexFormat
		}
		fixed := 62
		if binary.BigEndian.Uint16(body[off+60:])&0x4000 != 0 {
			fixed = 64
		}
		nul := bytes.IndexByte(body[off+fixed:], 0)
		if nul < 0 || off+((fixed+nul+8)&^7) > len(body) {
			return nil, nil, errIndexFormat
		}
		size := (fixed + nul + 8) &^ 7
		name := body[off+fixed : off+fixed+nul]
		for j < len(edits) && edits[j].path < string(name) {
			chunks = append(chunks, body[run:off])
			run = off
			put(edits[j])
			if edits[j].entry != nil {
				changed, same = true, min(same, off)
			}
			j++
		}
		if j < len(edits) && edits[j].path == string(name) {
			chunks = append(chunks, body[run:off]) // drop this entry
			run = off + size
			// Other stages of the same path follow; the edit is placed
			// once the name changes.
			if next := off + size; !sameName(body, next, name) {
				put(edits[j])
				if !bytes.Equal(edits[j].entry, body[off:next]) {
					changed, same = true, min(same, off)
				}
				j++
			} else {
				changed, same = true, min(same, off)
			}
		} else {
			count++
		}
		off += size
	}
	chunks = append(chunks, body[run:off])
	for ; j < len(edits); j++ {
		put(edits[j])
		if edits[j].entry != nil {
			changed, same = true, min(same, off)
		}
	}
	for off < len(body) {
		if off+8 > len(body) {
			return nil, nil, errIndexFormat
		}
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		if off+8+size > len(body) {
			return nil, nil, errIndexFormat
		}
		switch string(body[off : off+4]) {
		case "link", "sdir":
			return nil, nil, errIndexFormat
		case "TREE", "UNTR", "EOIE", "IEOT", "FSMN":
			// Caches keyed by paths or offsets that the patch invalidates;
			// git rebuilds them.
			same = min(same, off)
		default:
			chunks = append(chunks, body[off:off+8+size])
		}
		off += 8 + size
	}
	if !changed {
		return nil, nil, nil
	}
	if binary.BigEndian.Uint32(b[8:12]) != uint32(count) {
		same = 8
	}
	binary.BigEndian.PutUint32(header[8:], uint32(count))
	sum, newMarks := signIndex(chunks, same, marks)
	return append(chunks, sum), newMarks, nil
}

// markEvery is the interval of the marks signIndex resumes from: the
// state of the SHA-1 after each 64 KiB of an index's content.
const markEvery = 64 << 10

// signIndex returns the SHA-1 of the concatenated chunks (an index's
// checksum) and its marks: the hash's state after each markEvery bytes.
// marks are those of an earlier content whose first same bytes the chunks
// share: the hash resumes from the last mark within them, so that a patch
// of one entry hashes what follows it, not the 2 MB before (a one-shot
// `lunad edit` spent a twentieth of its CPU in this SHA-1).
func signIndex(chunks [][]byte, same int, marks [][]byte) ([]byte, [][]byte) {
	h := sha1.New()
	k := min(same/markEvery, len(marks))
	for k > 0 && h.(encoding.BinaryUnmarshaler).UnmarshalBinary(marks[k-1]) != nil {
		k-- // a mark that does not decode: start further back
		h.Reset()
	}
	out := slices.Clone(marks[:k])
	skip, pos := k*markEvery, k*markEvery
	for _, c := range chunks {
		if skip >= len(c) {
			skip -= len(c)
			continue
		}
		c, skip = c[skip:], 0
		for len(c) > 0 {
			n := min(len(c), markEvery-pos%markEvery)
			h.Write(c[:n])
			c, pos = c[n:], pos+n
			if pos%markEvery == 0 {
				m, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
				out = append(out, m)
			}
		}
	}
	return h.Sum(nil), out
}

// sameName reports whether the entry at off (if any) has the given name.
func sameName(body []byte, off int, name []byte) bool {
	if off+62 > len(body) {
		return false
	}
	fixed := 62
	if binary.BigEndian.Uint16(body[off+60:])&0x4000 != 0 {
		fixed = 64
	}
	end := off + fixed + len(name)
	return end < len(body) && body[end] == 0 && bytes.Equal(body[off+fixed:end], name)
}

// newIndexEntry encodes a stage-0 entry with the stat data st (nil: zero
// stat data, which makes git re-check the file).
func newIndexEntry(name string, h plumbing.Hash, mode filemode.FileMode, st *syscall.Stat_t) []byte {
	raw := make([]byte, (62+len(name)+8)&^7)
	if st != nil {
		for i, v := range []uint32{uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec), uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec),
			uint32(st.Dev), uint32(st.Ino)} {
			binary.BigEndian.PutUint32(raw[i*4:], v)
		}
		binary.BigEndian.PutUint32(raw[28:], st.Uid)
		binary.BigEndian.PutUint32(raw[32:], st.Gid)
		binary.BigEndian.PutUint32(raw[36:], uint32(st.Size))
	}
	binary.BigEndian.PutUint32(raw[24:], uint32(mode))
	copy(raw[40:60], h[:])
	binary.BigEndian.PutUint16(raw[60:], uint16(min(len(name), 0xFFF)))
	copy(raw[62:], name)
	return raw
}
