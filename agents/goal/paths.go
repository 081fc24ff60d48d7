package goal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// resolve turns a path the model wrote into the worktree's file: its
// slash-separated path relative to the worktree (".": the worktree
// itself) and its absolute path. It refuses, with what to do, a path
// that leaves the worktree (by "..", as an absolute path elsewhere, or
// through a symbolic link), and for a write one into .git or .luna —
// whatever the policy said: the executor never touches such a path.
func resolve(dir, p string, write bool) (rel, abs string, err error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", "", errors.New("the path is empty: give a path relative to the workspace root")
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(dir, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return "", "", fmt.Errorf("%s is outside the workspace: give a path relative to the workspace root", p)
		}
		p = r
	}
	rel = path.Clean(filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", "", fmt.Errorf("%s is outside the workspace: give a path relative to the workspace root", p)
	}
	first, _, _ := strings.Cut(rel, "/")
	if write && (first == ".git" || first == ".luna" || rel == ".") {
		return "", "", fmt.Errorf("%s is lunad's or git's own: a goal changes only the workspace's files", rel)
	}
	abs = filepath.Join(dir, filepath.FromSlash(rel))
	if err := inside(dir, abs); err != nil {
		return "", "", fmt.Errorf("%s: %v", rel, err)
	}
	return rel, abs, nil
}

// inside checks that abs, once the symbolic links of its longest
// existing prefix are followed, is still in dir.
func inside(dir, abs string) error {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	p, rest := abs, ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			real = filepath.Join(real, rest)
			if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
				return errors.New("it leads outside the workspace through a symbolic link")
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// exists reports whether p exists (a dangling symlink counts).
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
