package bench

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/lunad/lunad/refindex"
)

var flagHeapProfile = flag.String("bench.heapprofile", "", "BenchmarkIndexHeap: write a heap profile of the built index here")

// BenchmarkIndexHeap builds the reference index of the generated tree (as
// the daemon does: through a loaded parse cache) and reports the Go heap it
// keeps alive, in MiB, with the references and definitions it holds.
func BenchmarkIndexHeap(b *testing.B) {
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
	srcs, err := readSources(root)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cache := filepath.Join(scratch, "heap-refs.gob")
	ix := refindex.NewIndex()
	if err := ix.Build(ctx, srcs, 0); err != nil {
		b.Fatal(err)
	}
	if err := ix.SaveCache(cache); err != nil {
		b.Fatal(err)
	}
	ix.Close()
	ix = nil
	srcs2, err := readSources(root) // the daemon reads content per artifact; only the index stays
	if err != nil {
		b.Fatal(err)
	}
	srcs = nil
	before := heapInuse()
	b.ResetTimer()
	ix = refindex.NewIndex()
	if err := ix.LoadCache(cache); err != nil {
		b.Fatal(err)
	}
	if err := ix.Build(ctx, srcs2, 0); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	srcs2 = nil
	after := heapInuse()
	if *flagHeapProfile != "" {
		f, err := os.Create(*flagHeapProfile)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
	b.ReportMetric(mib(after)-mib(before), "heap-MiB")
	runtime.KeepAlive(ix)
	ix.Close()
}
