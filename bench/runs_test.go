package bench

import (
	"flag"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkRuns runs the DSMO paper's workloads under lunad's
// workflow engine and under two baselines built for the bench in the same
// run, and prints the paper's table for each, side by side:
//
//   - W1 linear A→B→C;
//   - W2 conditional A→(B|C)→D, the branch chosen from A's structured
//     output (its score);
//   - W3 A→B→C with random timeouts and transient failures in B and C;
//   - W4 50 runs at once through 4 slots (backpressure), with transient
//     failures and retries in every stage.
//
// Every stage is processed by the same built-in Go agent (rbAgent): a few
// milliseconds of work, a small structured output and one write, a file
// per stage. Its faults are drawn from an RNG seeded with the run's seed,
// the stage and the attempt, so every system, and every re-execution,
// meets the same faults; lunad records each outcome in the run's log
// (STAGE_FAILED with the error, or the agent's response), which replay
// reads.
//
// lunad's engine runs in a fresh gitstore workspace (every event a durable
// commit on the run's ref, every stage's write a commit), with the agent
// registered by name (runs.Options.Agents). After the runs, every run is
// replayed from its log (Engine.Replay(ctx, id, false)) and again with its
// agents re-executed (live). The baselines (runs_baselines_test.go) are
// B1 choreography, over an at-least-once queue with a visibility timeout,
// and B2 agent-decides, a central driver that follows the stage the
// agent's output names; both persist every event as an fsynced JSON line.
// Metrics are defined in runs_metrics_test.go; docs/benchmarks.md records
// the figures.
func BenchmarkRuns(b *testing.B) {
	fmt.Printf("\nBenchmarkRuns: %s\n", machine())
	t0 := time.Now()
	for _, w := range rbWorkloads() {
		if *flagRunsOnly != "" && !slices.Contains(strings.Split(*flagRunsOnly, ","), w.name) {
			continue
		}
		tw := time.Now()
		rs := []*rbResult{rbLunad(b, w), rbB1(b, w), rbB2(b, w)}
		fmt.Print(rbTable(w, rs))
		fmt.Printf("(%s measured in %.1f s)\n", w.name, time.Since(tw).Seconds())
		l := rs[0]
		line := rbFsyncLine(rs[1:])
		fmt.Printf("%s: lunad's per-transition overhead p50 %.2f ms, p95 %.2f ms; the baselines' fsynced line p50 %.2f ms; ratio %.1f×\n",
			w.name, ms(pct(l.overhead, 0.5)), ms(pct(l.overhead, 0.95)), ms(line), float64(pct(l.overhead, 0.5))/float64(line))
		b.ReportMetric(ms(pct(l.overhead, 0.5)), w.name+"-transition-p50-ms")
		b.ReportMetric(ms(pct(l.overhead, 0.95)), w.name+"-transition-p95-ms")
		b.ReportMetric(float64(pct(l.overhead, 0.5))/float64(line), w.name+"-transition-p50/fsynced-line")
		b.ReportMetric(l.replayLog.sps(), w.name+"-SPS")
		b.ReportMetric(l.replayLog.rsr(), w.name+"-RSR")
		b.ReportMetric(l.per(l.orphans), w.name+"-orphans/run")
		if l.orphans > 0 || l.unrun > 0 || l.appliedTwice > 0 || l.replayLog.sps() != 1 || l.replayOK != l.completed {
			b.Errorf("lunad on %s: orphans %d, started without an execution %d, effects applied twice %d, SPS %.3f, completed runs replayed to completion %d of %d",
				w.name, l.orphans, l.unrun, l.appliedTwice, l.replayLog.sps(), l.replayOK, l.completed)
		}
	}
	fmt.Printf("\nBenchmarkRuns took %.1f s\n", time.Since(t0).Seconds())
}

// rbFsyncLine is the p50 of the baselines' durable appends, each an
// fsynced JSON line: the cost of durability without git, measured in the
// same run as lunad's transitions.
func rbFsyncLine(baselines []*rbResult) time.Duration {
	var all []time.Duration
	for _, r := range baselines {
		r.appends.mu.Lock()
		all = append(all, r.appends.d...)
		r.appends.mu.Unlock()
	}
	return pct(all, 0.5)
}

var flagRunsOnly = flag.String("bench.runs", "", "BenchmarkRuns: comma-separated workloads to run (W1,W2,W3,W4); default all")

// rbSeed seeds every RNG of BenchmarkRuns.
const rbSeed = 20260312

// rbWork is every attempt's own work.
const rbWork = 2 * time.Millisecond

// rbSlowFor is how long a slow attempt takes: three stage timeouts.
func rbSlowFor(w *rbWorkload) time.Duration { return 3 * w.timeout }

// rbWorkload is one of the paper's workloads.
type rbWorkload struct {
	name, title string
	stages      []string // in order; the first is the start
	conditional bool     // W2's A→(B|C)→D
	runs        int
	parallel    bool // start every run at once (else one after another)
	slots       int  // stage executions at once
	timeout     time.Duration
	maxAttempts int
	backoff     time.Duration
	backoffMax  time.Duration
	faults      rbFaults
}

func rbWorkloads() []*rbWorkload {
	base := func(name, title string, stages ...string) *rbWorkload {
		return &rbWorkload{name: name, title: title, stages: stages, runs: 100, slots: 4, timeout: 5 * time.Second,
			maxAttempts: 3, backoff: 10 * time.Millisecond, backoffMax: 100 * time.Millisecond}
	}
	w1 := base("W1", "linear A→B→C, no faults, runs one after another", "a", "b", "c")
	w2 := base("W2", "conditional A→(B|C)→D on A's score, no faults, runs one after another", "a", "b", "c", "d")
	w2.conditional = true
	w3 := base("W3", "A→B→C; B and C fail transiently (p=0.2) or time out (p=0.15) per attempt; timeout 50 ms, 3 attempts", "a", "b", "c")
	w3.runs, w3.timeout = 150, 50*time.Millisecond
	w3.faults = rbFaults{stages: map[string]bool{"b": true, "c": true}, fail: 0.2, slow: 0.15}
	w4 := base("W4", "50 runs of A→B→C at once through 4 slots; every stage fails transiently (p=0.1), 3 attempts", "a", "b", "c")
	w4.runs, w4.parallel = 50, true
	w4.faults = rbFaults{fail: 0.1}
	return []*rbWorkload{w1, w2, w3, w4}
}

func (w *rbWorkload) wfName() string { return strings.ToLower(w.name) }

// seed is run i's seed: its faults and outputs follow from it.
func (w *rbWorkload) seed(i int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%d", rbSeed, w.name, i)
	return h.Sum64() >> 1
}

// route is the workflow's transitions in Go, as w.toml states them for
// lunad: what a choreography agent runs to choose the stage it enqueues.
func (w *rbWorkload) route(stage string, out rbOutput) string {
	if w.conditional {
		switch stage {
		case "a":
			if out.Score >= 0.5 {
				return "b"
			}
			return "c"
		case "b", "c":
			return "d"
		}
		return "end"
	}
	for i, s := range w.stages {
		if s == stage && i+1 < len(w.stages) {
			return w.stages[i+1]
		}
	}
	return "end"
}

// toml is the workflow file lunad runs w with: every stage processed by
// the built-in agent "bench".
func (w *rbWorkload) toml() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "name = %q\nversion = \"1\"\nstart = %q\n", w.wfName(), w.stages[0])
	for _, s := range w.stages {
		fmt.Fprintf(&sb, "[stages.%s]\nagent = \"bench\"\ntimeout = %q\nretry = { max_attempts = %d, initial = %q, max = %q }\n",
			s, w.timeout.String(), w.maxAttempts, w.backoff.String(), w.backoffMax.String())
		next := func(to, when string) {
			fmt.Fprintf(&sb, "[[stages.%s.next]]\nto = %q\n", s, to)
			if when != "" {
				fmt.Fprintf(&sb, "when = %q\n", when)
			}
		}
		switch {
		case w.conditional && s == "a":
			next("b", "output.score >= 0.5")
			next("c", "")
		default:
			next(w.route(s, rbOutput{}), "")
		}
	}
	return sb.String()
}
