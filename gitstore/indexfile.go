package gitstore

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"os"
	"sort"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A byte-level patcher for .git/index (versions 2 and 3). Refreshing a few
// entries of a 10,000-entry index this way costs a read, a SHA-1 and a
// write; decoding and re-encoding it with go-git costs ten times more.
// Indexes it does not handle (version 4, split or sparse indexes) go
// through go-git instead.

var errIndexFormat = errors.New("index format not handled by the fast path")

type rawIndex struct {
	version uint32
	entries []rawEntry
	exts    [][]byte // raw extensions kept as they are
}

type rawEntry struct {
	name string
	raw  []byte
}

func parseRawIndex(b []byte) (*rawIndex, error) {
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return nil, errIndexFormat
	}
	x := &rawIndex{version: binary.BigEndian.Uint32(b[4:8])}
	if x.version != 2 && x.version != 3 {
		return nil, errIndexFormat
	}
	body := b[:len(b)-20]
	if sum := sha1.Sum(body); !bytes.Equal(sum[:], b[len(b)-20:]) {
		return nil, errIndexFormat
	}
	n := int(binary.BigEndian.Uint32(b[8:12]))
	off := 12
	x.entries = make([]rawEntry, 0, n+8)
	for range n {
		if off+62 > len(body) {
			return nil, errIndexFormat
		}
		fixed := 62
		if binary.BigEndian.Uint16(body[off+60:])&0x4000 != 0 {
			fixed = 64
		}
		nul := bytes.IndexByte(body[off+fixed:], 0)
		if nul < 0 {
			return nil, errIndexFormat
		}
		size := (fixed + nul + 8) &^ 7
		if off+size > len(body) {
			return nil, errIndexFormat
		}
		x.entries = append(x.entries, rawEntry{name: string(body[off+fixed : off+fixed+nul]), raw: body[off : off+size]})
		off += size
	}
	for off < len(body) {
		if off+8 > len(body) {
			return nil, errIndexFormat
		}
		sig := string(body[off : off+4])
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		if off+8+size > len(body) {
			return nil, errIndexFormat
		}
		switch sig {
		case "link", "sdir":
			return nil, errIndexFormat
		case "TREE", "UNTR", "EOIE", "IEOT", "FSMN":
			// Caches keyed by paths or offsets that the patch invalidates;
			// git rebuilds them.
		default:
			x.exts = append(x.exts, body[off:off+8+size])
		}
		off += 8 + size
	}
	return x, nil
}

func (x *rawIndex) encode() []byte {
	size := 12 + 20
	for _, e := range x.entries {
		size += len(e.raw)
	}
	for _, e := range x.exts {
		size += len(e)
	}
	out := make([]byte, 12, size)
	copy(out, "DIRC")
	binary.BigEndian.PutUint32(out[4:], x.version)
	binary.BigEndian.PutUint32(out[8:], uint32(len(x.entries)))
	for _, e := range x.entries {
		out = append(out, e.raw...)
	}
	for _, e := range x.exts {
		out = append(out, e...)
	}
	sum := sha1.Sum(out)
	return append(out, sum[:]...)
}

// newRawEntry encodes a stage-0 entry with the stat data of the file at
// full (zero stat data, which git re-checks, when it is absent).
func newRawEntry(name string, h plumbing.Hash, mode filemode.FileMode, full string) rawEntry {
	fixed := 62
	raw := make([]byte, (fixed+len(name)+8)&^7)
	if fi, err := os.Lstat(full); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			for i, v := range []uint32{uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec), uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec),
				uint32(st.Dev), uint32(st.Ino)} {
				binary.BigEndian.PutUint32(raw[i*4:], v)
			}
			binary.BigEndian.PutUint32(raw[28:], st.Uid)
			binary.BigEndian.PutUint32(raw[32:], st.Gid)
			binary.BigEndian.PutUint32(raw[36:], uint32(st.Size))
		}
	}
	binary.BigEndian.PutUint32(raw[24:], uint32(mode))
	copy(raw[40:60], h[:])
	nameLen := min(len(name), 0xFFF)
	binary.BigEndian.PutUint16(raw[60:], uint16(nameLen))
	copy(raw[62:], name)
	return rawEntry{name: name, raw: raw}
}

// patch replaces the entries of the given paths: set holds the new entries,
// every other path in drop is removed.
func (x *rawIndex) patch(drop map[string]bool, set []rawEntry) {
	kept := x.entries[:0]
	for _, e := range x.entries {
		if !drop[e.name] {
			kept = append(kept, e)
		}
	}
	sort.Slice(set, func(i, j int) bool { return set[i].name < set[j].name })
	merged := make([]rawEntry, 0, len(kept)+len(set))
	i, j := 0, 0
	for i < len(kept) || j < len(set) {
		if j == len(set) || (i < len(kept) && kept[i].name < set[j].name) {
			merged = append(merged, kept[i])
			i++
		} else {
			merged = append(merged, set[j])
			j++
		}
	}
	x.entries = merged
}
