package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Uncommitted returns, sorted, the paths of the tracked files whose
// working-tree state or git index entry differs from HEAD — what `git
// status` lists as changed or staged, untracked files aside —, whether
// they are artifacts or not: what a branch made from HEAD would not have.
// Files lunad wrote whose index entries still lag (the pending list) are
// synced first, so they are not reported. A file whose stat data matches
// its index entry at HEAD's blob is taken as unchanged without being read.
func (s *Store) Uncommitted(ctx context.Context) ([]string, error) {
	s.queue.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.syncIndexLocked(ctx); err != nil {
		return nil, err
	}
	_, _, root, err := s.current()
	if err != nil {
		return nil, err
	}
	stats := readIndexStats(s.gitDir)
	// An index lunad cannot read (absent, version 4) leaves only the
	// working tree to compare.
	indexed := stats.entries != nil
	var out []string
	inHead := map[string]bool{}
	err = s.walkFiles(root, "", func(p string, n node) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		inHead[p] = true
		full := filepath.Join(s.root, filepath.FromSlash(p))
		st, ok := stats.entries[p]
		switch {
		case indexed && (!ok || st.hash != n.hash):
			out = append(out, p) // staged: removed, changed, or in conflict
			return nil
		case n.mode == filemode.Submodule:
			return nil // a submodule's own state is its checkout's
		case indexed && stats.unchanged(st, full):
			return nil
		}
		work, err := s.workState(full, n.mode)
		if err != nil {
			return err
		}
		if work != n.hash {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for p := range stats.entries {
		if !inHead[p] {
			out = append(out, p) // staged as new
		}
	}
	slices.Sort(out)
	return out, nil
}

// workState is the blob hash of the working-tree entry at full as git
// would record it for a tree entry of mode (a symbolic link's target, a
// file's content); zero when it is absent or of another kind.
func (s *Store) workState(full string, mode filemode.FileMode) (plumbing.Hash, error) {
	fi, err := os.Lstat(full)
	if os.IsNotExist(err) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if mode == filemode.Symlink {
		if fi.Mode()&os.ModeSymlink == 0 {
			return plumbing.ZeroHash, nil
		}
		target, err := os.Readlink(full)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return plumbing.ComputeHash(plumbing.BlobObject, []byte(target)), nil
	}
	if !fi.Mode().IsRegular() {
		return plumbing.ZeroHash, nil
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if (fi.Mode()&0o111 != 0) != (mode == modeExec) {
		return plumbing.ZeroHash, nil // git sees the mode change
	}
	return plumbing.ComputeHash(plumbing.BlobObject, b), nil
}
