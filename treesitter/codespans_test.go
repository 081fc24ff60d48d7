package treesitter

import (
	"bytes"
	"slices"
	"testing"
)

// grammarInline is what the inline grammar finds in text: the code spans
// (backticks included) and the link and image destinations.
func grammarInline(t testing.TB, p *Parser, text []byte) (codes, links [][2]int) {
	p.start()
	tree, _, err := p.parseTree(markdownInline, nil, text)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	matches(markdownInline, p.queryCursor(), tree.RootNode(), text, func(c capture) {
		sp := [2]int{int(c.tagged.StartByte()), int(c.tagged.EndByte())}
		switch c.tag {
		case "reference.code":
			codes = append(codes, sp)
		case "reference.link":
			links = append(links, sp)
		}
	})
	return codes, links
}

// checkPlainInline fails when plainInline takes text and finds other code
// spans or link destinations than the grammar, or when text has neither a
// backtick nor "](" (inlineRefs then asks nothing) and the grammar finds
// something.
func checkPlainInline(t testing.TB, p *Parser, text []byte) {
	codes, links, ok := plainInline(text)
	if !bytes.ContainsRune(text, '`') && !bytes.Contains(text, []byte("](")) {
		codes, links, ok = nil, nil, true
	}
	if !ok {
		return
	}
	wantCodes, wantLinks := grammarInline(t, p, text)
	if !slices.Equal(codes, wantCodes) || !slices.Equal(links, wantLinks) {
		t.Fatalf("%q: scanned code spans %v and links %v, the grammar's %v and %v", text, codes, links, wantCodes, wantLinks)
	}
}

// TestPlainInline: on plain inline spans (no HTML, escapes or LaTeX;
// backtick runs of one length; brackets only in simple links and wiki
// links), a scan finds exactly the code spans and link destinations the
// inline grammar does — with emphasis, strikethrough, runs that close
// nothing, spans across lines, code spans in link text, images.
func TestPlainInline(t *testing.T) {
	tests := []struct {
		name, text string
		taken      bool
	}{
		{"one span", "Call `parse_config` first.", true},
		{"two spans", "`a` and `b.c()`", true},
		{"unclosed run is text", "`a `b` c", true},
		{"double backticks", "``a`` b ``c``", true},
		{"span across lines", "first `line\nsecond` end", true},
		{"emphasis around", "*see `f` here*", true},
		{"emphasis cut by a span", "*a `b* c`", true},
		{"underscores in names", "_x_ `load_schema_event` and __y__", true},
		{"strikethrough", "~~old `f`~~ new", true},
		{"only backticks", "```", true},
		{"empty span", "`` ``", true},
		{"a link", "see [the parser](../pkg/parse.go#Parse) and `f`", true},
		{"an image", "![logo](img/logo.png)", true},
		{"code span in link text", "[`Parse`](parse.go#Parse)", true},
		{"links and a wiki link", "[a](a.md) then [[Some page]] and [b](b.md#x)", true},
		{"link in parentheses", "(see [a](a.md))", true},
		{"emphasis in link text", "[*a*](b.md) *c*", true},
		{"runs of two lengths", "`a`` b` c", false},
		{"runs of two lengths around each other", "``a ` b`` then `c`", false},
		{"html", "`a` <b>", false},
		{"escape", "\\`a` `b`", false},
		{"latex", "$x$ `a`", false},
		{"a title", "[a](b.md \"title\")", false},
		{"parentheses in the destination", "[a](b(c))", false},
		{"a reference link", "[a][b]", false},
		{"a lone bracket", "a ] b", false},
		{"a bracket in a code span", "`a[0]`", false},
		{"a wiki link followed by a parenthesis", "[[a]](b)", false},
	}
	p := NewParser()
	defer p.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, ok := plainInline([]byte(tt.text)); ok != tt.taken {
				t.Fatalf("taken = %v, want %v", ok, tt.taken)
			}
			checkPlainInline(t, p, []byte(tt.text))
		})
	}
	t.Run("generated", func(t *testing.T) {
		// every short string over alphabets where code spans, emphasis,
		// links, wiki links and line breaks meet
		count := 0
		var gen func(alphabet []string, prefix string, n int)
		gen = func(alphabet []string, prefix string, n int) {
			if n == 0 {
				checkPlainInline(t, p, []byte(prefix))
				count++
				return
			}
			for _, s := range alphabet {
				gen(alphabet, prefix+s, n-1)
			}
		}
		gen([]string{"`", "``", "*", "_", "~", "a", " ", "\n", "!&", "(", ")"}, "", 4)
		gen([]string{"`", "*", "a", " ", "[", "]", "(", ")", "[[", "]]", "](", "!"}, "", 4)
		gen([]string{"[", "]", "(", ")", "a", " ", "\n", "<", "!", ":"}, "", 4)
		gen([]string{"`", "``", "*", "a", " "}, "", 6)
		t.Logf("%d texts compared", count)
	})
}

// FuzzPlainInline compares plainInline with the inline grammar on any text
// it takes.
func FuzzPlainInline(f *testing.F) {
	for _, s := range []string{"Call `parse_config` first.", "*a `b* c`", "~~old `f`~~", "[`Parse`](parse.go#Parse) and [[Page]]", "(see [a](a.md)) ![i](i.png)"} {
		f.Add([]byte(s))
	}
	p := NewParser()
	defer p.Close()
	f.Fuzz(func(t *testing.T, text []byte) {
		if skipReason(text) != "" {
			return
		}
		checkPlainInline(t, p, text)
	})
}
