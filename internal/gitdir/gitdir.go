package gitdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lunad/lunad"
)

// Root returns the root of the git checkout at or above dir: the
// nearest directory holding .git — a directory, or a file as in a linked
// `git worktree` or a submodule, whose checkout is still that directory
// (not the repository it links to). It is the one rule every package
// follows (the store, the daemon's socket, the configuration), so they
// never disagree about which workspace a directory is in. Returns
// lunad.ErrNotWorkspace when there is no checkout there.
func Root(dir string) (string, error) {
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
			return "", fmt.Errorf("%w: no git repository at or above %s; run `lunad init`", lunad.ErrNotWorkspace, abs)
		}
		root = parent
	}
}

// Find returns the checkout at or above dir (Root) with its
// git directories. Returns lunad.ErrNotWorkspace when there is no checkout there
// or its .git file names no git directory.
func Find(dir string) (lunad.Checkout, error) {
	root, err := Root(dir)
	if err != nil {
		return lunad.Checkout{}, err
	}
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return lunad.Checkout{}, fmt.Errorf("%w: %w", lunad.ErrNotWorkspace, err)
	}
	c := lunad.Checkout{Root: root, GitDir: dotGit}
	if !fi.IsDir() {
		b, err := os.ReadFile(dotGit)
		if err != nil {
			return lunad.Checkout{}, fmt.Errorf("%w: %w", lunad.ErrNotWorkspace, err)
		}
		gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if gd = strings.TrimSpace(gd); !ok || gd == "" {
			return lunad.Checkout{}, fmt.Errorf("%w: %s is a file without a \"gitdir:\" line", lunad.ErrNotWorkspace, dotGit)
		}
		c.GitDir = relTo(root, gd)
		if fi, err := os.Stat(filepath.Join(c.GitDir, "HEAD")); err != nil || fi.IsDir() {
			return lunad.Checkout{}, fmt.Errorf("%w: %s names the git directory %s, which holds no HEAD (was the worktree removed or pruned? `git worktree repair` may fix it)", lunad.ErrNotWorkspace, dotGit, c.GitDir)
		}
	}
	c.CommonDir = c.GitDir
	if b, err := os.ReadFile(filepath.Join(c.GitDir, "commondir")); err == nil {
		if cd := strings.TrimSpace(string(b)); cd != "" {
			c.CommonDir = relTo(c.GitDir, cd)
		}
	}
	return c, nil
}

// relTo resolves p, absolute or relative to dir, to a clean absolute path.
func relTo(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}
