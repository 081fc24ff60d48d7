package refindex

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/lunad/lunad/treesitter"
)

// memorySources generates n Go files of 20 functions that call 10 others
// each, and n Markdown files naming 30 of them in code spans and links.
func memorySources(n int) []Source {
	name := func(f, i int) string { return fmt.Sprintf("Func%dOf%d", i, f) }
	var srcs []Source
	for f := range n {
		var b strings.Builder
		b.WriteString("package p\n\n")
		for i := range 20 {
			fmt.Fprintf(&b, "func %s(x int) int {\n", name(f, i))
			for j := range 10 {
				fmt.Fprintf(&b, "\tx += %s(x)\n", name((f*7+j)%n, (i+j)%20))
			}
			b.WriteString("\treturn x\n}\n\n")
		}
		srcs = append(srcs, Source{ID: fmt.Sprintf("g%04d", f), Path: fmt.Sprintf("p%d/f%d.go", f%10, f), Title: "f.go", Type: "code/go", Content: []byte(b.String())})
		b.Reset()
		fmt.Fprintf(&b, "# Doc %d\n\n", f)
		for j := range 30 {
			g := (f*3 + j) % n
			fmt.Fprintf(&b, "Call `%s`, see [it](../p%d/f%d.go#%s).\n", name(g, j%20), g%10, g, name(g, j%20))
		}
		srcs = append(srcs, Source{ID: fmt.Sprintf("m%04d", f), Path: fmt.Sprintf("docs/d%d.md", f), Title: fmt.Sprintf("Doc %d", f), Type: "text/markdown", Content: []byte(b.String())})
	}
	return srcs
}

// TestIndexMemoryPerReference bounds the heap an index keeps per
// reference (graph, name indexes and parse cache together): with the
// references kept as parsed (96 bytes each) it was 181 bytes on this
// workspace; packed, 116–126; with the graph no longer keeping each
// artifact's user keys (recomputed on Remove), 109; with references as
// variable-length records in one arena per file and the graph's indexes
// holding artifact numbers, 68; with the definitions in the arena too, 57.
func TestIndexMemoryPerReference(t *testing.T) {
	srcs := memorySources(200)
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	ix := NewIndex()
	defer ix.Close()
	if err := ix.Build(context.Background(), srcs, 2); err != nil {
		t.Fatal(err)
	}
	after := heap()
	var refs int
	ix.View(func(g *treesitter.Graph) {
		for _, id := range g.IDs() {
			e, _ := g.Entry(id)
			refs += len(e.File.References)
		}
	})
	runtime.KeepAlive(srcs)
	per := float64(after-before) / float64(refs)
	t.Logf("%d references, %.1f MiB, %.0f bytes per reference", refs, float64(after-before)/(1<<20), per)
	if refs < 40_000 {
		t.Fatalf("only %d references: the generator changed", refs)
	}
	if per > 64 {
		t.Errorf("the index keeps %.0f bytes per reference, want ≤ 64", per)
	}
}
