package goal

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// resolve turns a path the model wrote into the worktree's file: its
// slash-separated path relative to the worktree (".": the worktree
// itself) and its absolute path. It refuses, with what to do, a path
// that leaves the worktree (by "..", as an absolute path elsewhere, or
// through a symbolic link), and for a write one into .git or .luna —
// whatever the policy said: the executor never touches such a path. A
// symbolic link on the way is refused when the path is used: every use
// goes through package tree, which follows none.
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
	return rel, filepath.Join(dir, filepath.FromSlash(rel)), nil
}
