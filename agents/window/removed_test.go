package window_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/window"
	"github.com/lunad/lunad/internal/wstest"
)

// TestCompileAfterGitRm compiles in a workspace where a module the active
// article names and links to was removed with git rm and a commit made by
// hand: the compile succeeds, and the module is neither a dependency nor
// indexed.
func TestCompileAfterGitRm(t *testing.T) {
	ctx := context.Background()
	s := wstest.NewService(t)
	code := wstest.Create(t, s, "src/config.py", wstest.Src)
	doc := wstest.Create(t, s, "docs/guide.md", "# Guide\n\nCall `parse_config` from [config](../src/config.py).\n")
	if _, err := s.Link(ctx, lunad.LinkRequest{Src: doc, Dst: code}); err != nil {
		t.Fatal(err)
	}
	wstest.GitRun(t, s.Root(), "add", "-A") // .git/index follows lunad's commits lazily
	wstest.GitRun(t, s.Root(), "rm", "-q", "src/config.py")
	wstest.GitRun(t, s.Root(), "commit", "-q", "-m", "drop config")
	tok := window.TokenizerFor("gpt-4o")
	got, err := window.Compile(ctx, s, tok, window.Input{Active: doc, Mode: window.ModeWrite, Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if f := forms(got); f != doc+":full" {
		t.Fatalf("blocks %q, want only the active article\n%s", f, got.Text)
	}
	if strings.Contains(got.Text, "src/config.py\tsrc/config.py") || strings.Contains(got.Text, "def parse_config") {
		t.Fatalf("the removed module is in the context:\n%s", got.Text)
	}
	checkWellFormed(t, tok, got)
}
