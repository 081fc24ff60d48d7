package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/lunad/lunad/treesitter"
	"github.com/lunad/lunad/workspace/refindex"
)

// BenchmarkReferencesRequest is the graph side of a language server
// references request, without the daemon: on the generated workspace of
// -bench.files artifacts (its index built with the parse cache a previous
// run saved in -bench.dir, if any), the definitions BenchmarkLSP's probes (the first
// code span of each Markdown artifact) resolve to, and for each the
// references of other artifacts to it, as workspace.At asks the graph for
// them. It reports the p50, p99 and maximum time of one request, and the
// bytes allocated per request.
func BenchmarkReferencesRequest(b *testing.B) {
	if scratch == "" {
		var err error
		if scratch, err = os.MkdirTemp("", "lunad-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	root := filepath.Join(scratch, fmt.Sprintf("at-tree-%d", *flagFiles))
	tree, err := generateRefsTree(root, *flagFiles)
	if err != nil {
		b.Fatal(err)
	}
	srcs, err := readSources(root)
	if err != nil {
		b.Fatal(err)
	}
	ix := refindex.NewIndex()
	defer ix.Close()
	cache := root + ".cache"
	ix.LoadCache(cache) // absent the first time: the build parses everything
	if err := ix.Build(context.Background(), srcs, runtime.GOMAXPROCS(0)); err != nil {
		b.Fatal(err)
	}
	if err := ix.SaveCache(cache); err != nil {
		b.Fatal(err)
	}
	ids := map[string]string{}
	for _, s := range srcs {
		ids[s.Path] = s.ID
	}
	targets := probeTargets(b, ix, ids, root, tree, *flagEdits)
	if len(targets) < *flagEdits/2 {
		b.Fatalf("%d of %d probes resolve to a definition", len(targets), *flagEdits)
	}
	var ds []time.Duration
	var found int
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for range b.N {
		ds = ds[:0]
		found = 0
		for _, t := range targets {
			ix.View(func(g *treesitter.Graph) {
				t0 := time.Now()
				found += len(referencesTo(g, t))
				ds = append(ds, time.Since(t0))
			})
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	if found == 0 {
		b.Fatal("no probe's definition has references")
	}
	slices.Sort(ds)
	fmt.Printf("\nreferences requests on %d definitions of %d artifacts (%s): %d references; p50 %s, p99 %s, max %s; %.0f KiB allocated per request\n",
		len(targets), len(tree.files), machine(), found, pct(ds, 0.5), pct(ds, 0.99), ds[len(ds)-1],
		float64(ms1.TotalAlloc-ms0.TotalAlloc)/1024/float64(b.N*len(targets)))
	b.ReportMetric(float64(pct(ds, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(pct(ds, 0.5).Microseconds())/1000, "p50-ms")
}

// referencesTo is what workspace.At asks the graph for a definition: the
// references of other artifacts resolved to it.
func referencesTo(g *treesitter.Graph, t treesitter.Target) []treesitter.Resolution {
	return g.IncomingResolvedTo(t.ID, t.Name, t.Container)
}

// probeTargets are the definitions the first code span of each Markdown
// artifact resolves to, n probes at most (codeSpanProbes).
func probeTargets(b *testing.B, ix *refindex.Index, ids map[string]string, root string, tree *rwTree, n int) []treesitter.Target {
	var out []treesitter.Target
	for _, c := range codeSpans(b, root, tree, n) {
		ix.View(func(g *treesitter.Graph) {
			for _, r := range g.Resolve(ids[c.path]) {
				if sp := r.Ref.Span; sp.Start.Byte <= c.at+1 && c.at+1 <= sp.End.Byte && r.State == treesitter.Resolved && r.Target.Name != "" {
					out = append(out, r.Target)
					break
				}
			}
		})
	}
	return out
}
