package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// A git command run by hand that moves the branch or holds its lock while
// lunad commits does not fail lunad's write: the batch runs again on the
// new state (within LockTimeout) and lands on top of the hand commit.
func TestWriteWhileGitMovesTheBranch(t *testing.T) {
	ctx := context.Background()
	t.Run("a hand commit lands first", func(t *testing.T) {
		s := newStore(t)
		r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SyncIndex(ctx); err != nil { // the person's git sees the create
			t.Fatal(err)
		}
		testHookBeforeRef = func() {
			testHookBeforeRef = nil
			git(t, s.root, "commit", "-q", "--allow-empty", "-m", "by hand")
		}
		t.Cleanup(func() { testHookBeforeRef = nil })
		res, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{Agent: "coder"}, replace("one", "two"))
		if err != nil {
			t.Fatalf("edit after a hand commit moved the branch: %v", err)
		}
		if log := git(t, s.root, "log", "--format=%s", "-3"); log != "edit a.md\nby hand\ncreate a.md\n" {
			t.Fatalf("history:\n%s", log)
		}
		if got := currentContent(t, s, r.Artifact.ID, "a.md"); got != "two\n" || res.Version.Number != 2 {
			t.Fatalf("content %q, version %d", got, res.Version.Number)
		}
		checkRepo(t, s)
	})
	t.Run("git holds the branch's lock", func(t *testing.T) {
		s := newStore(t)
		r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
		if err != nil {
			t.Fatal(err)
		}
		branch := strings.TrimSpace(git(t, s.root, "symbolic-ref", "HEAD"))
		lock := filepath.Join(s.gitDir, filepath.FromSlash(branch)+".lock")
		if err := os.WriteFile(lock, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("one", "two"))
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("the edit answered while git held %s: %v", lock, err)
		case <-time.After(200 * time.Millisecond): // git at work
		}
		if err := os.Remove(lock); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("edit after git released the lock: %v", err)
		}
		checkRepo(t, s)
	})
}
