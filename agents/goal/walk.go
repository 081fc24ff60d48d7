package goal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal/tree"
)

// maxFiles bounds the files of a worktree the goal walks.
const maxFiles = 200_000

// maxEntries bounds the entries of a worktree a walk lists, ignored ones
// included (a command can make millions of files in a build directory).
const maxEntries = 4 * maxFiles

// errTooMany: the worktree has more files than maxFiles.
var errTooMany = fmt.Errorf("%w: the worktree has more than %d files (not counting what .gitignore leaves out); the goal cannot follow what its commands change", lunad.ErrInvalid, maxFiles)

// maxIgnore bounds the bytes of a .gitignore the walk reads: a larger
// one is not read.
const maxIgnore = 256 << 10

// walk calls fn for every regular file and symlink of the worktree r
// that git would track, in lexical order, with its slash-separated path
// and what lstat(2) said of it; a FIFO, a socket or a device is
// reported too (special files: git would not track them, the goal must
// see them to undo them). It skips .git (and nested repositories),
// .luna, and what the .gitignore files ignore; a .gitignore that is not
// a regular file, or is over maxIgnore bytes, is not read. Directories
// are reported to dirFn (may be nil). Nothing is followed or read but
// through r (package tree).
func walk(r *tree.Root, fn func(rel string, info tree.Info) error, dirFn func(rel string)) error {
	var ign ignores
	n := 0
	err := r.Walk(".", maxEntries, func(rel string, info tree.Info) error {
		name := path.Base(rel)
		if info.Mode.IsDir() {
			if rel != "." {
				if name == ".git" || rel == ".luna" || ign.match(rel, true) {
					return fs.SkipDir
				}
				if _, err := r.Lstat(path.Join(rel, ".git")); err == nil {
					return fs.SkipDir // a repository of its own
				}
				if dirFn != nil {
					dirFn(rel)
				}
			}
			gi := path.Join(rel, ".gitignore")
			if b, _, err := r.ReadFile(gi, maxIgnore); err == nil {
				base := rel
				if base == "." {
					base = ""
				}
				ign = append(ign, parseIgnore(base, string(b))...)
			}
			return nil
		}
		if name == ".git" || ign.match(rel, false) {
			return nil
		}
		if n++; n > maxFiles {
			return errTooMany
		}
		return fn(rel, info)
	})
	if errors.Is(err, tree.ErrTooMany) {
		return errTooMany
	}
	return err
}

// Limits of a snapshot's kept contents.
const (
	keepFile  = 1 << 20   // a file's content is kept up to this size
	keepTotal = 128 << 20 // and the contents kept together
)

// fileState is one file of a snapshot.
type fileState struct {
	Size int64
	Mode fs.FileMode
	Hash string // of the content (a symlink's: of its target)
	Link bool
	// Special: a FIFO, a socket or a device (Hash names its type).
	Special bool
	// Links is the regular file's hard links: above 1 it has a name
	// elsewhere, maybe outside the worktree.
	Links uint64
	// Content is kept while it fits the limits (nil otherwise), so a
	// command's change can be undone and its old text diffed.
	Content []byte
	Kept    bool
}

// snapshot is a worktree's files as git would track them.
type snapshot struct {
	files map[string]fileState
	dirs  map[string]bool
}

// snap takes the snapshot of r.
func snap(r *tree.Root) (*snapshot, error) {
	s := &snapshot{files: map[string]fileState{}, dirs: map[string]bool{}}
	var kept int64
	err := walk(r, func(rel string, info tree.Info) error {
		f := fileState{Size: info.Size, Mode: info.Mode, Links: info.Nlink}
		switch {
		case info.Mode&fs.ModeSymlink != 0:
			target, err := r.Readlink(rel)
			if err != nil {
				return nil
			}
			f.Link, f.Hash = true, blobHash([]byte(target))
		case !info.Mode.IsRegular():
			f.Special, f.Hash = true, special(info.Mode)
		default:
			data, hash, ok := readState(r, rel, keepTotal-kept)
			if !ok {
				return nil // gone, or swapped for something else meanwhile
			}
			f.Hash = hash
			if data != nil {
				f.Content, f.Kept = data, true
				kept += int64(len(data))
			}
		}
		s.files[rel] = f
		return nil
	}, func(rel string) { s.dirs[rel] = true })
	if err != nil {
		return nil, err
	}
	return s, nil
}

// special names a file that is neither regular, a directory nor a link.
func special(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file (" + m.Type().String() + ")"
}

// readState hashes regular file rel, streaming it, and keeps its content
// when it fits keepFile and room; ok is false when it is no longer a
// regular file.
func readState(r *tree.Root, rel string, room int64) (data []byte, hash string, ok bool) {
	f, info, err := r.OpenFile(rel)
	if err != nil {
		return nil, "", false
	}
	defer f.Close()
	h := sha256.New()
	var buf bytes.Buffer
	w := io.Writer(h)
	keep := info.Size <= keepFile && info.Size <= room
	if keep {
		w = io.MultiWriter(h, &buf)
	}
	// A file growing while it is read is read up to its size then (and
	// a little more, to see that it changed).
	n, err := io.Copy(w, io.LimitReader(f, info.Size+1))
	if err != nil {
		return nil, "", false
	}
	if n != info.Size {
		keep = false
	}
	sum := h.Sum(nil)
	hash = hex.EncodeToString(sum[:16])
	if keep {
		return buf.Bytes(), hash, true
	}
	return nil, hash, true
}

// blobHash identifies a file's content.
func blobHash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}

// fileChange is one path a command changed, between two snapshots.
type fileChange struct {
	Path          string
	Before, After *fileState // nil: absent
}

// changesTo are the paths that differ from s to after, sorted.
func (s *snapshot) changesTo(after *snapshot) []fileChange {
	var out []fileChange
	for _, p := range sortedKeys(s.files) {
		b := s.files[p]
		if a, ok := after.files[p]; !ok {
			out = append(out, fileChange{Path: p, Before: &b})
		} else if a.Hash != b.Hash || a.Link != b.Link || a.Special != b.Special || (a.Links > 1 && b.Links <= 1) {
			out = append(out, fileChange{Path: p, Before: &b, After: &a})
		}
	}
	for _, p := range sortedKeys(after.files) {
		if _, ok := s.files[p]; !ok {
			a := after.files[p]
			out = append(out, fileChange{Path: p, After: &a})
		}
	}
	slices.SortFunc(out, func(a, b fileChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// undo puts c's path back as it was in the snapshot before (removing a
// file that was not there, and the directories made for it), if it can.
// Every step is beneath the worktree without following a link (package
// tree): a link, a FIFO or a file with other names where the file was is
// removed or replaced by rename, never written through, and a link on
// the way to it is an error naming it.
func (s *snapshot) undo(r *tree.Root, c fileChange) error {
	if c.Before == nil {
		if err := r.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for d := path.Dir(c.Path); d != "." && !s.dirs[d]; d = path.Dir(d) {
			if info, err := r.Lstat(d); err != nil || !info.Mode.IsDir() || r.Remove(d) != nil {
				break // not empty, or not a directory lunad may remove
			}
		}
		return nil
	}
	if !c.Before.Kept {
		return fmt.Errorf("%s was not kept (over %d bytes, or a symlink)", c.Path, keepFile)
	}
	if c.After != nil && (c.After.Link || c.After.Special) {
		if err := r.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return r.WriteFile(c.Path, c.Before.Content, c.Before.Mode.Perm())
}
