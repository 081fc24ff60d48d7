package window_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/window"
	"github.com/lunad/lunad/internal/wstest"
)

// headedFake is a fakeSource that says its HEAD commit and counts lists.
type headedFake struct {
	*fakeSource
	commit string
	lists  int
}

func (h *headedFake) Head() (string, string, error) { return "main", h.commit, nil }

func (h *headedFake) List(ctx context.Context) ([]lunad.Artifact, error) {
	h.lists++
	return h.fakeSource.List(ctx)
}

// TestCompilerListsOncePerHead: a Compiler lists again only when the
// Source's HEAD moves, and then sees the new artifact.
func TestCompilerListsOncePerHead(t *testing.T) {
	ctx := context.Background()
	src := &headedFake{fakeSource: fixture(), commit: "c1"}
	comp := window.NewCompiler(src, window.TokenizerFor("gpt-4"))
	in := window.Input{Active: "a1", Mode: window.ModeWrite, Budget: 100000}
	first, err := comp.Compile(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := comp.Compile(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if src.lists != 1 || again.Text != first.Text {
		t.Fatalf("two compiles at one HEAD listed %d times (want 1), same text: %v", src.lists, again.Text == first.Text)
	}
	src.add("z9", "zz/new.md", "text/markdown", "New", "# New\n")
	src.commit = "c2"
	moved, err := comp.Compile(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if src.lists != 2 || !strings.Contains(moved.Text, "z9\ttext/markdown\tzz/new.md\tNew\n") {
		t.Fatalf("after HEAD moved: listed %d times (want 2); new artifact indexed: %v", src.lists, strings.Contains(moved.Text, "zz/new.md"))
	}
}

// TestCompilerWorkspace: over the workspace service (a Header), a
// Compiler sees an artifact created between two compiles.
func TestCompilerWorkspace(t *testing.T) {
	ctx := context.Background()
	s := wstest.NewService(t)
	doc := wstest.Create(t, s, "docs/guide.md", "# Guide\n")
	comp := window.NewCompiler(s, window.TokenizerFor("gpt-4o"))
	in := window.Input{Active: doc, Mode: window.ModeWrite, Budget: 4000}
	if _, err := comp.Compile(ctx, in); err != nil {
		t.Fatal(err)
	}
	id := wstest.Create(t, s, "docs/later.md", "# Later\n")
	got, err := comp.Compile(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Text, id+"\ttext/markdown\tdocs/later.md\t") {
		t.Fatalf("an artifact created after the first compile is not indexed:\n%s", got.Text)
	}
}
