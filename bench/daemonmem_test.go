package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

var flagColdDaemon = flag.Bool("bench.colddaemon", false, "BenchmarkDaemonMemory: remove the parse cache lunad init saved, so that the daemon parses every artifact")

// BenchmarkDaemonMemory is the quick form of BenchmarkLSP's memory figure
// (which stays the figure of record): it builds the generated workspace of
// -bench.files artifacts, starts the daemon through `lunad lsp` as an
// editor does, waits for the end of the index warm-up (from the parse
// cache lunad init saved, or with -bench.colddaemon a cold build) and
// reads the daemon's resident memory from /proc — peak (VmHWM) and current
// (VmRSS), anonymous and file-backed — then again after BenchmarkLSP's
// definition, hover and references requests. It reports the daemon's CPU
// time too, which a memory limit set too low inflates.
func BenchmarkDaemonMemory(b *testing.B) {
	bin, root, tree, _ := adoptedTree(b, "mem-tree")
	if *flagColdDaemon {
		// lunad init built the index and saved its parse cache: without
		// it the daemon parses every artifact itself.
		if err := os.Remove(filepath.Join(root, ".git", "luna", "cache", "refs.cache")); err != nil {
			b.Fatal(err)
		}
	}
	cl := newLSPClient(b, bin, root)
	defer cl.close()
	ctx := context.Background()
	warm := cl.initialize(b, root, 20*time.Minute)
	_, pid := daemonMemory(root)
	if pid == 0 {
		b.Fatal("no daemon serving " + root)
	}
	defer syscall.Kill(pid, syscall.SIGTERM) // it would stay until its idle timeout
	built := readProcMemory(pid)

	// The serving side's own allocations, after the build's: definition,
	// hover and references on BenchmarkLSP's probes.
	probes := codeSpanProbes(b, root, tree, *flagEdits)
	for _, p := range probes {
		tp := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: p.u}, Position: p.pos}
		res, err := cl.srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: tp})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cl.srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: tp}); err != nil {
			b.Fatal(err)
		}
		if locs, _ := res.(protocol.LocationSlice); len(locs) == 1 {
			if _, err := cl.srv.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: locs[0].URI}, Position: locs[0].Range.Start}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	served := readProcMemory(pid)
	fmt.Printf("\ndaemon memory, %d artifacts (%s); initialize → index warm-up done %s\n", len(tree.files), machine(), warm.Round(time.Millisecond))
	fmt.Printf("| when | RSS MiB | anon MiB | file MiB | peak (VmHWM) MiB | CPU s |\n|---|---:|---:|---:|---:|---:|\n")
	fmt.Printf("| index built | %.1f | %.1f | %.1f | %.1f | %.1f |\n", mib(built.rss), mib(built.anon), mib(built.file), mib(built.hwm), built.cpu.Seconds())
	fmt.Printf("| after definition, hover, references on %d probes | %.1f | %.1f | %.1f | %.1f | %.1f |\n", len(probes), mib(served.rss), mib(served.anon), mib(served.file), mib(served.hwm), served.cpu.Seconds())
	b.ReportMetric(mib(served.hwm), "peak-MiB")
	b.ReportMetric(mib(served.rss), "rss-MiB")
	b.ReportMetric(served.cpu.Seconds(), "daemon-cpu-s")
}

// procMemory is a process's memory as /proc shows it, in bytes, and its CPU
// time.
type procMemory struct {
	rss, hwm, anon, file uint64
	cpu                  time.Duration
}

func readProcMemory(pid int) procMemory {
	m := procMemory{rss: procRSS(pid), hwm: procStatusOf(pid, "VmHWM"),
		anon: procStatusOf(pid, "RssAnon"), file: procStatusOf(pid, "RssFile"), cpu: procCPU(pid)}
	return m
}
