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
	a, _ := s.Create(ctx, CreateSpec{Title: "a", Path: "a.md", Content: []byte("main\n")})
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
	s.Edit(ctx, a.Artifact.ID, Change{}, replace("main", "feature"))
	b, _ := s.Create(ctx, CreateSpec{Title: "b", Path: "dir/b.md", Content: []byte("only on feature\n")})
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
	if _, err := s.Edit(ctx, b.Artifact.ID, Change{}, replace("only", "still only")); err != nil {
		t.Fatal(err)
	}
	checkRepo(t, s)
}
