package lunad

import (
	"fmt"
	"os"
	"path/filepath"
)

// FindRoot returns the root of the git checkout at or above dir: the
// nearest directory holding .git — a directory, or a file as in a linked
// `git worktree` or a submodule, whose checkout is still that directory
// (not the repository it links to). It is the one rule every package
// follows (the store, the daemon's socket, the configuration), so they
// never disagree about which workspace a directory is in. Returns
// ErrNotWorkspace when there is no checkout there.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for root := abs; ; {
		if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
			return root, nil
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("%w: no git repository at or above %s; run `lunad init`", ErrNotWorkspace, abs)
		}
		root = parent
	}
}
