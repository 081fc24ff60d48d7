package treesitter

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// markdownOfSize builds Markdown of n units of each shape that made
// indexing superlinear.
var markdownOfSize = map[string]func(n int) string{
	"headings": func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "# Heading %d\n", i)
		}
		return b.String()
	},
	"brackets":       func(n int) string { return strings.Repeat("[", 50*n) },
	"long paragraph": func(n int) string { return strings.Repeat("word `code` [link](x) ", n) },
	"sections and code": func(n int) string {
		var b strings.Builder
		for i := range n / 4 {
			fmt.Fprintf(&b, "## Part %d\n\nSee `f%d` and [it](a.md#part-%d).\n\n", i, i, i)
		}
		return b.String()
	},
}

// TestMarkdownLinear: indexing four times as much Markdown takes about four
// times as long — at most eight (quadratic work would take sixteen; the
// shapes here took 12-15 times before). Each size is timed as the best of
// three runs, against the noise of a shared machine.
func TestMarkdownLinear(t *testing.T) {
	const n = 8000
	for name, gen := range markdownOfSize {
		t.Run(name, func(t *testing.T) {
			small, large := []byte(gen(n)), []byte(gen(4*n))
			ts, tl := bestOf(t, small), bestOf(t, large)
			ratio := float64(tl) / float64(ts)
			t.Logf("%d bytes: %v; %d bytes: %v; ratio %.1f", len(small), ts, len(large), tl, ratio)
			if ratio > 8 {
				t.Fatalf("4x the content took %.1fx the time (%v vs %v): not linear", ratio, tl, ts)
			}
		})
	}
}

func bestOf(t *testing.T, src []byte) time.Duration {
	p := NewParser()
	defer p.Close()
	best := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		f, err := p.Parse("text/markdown", src)
		if err != nil {
			t.Fatal(err)
		}
		if f.Skipped != "" {
			t.Fatalf("skipped: %s", f.Skipped)
		}
		best = min(best, time.Since(start))
	}
	return best
}

// TestLongParagraph: a paragraph longer than maxInline is parsed in pieces,
// and every reference in it is still found.
func TestLongParagraph(t *testing.T) {
	const units = 2000
	src := []byte("# Long\n\n" + strings.Repeat("word `code` [link](x.md) ", units) + "\n")
	p := NewParser()
	defer p.Close()
	f, err := p.Parse("text/markdown", src)
	if err != nil {
		t.Fatal(err)
	}
	code, links := 0, 0
	for _, r := range f.References {
		switch {
		case r.Kind == "code" && r.Name == "code":
			code++
		case r.Kind == "link" && r.Target == "x.md":
			links++
		}
		if got := string(src[r.Span.Start.Byte:r.Span.End.Byte]); r.Kind == "code" && got != "`code`" {
			t.Fatalf("code span at %d reads %q", r.Span.Start.Byte, got)
		}
	}
	if code != units || links != units {
		t.Fatalf("found %d code spans and %d links, want %d of each", code, links, units)
	}
}

// TestParseBudget: a file whose budget runs out is Skipped with the reason,
// as a fresh Parse and as a Doc update; the parser goes on working.
func TestParseBudget(t *testing.T) {
	big := []byte(strings.Repeat("`\n", 400000))
	small := []byte("# Title\n\nSee `f`.\n")
	p := NewParser()
	defer p.Close()
	p.SetBudget(time.Millisecond)
	f, err := p.Parse("text/markdown", big)
	if err != nil || !strings.Contains(f.Skipped, "indexing took longer than 1ms (800000 bytes)") || len(f.References) != 0 {
		t.Fatalf("Parse over budget: %+v %v", f, err)
	}
	doc, err := p.Open("text/markdown", small)
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	if f, err := doc.Update(big); err != nil || !strings.Contains(f.Skipped, "indexing took longer than") {
		t.Fatalf("Update over budget: %+v %v", f, err)
	}
	p.SetBudget(DefaultBudget)
	for _, get := range []func() (*File, error){
		func() (*File, error) { return p.Parse("text/markdown", small) },
		func() (*File, error) { return doc.Update(small) },
	} {
		f, err := get()
		if err != nil || f.Skipped != "" || len(f.Symbols) != 1 || f.Symbols[0].Name != "Title" || len(f.References) != 1 {
			t.Fatalf("after a file over budget: %+v %v", f, err)
		}
	}
}
