package goal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lunad/lunad"
)

// maxFiles bounds the files of a worktree the goal walks.
const maxFiles = 200_000

// errTooMany: the worktree has more files than maxFiles.
var errTooMany = fmt.Errorf("%w: the worktree has more than %d files (not counting what .gitignore leaves out); the goal cannot follow what its commands change", lunad.ErrInvalid, maxFiles)

// walk calls fn for every regular file and symlink of the worktree dir
// that git would track, in lexical order, with its slash-separated path:
// it skips .git (and nested repositories), .luna, and what the
// .gitignore files ignore. Directories are reported to dirFn (may be
// nil).
func walk(dir string, fn func(rel string, d fs.DirEntry) error, dirFn func(rel string)) error {
	var ign ignores
	n := 0
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // vanished or unreadable: not the goal's
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." {
				if d.Name() == ".git" || rel == ".luna" || ign.match(rel, true) {
					return filepath.SkipDir
				}
				if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
					return filepath.SkipDir // a repository of its own
				}
				if dirFn != nil {
					dirFn(rel)
				}
			}
			if b, err := os.ReadFile(filepath.Join(p, ".gitignore")); err == nil {
				base := rel
				if base == "." {
					base = ""
				}
				ign = append(ign, parseIgnore(base, string(b))...)
			}
			return nil
		}
		if d.Name() == ".git" || ign.match(rel, false) || !(d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) {
			return nil
		}
		if n++; n > maxFiles {
			return errTooMany
		}
		return fn(rel, d)
	})
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

// snap takes the snapshot of dir.
func snap(dir string) (*snapshot, error) {
	s := &snapshot{files: map[string]fileState{}, dirs: map[string]bool{}}
	var kept int64
	err := walk(dir, func(rel string, d fs.DirEntry) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		info, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		f := fileState{Size: info.Size(), Mode: info.Mode()}
		var data []byte
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return nil
			}
			f.Link, data = true, []byte(target)
		} else if data, err = os.ReadFile(p); err != nil {
			return nil
		}
		f.Hash = blobHash(data)
		if !f.Link && int64(len(data)) <= keepFile && kept+int64(len(data)) <= keepTotal {
			f.Content, f.Kept = data, true
			kept += int64(len(data))
		}
		s.files[rel] = f
		return nil
	}, func(rel string) { s.dirs[rel] = true })
	if err != nil {
		return nil, err
	}
	return s, nil
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
		} else if a.Hash != b.Hash || a.Link != b.Link {
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
func (s *snapshot) undo(dir string, c fileChange) error {
	p := filepath.Join(dir, filepath.FromSlash(c.Path))
	if c.Before == nil {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for d := filepath.Dir(c.Path); d != "." && d != "/" && !s.dirs[filepath.ToSlash(d)]; d = filepath.Dir(d) {
			if os.Remove(filepath.Join(dir, d)) != nil {
				break // not empty
			}
		}
		return nil
	}
	if !c.Before.Kept {
		return fmt.Errorf("%s was not kept (over %d bytes, or a symlink)", c.Path, keepFile)
	}
	if c.After != nil && c.After.Link {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, c.Before.Content, c.Before.Mode.Perm()); err != nil {
		return err
	}
	return os.Chmod(p, c.Before.Mode.Perm())
}
