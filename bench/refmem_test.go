package bench

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/lunad/lunad/workspace/refindex"
)

var flagHeapProfile = flag.String("bench.heapprofile", "", "BenchmarkIndexHeap: write a heap profile of the built index here")

// BenchmarkIndexHeap builds the reference index of the generated tree (as
// the daemon does: through a loaded parse cache) and reports the Go heap it
// keeps, in MiB: heap-MiB the spans in use (what the process holds for
// it), live-MiB the objects alive in them.
func BenchmarkIndexHeap(b *testing.B) {
	if *flagHeapProfile != "" {
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 4096 // a profile exact to a few kB per row, not 512 kB
	}
	root := generatedRefsTree(b)
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
	// The daemon reads each artifact's content as a worker parses it, so
	// only the index stays: content is read the same way here, and the
	// heap before the build holds the artifacts' identities, not their
	// contents (which would be subtracted from the figure as they are freed).
	srcs2, err := readSources(root)
	if err != nil {
		b.Fatal(err)
	}
	for i := range srcs2 {
		srcs2[i].Content = nil
	}
	srcs = nil
	read := func(i int) (refindex.Source, error) {
		s := srcs2[i]
		var err error
		s.Content, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(s.Path)))
		return s, err
	}
	before := memAfterGC()
	b.ResetTimer()
	ix = refindex.NewIndex()
	if err := ix.LoadCache(cache); err != nil {
		b.Fatal(err)
	}
	if err := ix.BuildFrom(ctx, len(srcs2), read, 0); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	srcs2 = nil
	after := memAfterGC()
	if *flagHeapProfile != "" {
		f, err := os.Create(*flagHeapProfile)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
	b.ReportMetric(mib(after.HeapInuse)-mib(before.HeapInuse), "heap-MiB")
	b.ReportMetric(mib(after.HeapAlloc)-mib(before.HeapAlloc), "live-MiB")
	runtime.KeepAlive(ix)
	ix.Close()
}

// memAfterGC is the runtime's memory statistics after a full collection.
func memAfterGC() runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}
