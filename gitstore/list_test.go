package gitstore

import (
	"context"
	"slices"
	"testing"

	"github.com/lunad/lunad"
)

// TestListKept: List answers from the list it kept while the branch stays
// (a caller changing its copy changes nothing kept), and follows every
// change of the branch: a write, a new artifact, a switch of branches.
func TestListKept(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	list := func() []lunad.Artifact {
		t.Helper()
		arts, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return arts
	}
	summary := func(arts []lunad.Artifact) []string {
		var out []string
		for _, a := range arts {
			out = append(out, a.Path+"@"+a.Title+"@"+string(rune('0'+a.Version)))
		}
		return out
	}
	b, err := s.Create(ctx, lunad.CreateSpec{Title: "B", Path: "b.md", Content: []byte("b\n")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, lunad.CreateSpec{Title: "A", Path: "a.md", Content: []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	first := list()
	if got := summary(first); !slices.Equal(got, []string{"a.md@A@1", "b.md@B@1"}) {
		t.Fatalf("list %v", got)
	}
	first[0].Title, first[1].Path = "changed by a caller", "x"
	if got := summary(list()); !slices.Equal(got, []string{"a.md@A@1", "b.md@B@1"}) {
		t.Fatalf("a caller's change of its list reached the kept one: %v", got)
	}
	if _, err := s.Edit(ctx, b.Artifact.ID, lunad.Change{}, appendLine("more")); err != nil {
		t.Fatal(err)
	}
	if got := summary(list()); !slices.Equal(got, []string{"a.md@A@1", "b.md@B@2"}) {
		t.Errorf("after an edit: %v", got)
	}
	if _, err := s.Branch(ctx, "side", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, lunad.CreateSpec{Title: "C", Path: "c.md", Content: []byte("c\n")}); err != nil {
		t.Fatal(err)
	}
	if got := summary(list()); !slices.Equal(got, []string{"a.md@A@1", "b.md@B@2", "c.md@C@1"}) {
		t.Errorf("after a create: %v", got)
	}
	if _, err := s.Switch(ctx, "side"); err != nil {
		t.Fatal(err)
	}
	if got := summary(list()); !slices.Equal(got, []string{"a.md@A@1", "b.md@B@2"}) {
		t.Errorf("on the other branch: %v", got)
	}
}
