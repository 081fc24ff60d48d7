package tree

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Walk calls fn for every entry beneath directory rel (rel itself
// first), each directory before its entries, the entries of a directory
// in lexical order, with its path relative to the root and what lstat(2)
// said of it. A link is reported, never followed; fn returning
// fs.SkipDir for a directory skips its entries, any other error ends the
// walk with it. A directory's entries are listed once fn returned for
// it, so fn may read a file of it first (a .gitignore). Past max entries
// in all the walk ends with ErrTooMany; a directory that cannot be
// listed (gone, or swapped for a link meanwhile) is left out.
func (r *Root) Walk(rel string, max int, fn func(rel string, info Info) error) error {
	info, err := r.Lstat(rel)
	if err != nil {
		return err
	}
	n := 0
	err = r.walk(rel, info, &n, max, fn)
	if errors.Is(err, fs.SkipDir) {
		return nil
	}
	return err
}

func (r *Root) walk(rel string, info Info, n *int, max int, fn func(string, Info) error) error {
	if err := fn(rel, info); err != nil || !info.Mode.IsDir() {
		return err
	}
	entries, err := r.ReadDir(rel, max-*n)
	switch {
	case errors.Is(err, ErrTooMany):
		return fmt.Errorf("%w: the worktree has more than %d files and directories", ErrTooMany, max)
	case err != nil:
		return nil // gone or changed since it was seen: nothing to walk
	}
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	for _, e := range entries {
		if *n++; *n > max {
			return fmt.Errorf("%w: the worktree has more than %d files and directories", ErrTooMany, max)
		}
		child := e.Name
		if rel != "." {
			child = path.Join(rel, e.Name)
		}
		if err := r.walk(child, e.Info, n, max, fn); err != nil && !errors.Is(err, fs.SkipDir) {
			return err
		}
	}
	return nil
}
