package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// The metrics of BenchmarkRuns, defined once for the three systems, as the
// DSMO paper defines them (docs/benchmarks.md, "Runs", repeats them).

// rbSpan is a time interval: an agent at work, or a scheduled backoff.
type rbSpan struct{ from, to time.Time }

// rbRun is one run as a system reports it.
type rbRun struct {
	id         string
	start, end time.Time // end: the run reached its terminal state
	status     string    // completed, dead_lettered, aborted, incomplete
	path       []string
	execs      int      // stage executions (agent invocations)
	busy       []rbSpan // agents at work and backoff waits
}

// overhead is the run's control-plane time per transition: its latency
// minus the time an agent was at work or a backoff was running (their
// union, so overlapping executions count once), over its stage executions.
func (r rbRun) overhead() (time.Duration, bool) {
	if r.execs == 0 {
		return 0, false
	}
	spans := slices.Clone(r.busy)
	slices.SortFunc(spans, func(a, b rbSpan) int { return a.from.Compare(b.from) })
	var busy time.Duration
	cur := r.start
	for _, s := range spans {
		from, to := s.from, s.to
		if from.Before(cur) {
			from = cur
		}
		if to.After(r.end) {
			to = r.end
		}
		if to.After(from) {
			busy += to.Sub(from)
			cur = to
		}
	}
	return max(0, r.end.Sub(r.start)-busy) / time.Duration(r.execs), true
}

// rbReplays sums one kind of replay over a workload's runs.
type rbReplays struct {
	n, samePath, success int
	divergence           float64
}

func (p *rbReplays) add(samePath, success bool, div float64) {
	p.n++
	if samePath {
		p.samePath++
	}
	if success {
		p.success++
	}
	p.divergence += div
}

func (p *rbReplays) sps() float64 { return ratio(p.samePath, p.n) }
func (p *rbReplays) rsr() float64 { return ratio(p.success, p.n) }
func (p *rbReplays) ds() float64 {
	if p.n == 0 {
		return math.NaN()
	}
	return p.divergence / float64(p.n)
}

func ratio(a, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(a) / float64(n)
}

// rbResult is one system's figures on one workload.
type rbResult struct {
	system    string
	runs      int
	completed int
	lat       []time.Duration
	overhead  []time.Duration
	execs     int
	wall      time.Duration

	replayLog, replayLive rbReplays
	// The original runs' outcomes, for the conditional RSR.
	success map[string]bool
	// replaySuccessOfSuccess counts log replays that completed among runs
	// that completed.
	replayOK int

	orphans      int // stage executions on no valid trajectory
	unrun        int // STAGE_STARTED with no execution (lunad)
	dupIgnored   int // second completions or deliveries recorded and ignored
	appliedTwice int // a stage's effects applied again
	deadLetters  int
	deviations   int // agent-decides: next stages the agent chose against the workflow
	events       int
	bytes        int
	// The durations of the durable steps: appending to the log (one
	// append may hold several events), committing a stage's writes.
	appends, writes rbDurations
}

// rbDurations collects durations from many goroutines.
type rbDurations struct {
	mu sync.Mutex
	d  []time.Duration
}

func (d *rbDurations) add(x time.Duration) {
	d.mu.Lock()
	d.d = append(d.d, x)
	d.mu.Unlock()
}

func (d *rbDurations) String() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.d) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f / %.2f", ms(pct(d.d, 0.5)), ms(pct(d.d, 0.95)))
}

func (r *rbResult) add(run rbRun) {
	if r.success == nil {
		r.success = map[string]bool{}
	}
	if run.status == "completed" {
		r.completed++
		r.success[run.id] = true
	}
	r.lat = append(r.lat, run.end.Sub(run.start))
	if o, ok := run.overhead(); ok {
		r.overhead = append(r.overhead, o)
	}
	r.execs += run.execs
}

func (r *rbResult) per(n int) float64 { return float64(n) / float64(r.runs) }

// rbRow is one metric of the table: its name and how to format it.
type rbRow struct {
	name string
	val  func(r *rbResult) string
}

func fmtF(f float64, digits int) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	return fmt.Sprintf("%.*f", digits, f)
}

var rbRows = []rbRow{
	{"runs", func(r *rbResult) string { return fmt.Sprint(r.runs) }},
	{"success rate (runs completed)", func(r *rbResult) string { return fmtF(ratio(r.completed, r.runs), 3) }},
	{"SPS, replay from the log", func(r *rbResult) string { return fmtF(r.replayLog.sps(), 3) }},
	{"RSR, replay from the log (paper: replays reaching terminal success)", func(r *rbResult) string { return fmtF(r.replayLog.rsr(), 3) }},
	{"RSR among runs that completed", func(r *rbResult) string { return fmtF(ratio(r.replayOK, r.completed), 3) }},
	{"divergence, replay from the log (mean)", func(r *rbResult) string { return fmtF(r.replayLog.ds(), 3) }},
	{"SPS, live re-execution", func(r *rbResult) string { return fmtF(r.replayLive.sps(), 3) }},
	{"RSR, live re-execution", func(r *rbResult) string { return fmtF(r.replayLive.rsr(), 3) }},
	{"divergence, live re-execution (mean)", func(r *rbResult) string { return fmtF(r.replayLive.ds(), 3) }},
	{"orphan executions / run", func(r *rbResult) string { return fmtF(r.per(r.orphans), 3) }},
	{"duplicates ignored / run", func(r *rbResult) string { return fmtF(r.per(r.dupIgnored), 3) }},
	{"stage effects applied twice / run", func(r *rbResult) string { return fmtF(r.per(r.appliedTwice), 3) }},
	{"dead letters / run", func(r *rbResult) string { return fmtF(r.per(r.deadLetters), 3) }},
	{"agent routing against the workflow / run", func(r *rbResult) string {
		if r.system != "agent-decides" {
			return "n/a"
		}
		return fmtF(r.per(r.deviations), 3)
	}},
	{"stage executions / run", func(r *rbResult) string { return fmtF(r.per(r.execs), 2) }},
	{"latency p50 / p95 (ms)", func(r *rbResult) string {
		return fmt.Sprintf("%.1f / %.1f", ms(pct(r.lat, 0.5)), ms(pct(r.lat, 0.95)))
	}},
	{"per-transition overhead p50 / p95 (ms)", func(r *rbResult) string {
		return fmt.Sprintf("%.2f / %.2f", ms(pct(r.overhead, 0.5)), ms(pct(r.overhead, 0.95)))
	}},
	{"durable log append p50 / p95 (ms)", func(r *rbResult) string { return r.appends.String() }},
	{"stage write commit p50 / p95 (ms)", func(r *rbResult) string { return r.writes.String() }},
	{"log appends / run", func(r *rbResult) string { return fmtF(r.per(len(r.appends.d)), 1) }},
	{"events / run", func(r *rbResult) string { return fmtF(r.per(r.events), 1) }},
	{"bytes / run", func(r *rbResult) string { return fmt.Sprintf("%.0f", r.per(r.bytes)) }},
	{"runs / minute", func(r *rbResult) string { return fmt.Sprintf("%.0f", float64(r.runs)/r.wall.Minutes()) }},
}

// rbTable is the markdown table of one workload, a column per system.
func rbTable(w *rbWorkload, rs []*rbResult) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%s — %s\n\n| metric |", w.name, w.title)
	for _, r := range rs {
		fmt.Fprintf(&sb, " %s |", r.system)
	}
	sb.WriteString("\n|---|")
	for range rs {
		sb.WriteString("---:|")
	}
	sb.WriteString("\n")
	for _, row := range rbRows {
		fmt.Fprintf(&sb, "| %s |", row.name)
		for _, r := range rs {
			fmt.Fprintf(&sb, " %s |", row.val(r))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}
