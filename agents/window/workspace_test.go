package window_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/window"
	"github.com/lunad/lunad/internal/wstest"
)

// TestCompileWorkspace compiles against a real lunad workspace (git store,
// tree-sitter reference index): an article naming a function of a Python
// module gets the module as a read-only dependency, in full when the
// budget holds it and outlined by its parsed definitions when not; an
// explicitly linked artifact is a dependency too; the rest is indexed.
func TestCompileWorkspace(t *testing.T) {
	ctx := context.Background()
	s := wstest.NewService(t)
	code := wstest.Create(t, s, "src/config.py", wstest.Src+strings.Repeat("\n\ndef unused_helper_with_a_long_name(value):\n    return [value, value, value, value, value, value, value]\n", 6))
	doc := wstest.Create(t, s, "docs/guide.md", "# Guide\n\nCall `parse_config` with the path of a TOML file.\n")
	notes := wstest.Create(t, s, "docs/notes.md", "# Notes\n\nNothing here refers to code.\n")
	other := wstest.Create(t, s, "lib/other.py", "def other():\n    return 1\n")
	if _, err := s.Link(ctx, lunad.LinkRequest{Src: doc, Dst: notes, Kind: "see-also"}); err != nil {
		t.Fatal(err)
	}
	tok := window.TokenizerFor("gpt-4o")
	for _, c := range []struct {
		name   string
		budget int
		forms  string
		inText []string
	}{
		{"full", 4000, notes + ":full " + code + ":full " + doc + ":full",
			[]string{`path="src/config.py" title="src/config.py" mode="read_only" form="full">` + "\n" + wstest.Src}},
		{"outlined", 560, notes + ":full " + code + ":outline " + doc + ":full",
			[]string{`mode="read_only" form="outline" lines="31">` + "\n1\tdef parse_config(path):\n6\tdef main():\n10\tdef unused_helper_with_a_long_name(value):\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := window.Compile(ctx, s, tok, window.Input{Active: doc, Mode: window.ModeWrite, Budget: c.budget})
			if err != nil {
				t.Fatal(err)
			}
			if f := forms(got); f != c.forms {
				t.Fatalf("blocks %q, want %q\n%s", f, c.forms, got.Text)
			}
			for _, s := range c.inText {
				if !strings.Contains(got.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, got.Text)
				}
			}
			if !strings.Contains(got.Text, other+"\tcode/python\tlib/other.py\tlib/other.py\n") {
				t.Errorf("lib/other.py is not indexed:\n%s", got.Text)
			}
			checkWellFormed(t, tok, got)
		})
	}
}
