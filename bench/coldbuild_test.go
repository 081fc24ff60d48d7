package bench

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lunad/lunad/treesitter"
	"github.com/lunad/lunad/workspace/refindex"
)

var flagWorkers = flag.Int("bench.workers", 0, "BenchmarkColdBuild: parse workers (0: GOMAXPROCS)")

// BenchmarkColdBuild times only the cold Build of the generated tree of
// -bench.files files with -bench.workers workers: no ctags, no cache, no
// edits — the loop to profile (-cpuprofile, -blockprofile, -mutexprofile)
// when working on the cold index. It reports files/s, the CPU time per
// file and CPU time over wall time (how many cores the build kept busy: on
// a machine shared with other work, wall time alone says little), and the
// counts of definitions and references, which a change that skips work
// must keep.
func BenchmarkColdBuild(b *testing.B) {
	root := generatedRefsTree(b)
	srcs, err := readSources(root)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var nsyms, nrefs int
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		ix := refindex.NewIndex()
		c0 := cpuTime()
		if err := ix.Build(ctx, srcs, *flagWorkers); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		b.StopTimer()
		nsyms, nrefs = 0, 0
		ix.View(func(g *treesitter.Graph) {
			for _, id := range g.IDs() {
				e, _ := g.Entry(id)
				nsyms += len(e.File.Symbols)
				nrefs += len(e.File.References)
			}
		})
		ix.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*len(srcs))/b.Elapsed().Seconds(), "files/s")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N*len(srcs)), "cpu-ms/file")
	b.ReportMetric(cpu.Seconds()/b.Elapsed().Seconds(), "cpu/wall")
	b.ReportMetric(float64(nsyms), "definitions")
	b.ReportMetric(float64(nrefs), "references")
}

// generatedRefsTree generates the references tree of -bench.files files
// afresh in scratch/refs-tree and returns its root.
func generatedRefsTree(b *testing.B) string {
	if scratch == "" {
		var err error
		if scratch, err = os.MkdirTemp("", "lunad-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	root := filepath.Join(scratch, "refs-tree")
	os.RemoveAll(root)
	if _, err := generateRefsTree(root, *flagFiles); err != nil {
		b.Fatal(err)
	}
	return root
}
