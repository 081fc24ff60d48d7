package treesitter

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkParseNetHTTP parses the Go files of $GOROOT/src/net/http and
// reports files/s on one core.
func BenchmarkParseNetHTTP(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if len(files) == 0 {
		b.Skip("no GOROOT sources")
	}
	var srcs [][]byte
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	p := NewParser()
	defer p.Close()
	b.ResetTimer()
	for range b.N {
		for _, src := range srcs {
			if _, err := p.Parse("code/go", src); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(srcs))/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkUpdateOneLine measures an incremental re-parse after a one-line
// insert in a large Go file.
func BenchmarkUpdateOneLine(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	p := NewParser()
	defer p.Close()
	d, err := p.Open("code/go", src)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	mid := len(src) / 2
	for mid < len(src) && src[mid] != '\n' {
		mid++
	}
	edited := append(append(append([]byte(nil), src[:mid+1]...), "// edit\n"...), src[mid+1:]...)
	b.ResetTimer()
	for i := range b.N {
		next := src
		if i%2 == 0 {
			next = edited
		}
		if _, err := d.Update(next); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateMarkdown: a one-line insert in a 120 KB Markdown file.
func BenchmarkUpdateMarkdown(b *testing.B) {
	unit := "## Section\n\nSome `code` and [link](a.md#x) and [[wiki]] text.\n\n- item `b()`\n\n```go\nfunc x() {}\n```\n\n"
	benchUpdateMarkdown(b, []byte(strings.Repeat(unit, 1200)))
}

// benchUpdateMarkdown times Update of an open Markdown document src,
// alternately with a line inserted in its middle and without.
func benchUpdateMarkdown(b *testing.B, src []byte) {
	edited := []byte(string(src[:len(src)/2]) + "new `line` here\n\n" + string(src[len(src)/2:]))
	p := NewParser()
	defer p.Close()
	d, err := p.Open("text/markdown", src)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.ResetTimer()
	for i := range b.N {
		next := src
		if i%2 == 0 {
			next = edited
		}
		if _, err := d.Update(next); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateMarkdownExamples: a one-line insert in a 120 KB Markdown
// file whose examples construct values that its code spans name methods
// through (instances.go reads every example on each update).
func BenchmarkUpdateMarkdownExamples(b *testing.B) {
	unit := "## Section\n\n```python\nclient = httpx.Client(timeout=5)\nr = client.get(url)\n```\n\nThen `client.get(url)` and `r.json()`.\n\n```rust\nlet md = MDBook::load(\"b\")?;\n```\n\nCall `md.build()`.\n\n"
	benchUpdateMarkdown(b, []byte(strings.Repeat(unit, 600)))
}

// BenchmarkInstances: reading the constructions of the examples of
// BenchmarkUpdateMarkdownExamples' file (1,200 examples), the part of its
// update instances.go adds.
func BenchmarkInstances(b *testing.B) {
	examples := map[string][]string{}
	for range 600 {
		examples[LangPython] = append(examples[LangPython], "client = httpx.Client(timeout=5)\nr = client.get(url)\n")
		examples[LangRust] = append(examples[LangRust], "let md = MDBook::load(\"b\")?;\n")
	}
	for b.Loop() {
		if got := instances(examples); got["client"] != "Client" || got["md"] != "MDBook" {
			b.Fatalf("instances %v", got)
		}
	}
}
