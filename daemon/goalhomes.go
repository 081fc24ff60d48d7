package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/gitdir"
)

// goalHomesDir is where the goals' homes are, under lunad's home for
// commands (LUNAD_SANDBOX_HOME, else <git common dir>/luna/sandbox/home).
const goalHomesDir = "goals"

// goalHome is the $HOME of the commands of the goal whose worktree is
// root: a directory of its own under home, empty when the goal's first
// command runs, kept for its later commands (so its build caches
// persist within the goal) and never given to another goal — what one
// goal plants there (a usercustomize.py, a .bashrc, a poisoned GOCACHE
// entry) would run in the next one's commands. It is named for the
// worktree (a goal's is its own: luna/goal/<run-id>), with the worktree's
// path written beside it (NAME.worktree) so that sweepGoalHomes can
// remove it once the worktree is gone.
func goalHome(home, root string) (string, error) {
	parent := filepath.Join(home, goalHomesDir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", fmt.Errorf("the goals' homes %s (LUNAD_SANDBOX_HOME): %w", parent, err)
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(parent, hex.EncodeToString(sum[:12]))
	if err := os.WriteFile(dir+".worktree", []byte(root), 0o600); err != nil {
		return "", fmt.Errorf("the goal's home %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("the goal's home %s: %w", dir, err)
	}
	return dir, nil
}

// sweepGoalHomes removes the homes of goals whose worktree is gone, and
// any home whose worktree is unrecorded; it returns what it could not
// remove.
func sweepGoalHomes(home string) error {
	parent := filepath.Join(home, goalHomesDir)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil // no goal has run a command yet
	}
	var errs []error
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		root, err := os.ReadFile(dir + ".worktree")
		if err == nil && strings.TrimSpace(string(root)) != "" {
			if _, err := os.Stat(string(root)); err == nil {
				continue
			}
		}
		if err := removeTree(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		os.Remove(dir + ".worktree")
	}
	return errors.Join(errs...)
}

// removeTree removes dir and everything in it, making its directories
// writable first (a command may leave read-only ones, as Go's module
// cache does).
func removeTree(dir string) error {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the home of a finished goal: %w", err)
	}
	return nil
}

// SandboxHome is the goals' commands' $HOME: LUNAD_SANDBOX_HOME, else
// <git common dir>/luna/sandbox/home of the workspace at root — lunad's
// own, kept between commands and goals so build caches persist.
func SandboxHome(root string, getenv func(string) string) (string, error) {
	home := getenv("LUNAD_SANDBOX_HOME")
	if home == "" {
		c, err := gitdir.Find(root)
		if err != nil {
			return "", err
		}
		home = filepath.Join(c.CommonDir, "luna", "sandbox", "home")
	}
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("%w: LUNAD_SANDBOX_HOME=%q must be an absolute path", lunad.ErrInvalid, home)
	}
	return filepath.Clean(home), nil
}
