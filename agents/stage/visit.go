package stage

import (
	"context"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
)

// Visit is the runtime of one stage visit of an agent: its clock, the
// run's working memory on that clock, its model calls behind recorders
// (replayers in a live replay) and the retry policy around them. Model
// is safe for concurrent use; the rest only reads.
type Visit struct {
	req   lunad.StageRequest
	clock *Clock

	mu  sync.Mutex
	rec map[string]*llm.Recorder // by the folder of their files
}

// Begin is req's visit, on a clock over now: recorded, or in a live
// replay read back from the original's stage file ClockFile. An error
// wraps lunad.ErrInvalid: the recorded readings do not decode.
func Begin(now func() time.Time, req lunad.StageRequest) (*Visit, error) {
	clk, err := NewClock(now, req)
	if err != nil {
		return nil, err
	}
	return &Visit{req: req, clock: clk, rec: map[string]*llm.Recorder{}}, nil
}

// Memory is the run's working memory as the stage before this visit left
// it, resumed from prev, the snapshot in that stage's output (a new
// memory for the run's first stage: prev nil), on the visit's clock
// whatever o.Clock is. Every stage resumes so, live or replayed, after a
// restart or not: a stage's memory is a function of its request and its
// clock's readings. An error is memory.Restore's.
func (v *Visit) Memory(o memory.Options, prev *memory.Snapshot) (*memory.Memory, error) {
	o.Clock = v.clock.Now
	if prev == nil {
		return memory.New(v.req.RunID, o), nil
	}
	return memory.Restore(*prev, o)
}

// Model is p for this visit, recorded: every call through it, the
// failed ones too, is kept as the stage file dir + llm/NNNN.json; in a
// live replay the calls recorded under dir are served instead of p's
// (the replayer under p's name). dir is "" for a stage's one model,
// "ROLE/" for one of several. A visit has one recorder per dir, made by
// the first call: a later one returns it whatever p is. Put the memory's
// guards and the retry policy around it (agents/guard) so that every
// attempt is recorded and replayed in order. An error wraps
// lunad.ErrInvalid: a recorded call does not decode.
func (v *Visit) Model(dir string, p llm.Provider) (*llm.Recorder, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if r, ok := v.rec[dir]; ok {
		return r, nil
	}
	if v.req.Replay {
		files := map[string]string{}
		for name, text := range v.req.Recorded {
			if rest, ok := strings.CutPrefix(name, dir); ok {
				files[rest] = text
			}
		}
		rp, err := llm.NewReplayer(p.Name(), files)
		if err != nil {
			return nil, err
		}
		p = rp
	}
	r := llm.NewRecorder(p)
	v.rec[dir] = r
	return r, nil
}

// Retry is the retry policy o for this visit: a live replay serves the
// recorded attempts, failed ones included, and does not wait between
// them.
func (v *Visit) Retry(o llm.RetryOptions) llm.RetryOptions {
	if v.req.Replay {
		o.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	}
	return o
}

// Files are the visit's stage files: own, the agent's own ones, with the
// recorded model calls (DIR/llm/NNNN.json) and the clock's readings
// (ClockFile) added; nil when there are none.
func (v *Visit) Files(own map[string]string) map[string]string {
	out := maps.Clone(own)
	if out == nil {
		out = map[string]string{}
	}
	v.mu.Lock()
	for dir, r := range v.rec {
		for name, text := range r.Files() {
			out[dir+name] = text
		}
	}
	v.mu.Unlock()
	if f := v.clock.File(); f != "" {
		out[ClockFile] = f
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
