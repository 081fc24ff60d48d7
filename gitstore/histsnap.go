package gitstore

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad/internal/atomicfile"
)

// The history snapshot (.git/luna/history) holds the history index of
// recent tips, so that a process does not assemble it from the whole
// commit cache: in a repository of 5,000 commits reading and walking the
// cache was most of a `lunad edit`. Its lines are
//
//	e <entry as JSON>   an entry of the index (lunad's commits only)
//	t <commit>          the e lines before it are the index of that tip
//
// in the index's order (parents before children). A tip's index never
// changes, so a "t" line stays true: the file is only appended to — a
// batch of lunad's writes on top of the file's last tip adds its entries
// and the new tip — and replaced whole (by rename) when the index was
// assembled otherwise. A torn append leaves lines after the last "t" line,
// which are not read; the next write replaces the file. Commits made
// around lunad (a person's `git commit`) are found by walking back from
// HEAD to a tip the file holds through commits of one parent; a merge, a
// reset or a switch to another branch assembles the index from the cache.
// Like the cache, the file is derived data: deleting it costs one assembly.
//
// Only a holder of the workspace lock changes the file: a process that
// only reads could otherwise replace it between a writer's commit and its
// append, and the writer's entries would be counted twice.

const historySnapName = "history"

// maxSnapWalk bounds the commits walked back from HEAD to a tip of the
// snapshot.
const maxSnapWalk = 64

type historySnapshot struct {
	path, tmp string
	// last is the file's last "t" line as this process last read or wrote
	// it (zero: unknown, or lines after it): a batch on top of it appends.
	last plumbing.Hash
}

// snapshotFile is what read found: the e lines, and for each tip the
// count of e lines before its "t" line.
type snapshotFile struct {
	lines [][]byte
	tips  map[plumbing.Hash]int
}

// read reads the file (nil: none, or damaged) and sets last.
func (sn *historySnapshot) read() *snapshotFile {
	sn.last = plumbing.ZeroHash
	b, err := os.ReadFile(sn.path)
	if err != nil {
		return nil
	}
	f := &snapshotFile{tips: map[plumbing.Hash]int{}}
	var last plumbing.Hash
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break // a torn last line
		}
		line := b[:i]
		b = b[i+1:]
		switch {
		case bytes.HasPrefix(line, []byte("e ")):
			f.lines = append(f.lines, line[2:])
		case bytes.HasPrefix(line, []byte("t ")) && isHash(string(line[2:])):
			last = plumbing.NewHash(string(line[2:]))
			f.tips[last] = len(f.lines)
		default:
			return nil
		}
	}
	if len(b) == 0 && f.tips[last] == len(f.lines) {
		sn.last = last
	}
	return f
}

// index decodes tip's index from the file; false when the file does not
// hold tip or a line of it does not decode.
func (f *snapshotFile) index(tip plumbing.Hash) (*history, bool) {
	n, ok := f.tips[tip]
	if !ok {
		return nil, false
	}
	h := newHistory(tip)
	in := interner{}
	for _, l := range f.lines[:n] {
		e, err := decodeEntry(l, in)
		if err != nil || !isHash(e.Commit) || !e.Lunad {
			return nil, false
		}
		e.Rec.upgrade()
		h.add(e)
	}
	return h, true
}

// fromSnapshot returns tip's index from the snapshot: a tip it holds, or
// one reached by walking back from tip through commits of one parent (a
// person's commits made between lunad's). It extends the file to tip.
func (s *Store) fromSnapshot(tip plumbing.Hash) (*history, bool) {
	f := s.snap.read()
	if f == nil {
		return nil, false
	}
	var walked []*entry // newest first
	for cur := tip; len(walked) <= maxSnapWalk; {
		if h, ok := f.index(cur); ok {
			slices.Reverse(walked)
			for _, e := range walked {
				h.add(e)
			}
			h.tip = tip
			if len(walked) > 0 && s.lock.held {
				s.snap.extend(cur, walked, h)
			}
			return h, true
		}
		e, err := s.parseCommit(cur)
		if err != nil || len(e.Parents) != 1 {
			return nil, false
		}
		walked = append(walked, e)
		cur = plumbing.NewHash(e.Parents[0])
	}
	return nil, false
}

// extend records h, the index of the tip that added (commits on top of
// start, oldest first; lunad's are entries of h) led to: appended when the
// file ends with start, else the file is written whole.
func (sn *historySnapshot) extend(start plumbing.Hash, added []*entry, h *history) {
	if h == nil {
		return
	}
	if sn.last.IsZero() || sn.last != start {
		sn.write(h)
		return
	}
	var b []byte
	for _, e := range added {
		if e.Lunad {
			b = appendSnapEntry(b, e)
		}
	}
	b = append(append(append(b, "t "...), h.tip.String()...), '\n')
	if appendLines(sn.path, b) != nil {
		sn.last = plumbing.ZeroHash
		return
	}
	sn.last = h.tip
}

// write replaces the file with h alone.
func (sn *historySnapshot) write(h *history) {
	var b []byte
	for _, e := range h.all {
		b = appendSnapEntry(b, e)
	}
	b = append(append(append(b, "t "...), h.tip.String()...), '\n')
	sn.last = plumbing.ZeroHash
	if atomicfile.Write(sn.path, b, atomicfile.Options{TempDir: sn.tmp}) == nil {
		sn.last = h.tip
	}
}

func appendSnapEntry(b []byte, e *entry) []byte {
	j, _ := json.Marshal(e)
	return append(append(append(b, "e "...), j...), '\n')
}
