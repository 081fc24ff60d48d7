package treesitter

import (
	"slices"
	"testing"
)

// grammarCodeSpans is what the inline grammar finds in text: the code
// spans' [start, end), backticks included.
func grammarCodeSpans(t testing.TB, p *Parser, text []byte) [][2]int {
	p.start()
	tree, _, err := p.parseTree(markdownInline, nil, text)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	var out [][2]int
	matches(markdownInline, p.queryCursor(), tree.RootNode(), text, func(c capture) {
		if c.tag == "reference.code" {
			out = append(out, [2]int{int(c.tagged.StartByte()), int(c.tagged.EndByte())})
		}
	})
	return out
}

// checkPlainCodeSpans fails when plainCodeSpans takes text and finds other
// code spans than the grammar.
func checkPlainCodeSpans(t testing.TB, p *Parser, text []byte) {
	got, ok := plainCodeSpans(text)
	if !ok {
		return
	}
	if want := grammarCodeSpans(t, p, text); !slices.Equal(got, want) {
		t.Fatalf("%q: scanned code spans %v, the grammar's %v", text, got, want)
	}
}

// TestPlainCodeSpans: without links, HTML, escapes or LaTeX, scanning
// for backtick runs finds exactly the code spans the inline grammar does —
// with emphasis, strikethrough, runs that close nothing, runs of other
// lengths inside, spans across lines.
func TestPlainCodeSpans(t *testing.T) {
	tests := []struct {
		name, text string
		taken      bool
	}{
		{"one span", "Call `parse_config` first.", true},
		{"two spans", "`a` and `b.c()`", true},
		{"runs of two lengths around each other", "``a ` b`` then `c`", false},
		{"unclosed run is text", "`a `b` c", true},
		{"double backticks", "``a`` b ``c``", true},
		{"runs of two lengths", "`a`` b` c", false},
		{"span across lines", "first `line\nsecond` end", true},
		{"emphasis around", "*see `f` here*", true},
		{"emphasis cut by a span", "*a `b* c`", true},
		{"underscores in names", "_x_ `load_schema_event` and __y__", true},
		{"strikethrough", "~~old `f`~~ new", true},
		{"star inside", "`a*b` *c*", true},
		{"only backticks", "```", true},
		{"empty span", "`` ``", true},
		{"span at the end", "end `x`", true},
		{"a link", "`a` [b](c.md)", false},
		{"html", "`a` <b>", false},
		{"escape", "\\`a` `b`", false},
		{"latex", "$x$ `a`", false},
		{"a wiki link", "`a` [[b]]", false},
	}
	p := NewParser()
	defer p.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := plainCodeSpans([]byte(tt.text)); ok != tt.taken {
				t.Fatalf("taken = %v, want %v", ok, tt.taken)
			}
			checkPlainCodeSpans(t, p, []byte(tt.text))
		})
	}
	t.Run("generated", func(t *testing.T) {
		// every short string over alphabets where code spans, emphasis,
		// brackets without links and line breaks meet
		count := 0
		var gen func(alphabet []string, prefix string, n int)
		gen = func(alphabet []string, prefix string, n int) {
			if n == 0 {
				checkPlainCodeSpans(t, p, []byte(prefix))
				count++
				return
			}
			for _, s := range alphabet {
				gen(alphabet, prefix+s, n-1)
			}
		}
		wide := []string{"`", "``", "*", "_", "~", "a", " ", "\n", "](", "!&"}
		narrow := []string{"`", "``", "*", "a", " "}
		for n := 1; n <= 4; n++ {
			gen(wide, "", n)
		}
		gen(narrow, "", 6)
		t.Logf("%d texts compared", count)
	})
}

// FuzzPlainCodeSpans compares plainCodeSpans with the inline grammar on
// any text it takes.
func FuzzPlainCodeSpans(f *testing.F) {
	for _, s := range []string{"Call `parse_config` first.", "``a ` b`` then `c`", "*a `b* c`", "~~old `f`~~", "` a `` b ``"} {
		f.Add([]byte(s))
	}
	p := NewParser()
	defer p.Close()
	f.Fuzz(func(t *testing.T, text []byte) {
		if skipReason(text) != "" {
			return
		}
		checkPlainCodeSpans(t, p, text)
	})
}
