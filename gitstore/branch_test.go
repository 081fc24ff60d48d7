package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

func TestBranchSwitch(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a, _ := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("main\n")})
	if _, err := s.Branch(ctx, "feature", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Branch(ctx, "feature", ""); !errors.Is(err, lunad.ErrExists) {
		t.Fatalf("branch twice: %v", err)
	}
	if _, err := s.Switch(ctx, "feature"); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(git(t, s.root, "branch", "--show-current")); got != "feature" {
		t.Fatalf("current branch %q", got)
	}
	s.Edit(ctx, a.Artifact.ID, lunad.Change{}, replace("main", "feature"))
	b, _ := s.Create(ctx, lunad.CreateSpec{Title: "b", Path: "dir/b.md", Content: []byte("only on feature\n")})
	checkRepo(t, s)

	if _, err := s.Switch(ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(s.root, "a.md")); string(got) != "main\n" {
		t.Fatalf("a.md on main: %q", got)
	}
	if _, err := os.Stat(filepath.Join(s.root, "dir")); !os.IsNotExist(err) {
		t.Fatal("dir/b.md still in the working tree on main")
	}
	if _, err := s.Artifact(ctx, b.Artifact.ID); !errors.Is(err, lunad.ErrNotFound) {
		t.Fatalf("b on main: %v", err)
	}
	if art, _ := s.Artifact(ctx, a.Artifact.ID); art.Version != 1 {
		t.Fatalf("a on main at v%d", art.Version)
	}
	checkRepo(t, s)

	// A person's uncommitted change blocks the switch and survives it.
	writeFile(t, s.root, "a.md", "typed\n")
	if _, err := s.Switch(ctx, "feature"); !errors.Is(err, lunad.ErrDirty) || !strings.Contains(err.Error(), "a.md") {
		t.Fatalf("dirty switch: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(s.root, "a.md")); string(got) != "typed\n" {
		t.Fatalf("lost typed change: %q", got)
	}
	writeFile(t, s.root, "a.md", "main\n")
	brs, err := s.Branches(ctx)
	if err != nil || len(brs) != 2 || brs[0].Name != "feature" || brs[1].Name != "main" || !brs[1].Current {
		t.Fatalf("branches %+v %v", brs, err)
	}
	// The git CLI switching branches behind lunad's back is picked up.
	git(t, s.root, "checkout", "-q", "feature")
	if art, err := s.Artifact(ctx, a.Artifact.ID); err != nil || art.Version != 2 {
		t.Fatalf("after git checkout: %+v %v", art, err)
	}
	if _, err := s.Edit(ctx, b.Artifact.ID, lunad.Change{}, replace("only", "still only")); err != nil {
		t.Fatal(err)
	}
	checkRepo(t, s)
}

// TestDetachedHeadReadsOnly: after `git checkout --detach` to an earlier
// commit (time travel), reads show that state; writes are refused with
// what to do, and nothing moves.
func TestDetachedHeadReadsOnly(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.txt", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Artifact.ID
	if _, err := s.Edit(ctx, id, lunad.Change{}, replace("one", "two")); err != nil {
		t.Fatal(err)
	}
	git(t, s.root, "checkout", "-q", "-f", "--detach", "HEAD~1") // -f: the git index is synced lazily
	head := git(t, s.root, "rev-parse", "HEAD")
	if got := currentContent(t, s, id, "n.txt"); got != "one\n" {
		t.Fatalf("read at the detached HEAD: %q", got)
	}
	if h, err := s.History(ctx, id); err != nil || len(h) != 1 {
		t.Fatalf("history at the detached HEAD: %v %v", h, err)
	}
	_, err = s.Edit(ctx, id, lunad.Change{}, replace("one", "three"))
	if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "HEAD is detached") || !strings.Contains(err.Error(), "lunad switch") {
		t.Fatalf("write on a detached HEAD: %v", err)
	}
	if got := git(t, s.root, "rev-parse", "HEAD"); got != head {
		t.Fatalf("HEAD moved from %s to %s", head, got)
	}
	if _, err := s.Switch(ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if got := currentContent(t, s, id, "n.txt"); got != "two\n" {
		t.Fatalf("back on main: %q", got)
	}
}
