package bench

import (
	"context"
	"flag"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/lunad/lunad/sandbox"
	"github.com/lunad/lunad/sandbox/shim/shimtest"
)

var (
	flagSandboxReps = flag.Int("bench.sandboxreps", 200, "BenchmarkSandboxStart: runs of `true` each way")
	flagOtherShim   = flag.String("bench.othershim", "", "BenchmarkSandboxStart: another Landlock shim executable measured alongside lunad-shim (a lunad built from an earlier commit, which was its own shim)")
)

// BenchmarkSandboxStart measures what starting a command in lunad's
// sandbox costs: `true` run -bench.sandboxreps times each way,
// interleaved so that the machine's load falls on all alike —
//
//   - direct: os/exec runs /usr/bin/true (fork, exec, wait);
//   - unsandboxed: sandbox.Runner without bwrap (the gate shell, the pids
//     cgroup, the rlimits, the pipes, the scrubbed environment);
//   - sandboxed: sandbox.Runner with bwrap, without Landlock (all of
//     that, and bwrap's namespaces, mounts and its two processes, the
//     dropped capabilities and the seccomp filter), and the same without
//     the seccomp filter, to show what the filter costs;
//   - landlock: sandbox.Runner with bwrap and the Landlock shim —
//     lunad-shim (built from ./cmd/lunad-shim, CGO_ENABLED=0, as `make
//     build` builds it) started inside, its package inits, the ruleset,
//     the exec of the command;
//   - with -bench.othershim, the same through another shim executable
//     (a lunad built from an earlier commit, which re-executed itself as
//     the shim and paid all of its package inits).
//
// It prints p50/p90 and the mean of each and the ratio of the sandboxed
// to the direct start, and reports them as metrics (sandboxed-ns/op,
// landlock-ns/op, direct-ns/op, unsandboxed-ns/op, sandboxed/direct).
// The figures are recorded in docs/benchmarks.md.
func BenchmarkSandboxStart(b *testing.B) {
	ctx := context.Background()
	caps := sandbox.Probe(ctx)
	if !caps.Usable() {
		b.Fatalf("this host cannot sandbox (install bubblewrap):\n%s", caps)
	}
	if caps.LandlockApplied == "" {
		b.Fatalf("this host applies no Landlock beneath bwrap: %s", caps.LandlockStatus())
	}
	shimBin, err := shimtest.Build(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	landlocked, err := sandbox.New(caps, sandbox.Options{Shim: shimBin})
	if err != nil {
		b.Fatal(err)
	}
	var other *sandbox.Runner
	if *flagOtherShim != "" {
		if other, err = sandbox.New(caps, sandbox.Options{Shim: *flagOtherShim}); err != nil {
			b.Fatal(err)
		}
	}
	bare := caps
	bare.Landlock, bare.LandlockApplied = 0, ""
	boxed, err := sandbox.New(bare, sandbox.Options{AllowRootWithoutLandlock: true})
	if err != nil {
		b.Fatal(err)
	}
	noFilter := bare
	noFilter.Seccomp = false
	unfiltered, err := sandbox.New(noFilter, sandbox.Options{AllowRootWithoutLandlock: true})
	if err != nil {
		b.Fatal(err)
	}
	plain, err := sandbox.New(sandbox.Capabilities{ProcessLimit: caps.ProcessLimit, CgroupDir: caps.CgroupDir}, sandbox.Options{AllowUnsandboxed: true})
	if err != nil {
		b.Fatal(err)
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	spec := sandbox.Spec{Argv: []string{"true"}, Root: b.TempDir()}
	run := func(r *sandbox.Runner) time.Duration {
		t := time.Now()
		res, err := r.Run(ctx, spec)
		if err != nil || res.ExitCode != 0 || (r == landlocked || r == other) != (res.Landlock != "") {
			b.Fatalf("true in the sandbox: %+v, %v", res, err)
		}
		return time.Since(t)
	}
	direct := func() time.Duration {
		t := time.Now()
		if err := exec.Command(truePath).Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	// Warm up each way (the page cache, bwrap's first namespaces).
	run(boxed)
	run(unfiltered)
	run(landlocked)
	if other != nil {
		run(other)
	}
	run(plain)
	direct()
	b.ResetTimer()
	var dd, du, ds, dn, dl, do []time.Duration
	for range *flagSandboxReps {
		dd = append(dd, direct())
		du = append(du, run(plain))
		ds = append(ds, run(boxed))
		dn = append(dn, run(unfiltered))
		dl = append(dl, run(landlocked))
		if other != nil {
			do = append(do, run(other))
		}
	}
	b.StopTimer()

	mean := func(d []time.Duration) time.Duration {
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		return sum / time.Duration(len(d))
	}
	fmt.Printf("\nBenchmarkSandboxStart: `true` %d times each way, interleaved (%s)\n", len(ds), machine())
	fmt.Printf("bwrap %s %s; process limit %s; landlock ABI %d\n", caps.Bwrap, caps.BwrapVersion, caps.ProcessLimit, caps.Landlock)
	fmt.Printf("%-50s %10s %10s %10s\n", "", "p50", "p90", "mean")
	type row struct {
		name string
		d    []time.Duration
	}
	rows := []row{{"direct exec (os/exec)", dd}, {"sandbox.Runner, unsandboxed (gate, cgroup)", du}, {"sandbox.Runner, bwrap without seccomp", dn}, {"sandbox.Runner, bwrap", ds}, {"sandbox.Runner, bwrap + Landlock shim (lunad-shim)", dl}}
	if other != nil {
		rows = append(rows, row{"sandbox.Runner, bwrap + -bench.othershim", do})
	}
	for _, row := range rows {
		fmt.Printf("%-50s %10.2f %10.2f %10.2f ms\n", row.name, ms(pct(row.d, 0.5)), ms(pct(row.d, 0.9)), ms(mean(row.d)))
	}
	ratio := float64(pct(ds, 0.5)) / float64(pct(dd, 0.5))
	fmt.Printf("sandboxed / direct (p50): %.1f×; the seccomp filter adds %.2f ms, the Landlock shim %.2f ms (p50)\n", ratio, ms(pct(ds, 0.5)-pct(dn, 0.5)), ms(pct(dl, 0.5)-pct(ds, 0.5)))
	b.ReportMetric(float64(pct(ds, 0.5).Nanoseconds()), "sandboxed-ns/op")
	b.ReportMetric(float64(pct(dl, 0.5).Nanoseconds()), "landlock-ns/op")
	if other != nil {
		fmt.Printf("the other shim adds %.2f ms to bwrap (p50); lunad-shim %.2f ms\n", ms(pct(do, 0.5)-pct(ds, 0.5)), ms(pct(dl, 0.5)-pct(ds, 0.5)))
		b.ReportMetric(float64(pct(do, 0.5).Nanoseconds()), "othershim-ns/op")
	}
	b.ReportMetric(float64(pct(du, 0.5).Nanoseconds()), "unsandboxed-ns/op")
	b.ReportMetric(float64(pct(dd, 0.5).Nanoseconds()), "direct-ns/op")
	b.ReportMetric(ratio, "sandboxed/direct")
}
