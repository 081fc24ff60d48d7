package mcp

import (
	"context"
	"slices"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
)

// TestResourceListRemoved: resources/list leaves out an artifact removed
// with lunad and one whose file a git rm committed by hand deleted.
func TestResourceListRemoved(t *testing.T) {
	svc, dir := newService(t, nil)
	ctx := context.Background()
	for _, p := range []string{"a.md", "b.md", "c.md"} {
		if _, err := svc.Create(ctx, lunad.CreateSpec{Title: p, Path: p, Content: []byte("x\n")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Remove(ctx, lunad.RefRequest{Ref: "b.md"}); err != nil {
		t.Fatal(err)
	}
	wstest.GitRun(t, dir, "add", "-A") // .git/index follows lunad's commits lazily
	wstest.GitRun(t, dir, "rm", "-q", "c.md")
	wstest.GitRun(t, dir, "commit", "-q", "-m", "drop c")
	srv, err := New(ctx, svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, srv, nil)
	var got []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Name)
	}
	if !slices.Equal(got, []string{"a.md"}) {
		t.Fatalf("resources: %v, want [a.md]", got)
	}
}
