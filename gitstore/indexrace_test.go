package gitstore

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestIndexUpdateKeepsGitsChange: a git command that changes the index
// while lunad brings it up to date (here `git add`, run between lunad's read
// of the index and its write) either waits for lunad — it finds index.lock
// and fails, as git does when another git runs — or keeps its change: lunad
// never writes an index read before a git command changed it. (It did: a
// person's `git add`, `git stash` or `git commit -a` was silently undone,
// and the stress test lost a save through a stash pop.)
func TestIndexUpdateKeepsGitsChange(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, s.root, "notes.txt", "staged by hand\n")
	var gitErr error
	var gitOut []byte
	testHookIndexRead = func() {
		testHookIndexRead = nil
		cmd := exec.Command("git", "add", "notes.txt")
		cmd.Dir = s.root
		gitOut, gitErr = cmd.CombinedOutput()
	}
	t.Cleanup(func() { testHookIndexRead = nil })
	if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("one", "two")); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if testHookIndexRead != nil {
		t.Fatal("the index was not updated")
	}
	staged := git(t, s.root, "diff", "--cached", "--name-only")
	switch {
	case gitErr != nil && strings.Contains(string(gitOut), "index.lock"):
		// git waited for lunad, as for another git: the person retries.
		if staged != "" {
			t.Fatalf("staged %q though git add failed", staged)
		}
	case gitErr != nil:
		t.Fatalf("git add: %v %s", gitErr, gitOut)
	case !strings.Contains(staged, "notes.txt"):
		t.Fatalf("git add succeeded, then lunad's index write undid it: staged %q", staged)
	}
	if st := git(t, s.root, "status", "--porcelain", "--", "a.md"); st != "" {
		t.Fatalf("a.md not synced: %q", st)
	}
}
