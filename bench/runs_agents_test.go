package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/workflow"
)

// The agents and faults of BenchmarkRuns, shared by lunad's engine and the
// two baselines: the same Go code processes every stage of every system,
// and the faults it injects are a pure function of (run seed, stage,
// attempt), so a run with the same seed meets the same faults in every
// system and in every re-execution.

// rbFault is what an attempt of a stage does.
type rbFault int

const (
	rbOK   rbFault = iota
	rbFail         // reports a transient failure
	rbSlow         // sleeps past the stage's timeout, then succeeds (if nobody stopped it)
)

// rbFaults are per-attempt fault probabilities of a workload's stages.
type rbFaults struct {
	stages     map[string]bool // the stages faults hit (all when nil)
	fail, slow float64
}

// fault draws the fault of an attempt from an RNG seeded with the run's
// seed, the stage and the attempt: deterministic, so a replay or a
// re-execution meets the same fault.
func (f rbFaults) fault(seed uint64, stage string, attempt int) rbFault {
	if f.stages != nil && !f.stages[stage] {
		return rbOK
	}
	u := rbRand(seed, "fault", stage, strconv.Itoa(attempt)).Float64()
	switch {
	case u < f.fail:
		return rbFail
	case u < f.fail+f.slow:
		return rbSlow
	}
	return rbOK
}

// rbRand is an RNG seeded with seed and the hash of parts.
func rbRand(seed uint64, parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// rbScore is a stage's structured output for a run: W2 branches on A's.
func rbScore(seed uint64, stage string) float64 {
	return float64(int(rbRand(seed, "score", stage).Float64()*1000)) / 1000
}

// rbCall is one invocation of the bench agent: a stage execution.
type rbCall struct {
	run, stage string
	attempt    int
	start, end time.Time
}

// rbRecorder records the bench agent's invocations while it is on.
type rbRecorder struct {
	mu    sync.Mutex
	on    bool
	calls []rbCall
}

func (r *rbRecorder) add(c rbCall) {
	r.mu.Lock()
	if r.on {
		r.calls = append(r.calls, c)
	}
	r.mu.Unlock()
}

func (r *rbRecorder) set(on bool) {
	r.mu.Lock()
	r.on = on
	r.mu.Unlock()
}

// byRun is the recorded calls per run.
func (r *rbRecorder) byRun() map[string][]rbCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]rbCall{}
	for _, c := range r.calls {
		out[c.run] = append(out[c.run], c)
	}
	return out
}

// rbAgent is the bench's built-in agent (a lunad.Agent): it works for
// `work`, then returns a small structured output and one write, a file per
// stage, unless the attempt's injected fault says otherwise. It honours
// its context: stopped (a stage timeout) it returns the context's error.
type rbAgent struct {
	faults rbFaults
	work   time.Duration // every attempt's own work
	slow   time.Duration // how long a slow attempt takes
	rec    *rbRecorder
}

func (a *rbAgent) Version() string { return "bench-agent/1" }

func (a *rbAgent) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	start := time.Now()
	defer func() {
		a.rec.add(rbCall{run: req.RunID, stage: req.Stage, attempt: req.Attempt, start: start, end: time.Now()})
	}()
	seed, err := strconv.ParseUint(req.Params["seed"], 10, 64)
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("no seed param: %v", err)}
	}
	fault := a.faults.fault(seed, req.Stage, req.Attempt)
	d := a.work
	if fault == rbSlow {
		d = a.slow
	}
	if !rbSleep(ctx, d) {
		return lunad.StageResponse{}, fmt.Errorf("injected slow attempt (stage %s, attempt %d) stopped: %w", req.Stage, req.Attempt, ctx.Err())
	}
	if fault == rbFail {
		return lunad.StageResponse{Status: "fail", Error: fmt.Sprintf("injected transient failure (stage %s, attempt %d)", req.Stage, req.Attempt)}, nil
	}
	out, _ := json.Marshal(map[string]any{"stage": req.Stage, "score": rbScore(seed, req.Stage)})
	return lunad.StageResponse{Status: "ok", Output: out,
		Writes: []lunad.StageWrite{{Path: "out/" + req.RunID + "/" + req.Stage + ".txt",
			Content: fmt.Sprintf("stage %s of run %s (seed %d)\n", req.Stage, req.RunID, seed)}}}, nil
}

func rbSleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// rbJitter is a seeded, concurrency-safe source of backoff jitter.
type rbJitter struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newJitter(seed uint64) *rbJitter { return &rbJitter{rng: rand.New(rand.NewPCG(seed, 7))} }

func (j *rbJitter) next() float64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rng.Float64()
}

// rbOutput is the part of a stage's output the routing reads.
type rbOutput struct {
	Score float64 `json:"score"`
	Next  string  `json:"next,omitempty"` // agent-decides: the agent's choice
}

func parseOutput(b json.RawMessage) rbOutput {
	var o rbOutput
	json.Unmarshal(b, &o)
	return o
}

// retryPolicy is the workloads' retry policy, as lunad's workflow states it.
func (w *rbWorkload) retryPolicy() workflow.Retry {
	return workflow.Retry{MaxAttempts: w.maxAttempts, Initial: w.backoff, Max: w.backoffMax}
}
