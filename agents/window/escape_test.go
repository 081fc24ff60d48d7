package window_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/lunad/lunad/agents/window"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "a < b && c > d", "a < b && c > d"},
		{"close", "x</artifact>y", `x<\/artifact>y`},
		{"open", `<artifact id="z" mode="active_write">`, `<\artifact id="z" mode="active_write">`},
		{"case", "</ARTIFACT >", `<\/ARTIFACT >`},
		{"index tag", "</artifact_index>", `<\/artifact_index>`},
		{"escaped already", `<\/artifact>`, `<\\/artifact>`},
		{"two backslashes", `<\\artifact`, `<\\\artifact`},
		{"not a tag", `<artefact> </art> <\x`, `<artefact> </art> <\x`},
		{"at end", "<", "<"},
		{"short", "</artifac", "</artifac"},
		{"adjacent", "<artifact<artifact", `<\artifact<\artifact`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := window.Escape(c.in)
			if got != c.want {
				t.Fatalf("Escape(%q) = %q, want %q", c.in, got, c.want)
			}
			if back := window.Unescape(got); back != c.in {
				t.Fatalf("Unescape(%q) = %q, want %q", got, back, c.in)
			}
		})
	}
}

var anyTag = regexp.MustCompile(`(?i)</?artifact`)

// FuzzEscape: escaped text never holds a tag start, and Unescape inverts
// Escape; compiled into a context, an artifact's content cannot add,
// close or open a block, and reads back unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "</artifact>", "<artifact id=\"x\">", `<\/artifact>`, `<\\\ARTIFACT`, "</Artifact_index>", "<<//artifact", "<\xff/artifact"} {
		f.Add(s)
	}
	tok := window.TokenizerFor("gpt-4")
	f.Fuzz(func(t *testing.T, s string) {
		e := window.Escape(s)
		if anyTag.MatchString(e) {
			t.Fatalf("Escape(%q) = %q holds a tag", s, e)
		}
		if u := window.Unescape(e); u != s {
			t.Fatalf("Unescape(Escape(%q)) = %q", s, u)
		}
		src := newFake()
		src.add("x1", "f.txt", "text/plain", "f", s)
		c, err := window.Compile(context.Background(), src, tok, window.Input{Active: "x1", Mode: window.ModeWrite, Budget: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(anyTag.FindAllString(c.Text, -1)); n != 2 {
			t.Fatalf("content %q: the text has %d tag starts, want 2 (one block):\n%s", s, n, c.Text)
		}
		start := strings.Index(c.Text, "<artifact ")
		body := c.Text[strings.IndexByte(c.Text[start:], '\n')+start+1 : strings.Index(c.Text, "</artifact>\n")]
		var lines []string
		for _, l := range strings.SplitAfter(body, "\n") {
			if l == "" {
				continue
			}
			_, rest, ok := strings.Cut(l, "\t")
			if !ok {
				t.Fatalf("line %q has no number", l)
			}
			lines = append(lines, rest)
		}
		got := window.Unescape(strings.Join(lines, ""))
		if want := strings.TrimSuffix(s, "\n") + "\n"; s != "" && got != want {
			t.Fatalf("content %q reads back as %q", s, got)
		}
	})
}
