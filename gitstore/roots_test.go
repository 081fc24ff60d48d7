package gitstore

import (
	"context"
	"testing"

	"github.com/lunad/lunad"
)

// TestCommitRootsKept: reading at an unmoved HEAD reads no commit object
// again, and a commit made with plain git (HEAD moved outside the store)
// is read once and its content served.
func TestCommitRootsKept(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "A", Path: "a.md", Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		t.Helper()
		b, _, err := s.Read(ctx, r.Artifact.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	reads := func() int { s.roots.mu.Lock(); defer s.roots.mu.Unlock(); return s.roots.reads }
	read()
	n := reads()
	for range 3 {
		if got := read(); got != "a\n" {
			t.Fatalf("read %q", got)
		}
		if _, err := s.List(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if d := reads() - n; d != 0 {
		t.Fatalf("at an unmoved HEAD, %d commits were read again", d)
	}
	writeFile(t, s.Root(), "a.md", "a by hand\n")
	git(t, s.Root(), "reset", "-q") // the store does not keep .git/index (SyncIndex)
	git(t, s.Root(), "commit", "-qam", "by hand")
	if got := read(); got != "a by hand\n" {
		t.Fatalf("after a plain git commit: %q", got)
	}
	if d := reads() - n; d != 1 {
		t.Fatalf("after a plain git commit, %d commits read, want the new HEAD's", d)
	}
}
