package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// The two baselines of BenchmarkRuns, built for the bench: in memory, with
// the same agent (rbAgent) and the same injected faults as lunad's engine,
// every event persisted durably (a JSON line appended and fsynced), every
// stage write a file written and fsynced.
//
// B1 choreography: an in-process at-least-once queue with a visibility
// timeout (SQS, JetStream): a message not acknowledged within the stage's
// timeout is delivered again (attempt+1) while the first execution goes
// on; after max_attempts deliveries it goes to the dead-letter queue. Each
// stage's agent logs to its own file; on delivery it checks its own log
// and drops a message for a (run, stage) it has completed (a duplicate
// ignored); after its work it writes its file and enqueues the next stage
// itself (the workflow's routing, in the agent's code); on a reported
// failure it enqueues itself again (attempt+1) after the same backoff.
// There is no central log of decisions: a replay re-drives the routing
// from the agents' logs, taking each attempt's first recorded outcome.
//
// B2 agent-decides: one driver per run, like an orchestrator (a central
// durable log, stage timeouts that stop the agent, retries with backoff,
// dead letters), except that the next stage is the one the agent's output
// names. The agent follows the workflow's routing but, like a sampled
// model, names another stage with probability rbEpsilon, from a draw that
// differs between executions. A replay from its log follows the recorded
// choices; a live re-execution lets the agents choose again.

// rbEpsilon is the probability that an agent-decides agent names another
// stage than the workflow's.
const rbEpsilon = 0.1

// rbMaxVisits bounds an agent-decides run's stage visits (its agents can
// loop): the run aborts past it.
const rbMaxVisits = 12

// rbRecord is one line of a baseline's log.
type rbRecord struct {
	T       time.Time       `json:"t"`
	Type    string          `json:"type"`
	Run     string          `json:"run"`
	Stage   string          `json:"stage,omitempty"`
	Visit   int             `json:"visit,omitempty"` // agent-decides: the stage visit (its runs can loop)
	Attempt int             `json:"attempt,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	Next    string          `json:"next,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// rbLog is an append-only JSON-lines file, fsynced after every event.
type rbLog struct {
	mu     sync.Mutex
	path   string
	f      *os.File
	events map[string]int
	bytes  map[string]int
	d      *rbDurations
}

func openLog(path string, d *rbDurations) (*rbLog, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &rbLog{path: path, f: f, events: map[string]int{}, bytes: map[string]int{}, d: d}, nil
}

func (l *rbLog) append(rec rbRecord) error {
	rec.T = time.Now()
	defer func() { l.d.add(time.Since(rec.T)) }()
	b, _ := json.Marshal(rec)
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(b); err != nil {
		return err
	}
	l.events[rec.Run]++
	l.bytes[rec.Run] += len(b)
	return l.f.Sync()
}

// readLogs reads the records of files, by run, in time order.
func readLogs(paths []string) (map[string][]rbRecord, error) {
	out := map[string][]rbRecord{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var r rbRecord
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %v", p, err)
			}
			out[r.Run] = append(out[r.Run], r)
		}
		f.Close()
	}
	for _, recs := range out {
		sort.SliceStable(recs, func(i, j int) bool { return recs[i].T.Before(recs[j].T) })
	}
	return out, nil
}

// writeFile is a stage write in a baseline: the file, fsynced.
func writeFile(root string, w lunad.StageWrite, d *rbDurations) error {
	t0 := time.Now()
	defer func() { d.add(time.Since(t0)) }()
	p := filepath.Join(root, w.Path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(w.Content); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// rbOriginal is a baseline run's path and status as its logs tell them.
func rbOriginal(recs []rbRecord) (path []string, status string) {
	status = "incomplete"
	for _, r := range recs {
		switch r.Type {
		case "STAGE_SUCCEEDED":
			path = append(path, r.Stage)
		case "RUN_COMPLETED":
			status = "completed"
		case "DEAD_LETTERED":
			if status != "completed" {
				status = "dead_lettered"
			}
		case "RUN_ABORTED":
			if status == "incomplete" {
				status = "aborted"
			}
		}
	}
	return path, status
}

// rbReplayLog re-drives a baseline run from its logs: each attempt gets
// the first outcome recorded for it; route chooses the next stage from
// the recorded outcome. It returns the replay's path and status.
func rbReplayLog(w *rbWorkload, recs []rbRecord, route func(rbRecord) string) ([]string, string) {
	visited := slices.ContainsFunc(recs, func(r rbRecord) bool { return r.Visit > 0 })
	first := map[string]rbRecord{}
	for _, r := range recs {
		if r.Type != "STAGE_SUCCEEDED" && r.Type != "STAGE_FAILED" {
			continue
		}
		k := fmt.Sprintf("%d/%s/%d", r.Visit, r.Stage, r.Attempt)
		if _, ok := first[k]; !ok {
			first[k] = r
		}
	}
	var path []string
	stage, attempt := w.stages[0], 1
	for visits := 1; visits <= rbMaxVisits; {
		visit := 0 // choreography's agents know no visits: its workflows do not loop
		if visited {
			visit = visits
		}
		o, ok := first[fmt.Sprintf("%d/%s/%d", visit, stage, attempt)]
		if !ok {
			return path, "incomplete"
		}
		if o.Type == "STAGE_FAILED" {
			if attempt < w.maxAttempts {
				attempt++
				continue
			}
			return path, "dead_lettered"
		}
		path = append(path, stage)
		next := route(o)
		if next == "end" {
			return path, "completed"
		}
		if !slices.Contains(w.stages, next) {
			return path, "aborted"
		}
		stage, attempt = next, 1
		visits++
	}
	return path, "aborted"
}

// rbCompare scores a baseline's replays (from its logs, and live: a second
// execution of the same runs) against its original runs.
func rbCompare(res *rbResult, w *rbWorkload, orig, live map[string][]rbRecord, ids []string, route func(rbRecord) string) {
	last := func(p []string) string {
		if len(p) == 0 {
			return ""
		}
		return p[len(p)-1]
	}
	for i, id := range ids {
		path, status := rbOriginal(orig[id])
		rpath, rstatus := rbReplayLog(w, orig[id], route)
		div := 0.0
		if last(path) != last(rpath) || status != rstatus {
			div = 1
		}
		res.replayLog.add(slices.Equal(path, rpath), rstatus == "completed", div)
		if status == "completed" && rstatus == "completed" {
			res.replayOK++
		}
		lpath, lstatus := rbOriginal(live[rbLiveID(id, i)])
		div = 0
		if last(path) != last(lpath) || status != lstatus {
			div = 1
		}
		res.replayLive.add(slices.Equal(path, lpath), lstatus == "completed", div)
	}
}

func rbLiveID(id string, i int) string { return fmt.Sprintf("live-%d", i) }

// ---- B1: choreography ----

type chMsg struct {
	run     *chRun
	stage   string
	attempt int
	onTraj  bool // caused by the run's valid trajectory
}

type chRun struct {
	seed     uint64
	inflight int // messages and visibility timers that can still make work
	done     chan struct{}
	rbRun
	succeeded                                      map[string]bool // each stage agent's own log: has it completed this run?
	completed                                      bool
	orphans, dupIgnored, appliedTwice, deadLetters int
}

type chSystem struct {
	w      *rbWorkload
	writes *rbDurations
	root   string
	agent  *rbAgent
	jit    *rbJitter
	logs   map[string]*rbLog // per stage agent, "runs" (the starter) and "dlq"

	mu    sync.Mutex
	cond  *sync.Cond
	queue []*chMsg
	stop  bool
}

// rbChoreography runs w's runs under B1 with ids (the run IDs) and
// returns them, their logs' directory and the system.
func rbChoreography(b *testing.B, w *rbWorkload, root string, ids []string, rec *rbRecorder, m *rbResult) ([]*chRun, *chSystem, time.Duration) {
	s := &chSystem{w: w, root: root, writes: &m.writes, agent: &rbAgent{faults: w.faults, work: rbWork, slow: rbSlowFor(w), rec: rec},
		jit: newJitter(rbSeed + 1), logs: map[string]*rbLog{}}
	s.cond = sync.NewCond(&s.mu)
	for _, name := range append(slices.Clone(w.stages), "runs", "dlq") {
		l, err := openLog(filepath.Join(root, name+".jsonl"), &m.appends)
		if err != nil {
			b.Fatal(err)
		}
		defer l.f.Close()
		s.logs[name] = l
	}
	var wg sync.WaitGroup
	for range w.slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := s.pop(); m != nil; m = s.pop() {
				s.deliver(b, m)
			}
		}()
	}
	t0 := time.Now()
	var all []*chRun
	for i, id := range ids {
		r := &chRun{seed: w.seed(i), inflight: 1, done: make(chan struct{}), succeeded: map[string]bool{}}
		r.id, r.start = id, time.Now()
		all = append(all, r)
		s.log(b, "runs", r, rbRecord{Type: "RUN_CREATED", Run: id})
		s.push(&chMsg{run: r, stage: w.stages[0], attempt: 1, onTraj: true})
		if !w.parallel {
			<-r.done
		}
	}
	for _, r := range all {
		<-r.done
	}
	wall := time.Since(t0)
	s.mu.Lock()
	s.stop = true
	s.cond.Broadcast()
	s.mu.Unlock()
	wg.Wait()
	return all, s, wall
}

func (s *chSystem) log(b *testing.B, name string, r *chRun, rec rbRecord) {
	if err := s.logs[name].append(rec); err != nil {
		b.Error(err)
	}
}

func (s *chSystem) push(m *chMsg) {
	s.mu.Lock()
	s.queue = append(s.queue, m)
	s.cond.Signal()
	s.mu.Unlock()
}

func (s *chSystem) pop() *chMsg {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) == 0 && !s.stop {
		s.cond.Wait()
	}
	if len(s.queue) == 0 {
		return nil
	}
	m := s.queue[0]
	s.queue = s.queue[1:]
	return m
}

// settle ends one unit of a run's in-flight work (s.mu held).
func (s *chSystem) settle(r *chRun) {
	r.inflight--
	if r.inflight == 0 {
		if !r.completed {
			r.end = time.Now()
		}
		close(r.done)
	}
}

// later pushes m after d (a backoff), as in-flight work of its run.
func (s *chSystem) later(m *chMsg, d time.Duration) {
	s.mu.Lock()
	m.run.inflight++
	now := time.Now()
	m.run.busy = append(m.run.busy, rbSpan{now, now.Add(d)})
	s.mu.Unlock()
	time.AfterFunc(d, func() {
		s.mu.Lock()
		m.run.inflight--
		s.queue = append(s.queue, m)
		m.run.inflight++ // the message, now queued
		s.cond.Signal()
		s.mu.Unlock()
	})
}

// deliver is a delivery of m to its stage's agent.
func (s *chSystem) deliver(b *testing.B, m *chMsg) {
	r, w := m.run, s.w
	s.mu.Lock()
	if r.succeeded[m.stage] {
		r.dupIgnored++
		s.mu.Unlock()
		s.log(b, m.stage, r, rbRecord{Type: "DUPLICATE_IGNORED", Run: r.id, Stage: m.stage, Attempt: m.attempt})
		s.mu.Lock()
		s.settle(r)
		s.mu.Unlock()
		return
	}
	r.execs++
	if !m.onTraj {
		r.orphans++
	}
	r.inflight++ // the visibility timer
	s.mu.Unlock()
	s.log(b, m.stage, r, rbRecord{Type: "STAGE_STARTED", Run: r.id, Stage: m.stage, Attempt: m.attempt})
	// The queue's visibility timeout: not acknowledged in time, the
	// message is delivered again, or dead-lettered after the last attempt.
	timer := time.AfterFunc(w.timeout, func() {
		s.mu.Lock()
		r.inflight--
		if m.attempt < w.maxAttempts {
			r.inflight++
			s.queue = append(s.queue, &chMsg{run: r, stage: m.stage, attempt: m.attempt + 1, onTraj: m.onTraj})
			s.cond.Signal()
			s.mu.Unlock()
			return
		}
		r.inflight++ // the dead letter's record
		r.deadLetters++
		s.mu.Unlock()
		s.log(b, "dlq", r, rbRecord{Type: "DEAD_LETTERED", Run: r.id, Stage: m.stage, Attempt: m.attempt, Error: "not acknowledged within the visibility timeout"})
		s.mu.Lock()
		s.settle(r)
		s.mu.Unlock()
	})
	req := lunad.StageRequest{RunID: r.id, Stage: m.stage, Attempt: m.attempt, Params: map[string]string{"seed": strconv.FormatUint(r.seed, 10)}}
	t0 := time.Now()
	resp, err := s.agent.Process(context.Background(), req)
	t1 := time.Now()
	stopped := timer.Stop()
	s.mu.Lock()
	r.busy = append(r.busy, rbSpan{t0, t1})
	if stopped {
		r.inflight--
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.settle(r)
		s.mu.Unlock()
	}()
	if err != nil || resp.Status != "ok" {
		why := resp.Error
		if err != nil {
			why = err.Error()
		}
		s.log(b, m.stage, r, rbRecord{Type: "STAGE_FAILED", Run: r.id, Stage: m.stage, Attempt: m.attempt, Error: why})
		if m.attempt < w.maxAttempts {
			s.later(&chMsg{run: r, stage: m.stage, attempt: m.attempt + 1, onTraj: m.onTraj}, w.retryPolicy().Delay(m.attempt, s.jit.next()))
			return
		}
		s.mu.Lock()
		r.deadLetters++
		s.mu.Unlock()
		s.log(b, "dlq", r, rbRecord{Type: "DEAD_LETTERED", Run: r.id, Stage: m.stage, Attempt: m.attempt, Error: why})
		return
	}
	for _, wr := range resp.Writes {
		if err := writeFile(s.root, wr, s.writes); err != nil {
			b.Error(err)
		}
	}
	next := w.route(m.stage, parseOutput(resp.Output))
	s.mu.Lock()
	first := !r.succeeded[m.stage]
	r.succeeded[m.stage] = true
	if !first {
		r.appliedTwice++
	}
	r.path = append(r.path, m.stage)
	s.mu.Unlock()
	s.log(b, m.stage, r, rbRecord{Type: "STAGE_SUCCEEDED", Run: r.id, Stage: m.stage, Attempt: m.attempt, Output: resp.Output, Next: next})
	if next == "end" {
		s.log(b, m.stage, r, rbRecord{Type: "RUN_COMPLETED", Run: r.id, Stage: m.stage})
		s.mu.Lock()
		if !r.completed {
			r.completed, r.end = true, time.Now()
		}
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	r.inflight++
	s.queue = append(s.queue, &chMsg{run: r, stage: next, attempt: 1, onTraj: m.onTraj && first})
	s.cond.Signal()
	s.mu.Unlock()
}

// logPaths are the files of s's logs.
func (s *chSystem) logPaths() []string {
	var out []string
	for _, l := range s.logs {
		out = append(out, l.path)
	}
	sort.Strings(out)
	return out
}

func (s *chSystem) eventsOf(id string) (events, bytes int) {
	for _, l := range s.logs {
		events += l.events[id]
		bytes += l.bytes[id]
	}
	return
}

// rbB1 measures workload w under the choreography baseline.
func rbB1(b *testing.B, w *rbWorkload) *rbResult {
	res := &rbResult{system: "choreography", runs: w.runs}
	ids := make([]string, w.runs)
	liveIDs := make([]string, w.runs)
	for i := range ids {
		ids[i], liveIDs[i] = fmt.Sprintf("run-%d", i), rbLiveID("", i)
	}
	root := b.TempDir()
	rec := &rbRecorder{on: true}
	all, s, wall := rbChoreography(b, w, root, ids, rec, res)
	res.wall = wall
	for _, r := range all {
		run := r.rbRun
		run.status = "incomplete"
		if r.completed {
			run.status = "completed"
		} else if r.deadLetters > 0 {
			run.status = "dead_lettered"
		}
		res.add(run)
		res.orphans += r.orphans
		res.dupIgnored += r.dupIgnored
		res.appliedTwice += r.appliedTwice
		res.deadLetters += r.deadLetters
		e, n := s.eventsOf(r.id)
		res.events += e
		res.bytes += n
	}
	orig, err := readLogs(s.logPaths())
	if err != nil {
		b.Fatal(err)
	}
	// Live: the same runs (same seeds) executed again.
	liveRoot := b.TempDir()
	_, ls, _ := rbChoreography(b, w, liveRoot, liveIDs, &rbRecorder{}, &rbResult{})
	live, err := readLogs(ls.logPaths())
	if err != nil {
		b.Fatal(err)
	}
	rbCompare(res, w, orig, live, ids, func(o rbRecord) string { return w.route(o.Stage, parseOutput(o.Output)) })
	return res
}

// ---- B2: agent-decides ----

type adSystem struct {
	w      *rbWorkload
	writes *rbDurations
	root   string
	agent  *rbAgent
	jit    *rbJitter
	choice *rbJitter // the agents' sampling: differs between executions
	log    *rbLog
	slots  chan struct{}
}

type adRun struct {
	rbRun
	seed        uint64
	deviations  int
	deadLetters int
}

// decide is the agent's choice of the next stage: the workflow's, or with
// probability rbEpsilon another stage or the end.
func (s *adSystem) decide(stage string, out rbOutput) (string, bool) {
	right := s.w.route(stage, out)
	if s.choice.next() >= rbEpsilon {
		return right, false
	}
	var other []string
	for _, c := range append(slices.Clone(s.w.stages), "end") {
		if c != right {
			other = append(other, c)
		}
	}
	return other[int(s.choice.next()*float64(len(other)))], true
}

func (s *adSystem) run(b *testing.B, r *adRun) {
	w := s.w
	logf := func(rec rbRecord) {
		rec.Run = r.id
		if err := s.log.append(rec); err != nil {
			b.Error(err)
		}
	}
	logf(rbRecord{Type: "RUN_CREATED"})
	stage, attempt, visits := w.stages[0], 1, 1
	defer func() { r.end = time.Now() }()
	for {
		logf(rbRecord{Type: "STAGE_STARTED", Stage: stage, Visit: visits, Attempt: attempt})
		s.slots <- struct{}{}
		ctx, cancel := context.WithTimeout(context.Background(), w.timeout)
		req := lunad.StageRequest{RunID: r.id, Stage: stage, Attempt: attempt, Params: map[string]string{"seed": strconv.FormatUint(r.seed, 10)}}
		t0 := time.Now()
		resp, err := s.agent.Process(ctx, req)
		if err == nil && ctx.Err() != nil {
			err = fmt.Errorf("timed out after %v", w.timeout)
		}
		r.busy = append(r.busy, rbSpan{t0, time.Now()})
		cancel()
		<-s.slots
		r.execs++
		if err != nil || resp.Status != "ok" {
			why := resp.Error
			if err != nil {
				why = err.Error()
			}
			logf(rbRecord{Type: "STAGE_FAILED", Stage: stage, Visit: visits, Attempt: attempt, Error: why})
			if attempt < w.maxAttempts {
				d := w.retryPolicy().Delay(attempt, s.jit.next())
				now := time.Now()
				r.busy = append(r.busy, rbSpan{now, now.Add(d)})
				time.Sleep(d)
				attempt++
				continue
			}
			r.deadLetters++
			logf(rbRecord{Type: "DEAD_LETTERED", Stage: stage, Visit: visits, Attempt: attempt, Error: why})
			logf(rbRecord{Type: "RUN_ABORTED", Stage: stage, Visit: visits})
			r.status = "dead_lettered"
			return
		}
		out := parseOutput(resp.Output)
		next, deviated := s.decide(stage, out)
		if deviated {
			r.deviations++
		}
		var o map[string]any
		json.Unmarshal(resp.Output, &o)
		o["next"] = next
		output, _ := json.Marshal(o)
		for _, wr := range resp.Writes {
			if err := writeFile(s.root, wr, s.writes); err != nil {
				b.Error(err)
			}
		}
		logf(rbRecord{Type: "STAGE_SUCCEEDED", Stage: stage, Visit: visits, Attempt: attempt, Output: output, Next: next})
		r.path = append(r.path, stage)
		if next == "end" {
			logf(rbRecord{Type: "RUN_COMPLETED"})
			r.status = "completed"
			return
		}
		if visits++; visits > rbMaxVisits {
			logf(rbRecord{Type: "RUN_ABORTED", Error: fmt.Sprintf("more than %d stage visits", rbMaxVisits)})
			r.status = "aborted"
			return
		}
		stage, attempt = next, 1
	}
}

// rbAgentDecides runs w's runs under B2; pass seeds the agents' sampling.
func rbAgentDecides(b *testing.B, w *rbWorkload, root string, ids []string, rec *rbRecorder, pass uint64, m *rbResult) ([]*adRun, *adSystem, time.Duration) {
	l, err := openLog(filepath.Join(root, "runs.jsonl"), &m.appends)
	if err != nil {
		b.Fatal(err)
	}
	defer l.f.Close()
	s := &adSystem{w: w, root: root, writes: &m.writes, agent: &rbAgent{faults: w.faults, work: rbWork, slow: rbSlowFor(w), rec: rec},
		jit: newJitter(rbSeed + 2), choice: newJitter(rbSeed + 100 + pass), log: l, slots: make(chan struct{}, w.slots)}
	var all []*adRun
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, id := range ids {
		r := &adRun{seed: w.seed(i)}
		r.id, r.start, r.status = id, time.Now(), "incomplete"
		all = append(all, r)
		wg.Add(1)
		if w.parallel {
			go func() { defer wg.Done(); s.run(b, r) }()
		} else {
			s.run(b, r)
			wg.Done()
		}
	}
	wg.Wait()
	return all, s, time.Since(t0)
}

// rbB2 measures workload w under the agent-decides baseline.
func rbB2(b *testing.B, w *rbWorkload) *rbResult {
	res := &rbResult{system: "agent-decides", runs: w.runs}
	ids := make([]string, w.runs)
	liveIDs := make([]string, w.runs)
	for i := range ids {
		ids[i], liveIDs[i] = fmt.Sprintf("run-%d", i), rbLiveID("", i)
	}
	root := b.TempDir()
	rec := &rbRecorder{on: true}
	all, s, wall := rbAgentDecides(b, w, root, ids, rec, 0, res)
	res.wall = wall
	orig, err := readLogs([]string{s.log.path})
	if err != nil {
		b.Fatal(err)
	}
	calls := rec.byRun()
	for _, r := range all {
		res.add(r.rbRun)
		res.deviations += r.deviations
		res.deadLetters += r.deadLetters
		res.events += s.log.events[r.id]
		res.bytes += s.log.bytes[r.id]
		// Orphans: executions no STAGE_STARTED of the run's log explains.
		started := map[string]int{}
		for _, rec := range orig[r.id] {
			if rec.Type == "STAGE_STARTED" {
				started[fmt.Sprintf("%s/%d", rec.Stage, rec.Attempt)]++
			}
		}
		for _, c := range calls[r.id] {
			k := fmt.Sprintf("%s/%d", c.stage, c.attempt)
			if started[k] > 0 {
				started[k]--
			} else {
				res.orphans++
			}
		}
	}
	liveRoot := b.TempDir()
	_, ls, _ := rbAgentDecides(b, w, liveRoot, liveIDs, &rbRecorder{}, 1, &rbResult{})
	live, err := readLogs([]string{ls.log.path})
	if err != nil {
		b.Fatal(err)
	}
	rbCompare(res, w, orig, live, ids, func(o rbRecord) string { return o.Next })
	return res
}
