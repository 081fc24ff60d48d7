package lunad

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// Checkout is a git checkout and where git keeps its state, laid out as
// git lays out linked worktrees (`git worktree add`): what belongs to one
// working tree lives in GitDir, what every worktree of the repository
// shares in CommonDir. In the main checkout both are <Root>/.git.
type Checkout struct {
	// Root is the working tree's top directory (FindRoot).
	Root string
	// GitDir holds this working tree's HEAD and index, and lunad's state
	// for it (luna/: the writer lock, the pending list, caches, the
	// daemon's socket): <Root>/.git, or <main>/.git/worktrees/NAME for a
	// linked worktree (what the .git file's "gitdir:" line names).
	GitDir string
	// CommonDir holds what the worktrees share: objects, refs (branches,
	// lunad's run logs), packed-refs, config. The directory GitDir's
	// "commondir" file names, else GitDir itself (the main checkout, a
	// submodule).
	CommonDir string
}

// Linked reports whether the checkout is a linked worktree (its git dir is
// not the repository's common dir).
func (c Checkout) Linked() bool { return c.GitDir != c.CommonDir }

// FindCheckout returns the checkout at or above dir (FindRoot) with its
// git directories. Returns ErrNotWorkspace when there is no checkout there
// or its .git file names no git directory.
func FindCheckout(dir string) (Checkout, error) {
	root, err := FindRoot(dir)
	if err != nil {
		return Checkout{}, err
	}
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return Checkout{}, fmt.Errorf("%w: %w", ErrNotWorkspace, err)
	}
	c := Checkout{Root: root, GitDir: dotGit}
	if !fi.IsDir() {
		b, err := os.ReadFile(dotGit)
		if err != nil {
			return Checkout{}, fmt.Errorf("%w: %w", ErrNotWorkspace, err)
		}
		gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if gd = strings.TrimSpace(gd); !ok || gd == "" {
			return Checkout{}, fmt.Errorf("%w: %s is a file without a \"gitdir:\" line", ErrNotWorkspace, dotGit)
		}
		c.GitDir = relTo(root, gd)
		if fi, err := os.Stat(filepath.Join(c.GitDir, "HEAD")); err != nil || fi.IsDir() {
			return Checkout{}, fmt.Errorf("%w: %s names the git directory %s, which holds no HEAD (was the worktree removed or pruned? `git worktree repair` may fix it)", ErrNotWorkspace, dotGit, c.GitDir)
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
