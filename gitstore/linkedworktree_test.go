package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// In a linked `git worktree` (.git is a file there) every package finds the
// same checkout — the linked one, never the repository it links to — and
// the store refuses it with a message that says why, instead of serving
// the main checkout's workspace from another directory.
func TestLinkedWorktreeRoot(t *testing.T) {
	s := newStore(t)
	main := s.Root()
	git(t, main, "commit", "--allow-empty", "-m", "base")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, main, "worktree", "add", "-b", "side", wt)
	sub := filepath.Join(wt, "docs")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	wtReal, _ := filepath.EvalSymlinks(wt)
	for _, dir := range []string{wt, sub} {
		root, err := lunad.FindRoot(dir)
		if err != nil {
			t.Fatalf("FindRoot(%s): %v", dir, err)
		}
		if r, _ := filepath.EvalSymlinks(root); r != wtReal {
			t.Fatalf("FindRoot(%s) = %s, want the linked checkout %s", dir, root, wt)
		}
		_, err = Open(dir, testOptions())
		if !errors.Is(err, lunad.ErrNotWorkspace) || !strings.Contains(err.Error(), "linked worktree") {
			t.Fatalf("Open(%s) = %v, want ErrNotWorkspace naming the linked worktree", dir, err)
		}
	}
	if root, err := lunad.FindRoot(filepath.Join(main, ".luna")); err != nil || root != main {
		t.Fatalf("FindRoot in the main checkout = %s, %v", root, err)
	}
}
