package goal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/guard"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/stageclock"
)

// effectFile is the stage file holding what the stage's one contact with
// the outside world gave (an action's observation and writes, a test
// run, the files the report read); a live replay serves it back instead.
const effectFile = "effect.json"

// stage is one of the workflow's stage agents. A stage that is not
// always run does nothing once the goal has ended.
type stage struct {
	a      *Agents
	name   string
	always bool
	run    func(ctx context.Context, v *visit) error
}

func (s stage) Version() string {
	id, _ := Prompt()
	return id + "+" + s.a.modelName()
}

func (a *Agents) modelName() string {
	_, cfg, err := a.o.Providers(Role)
	if err != nil || cfg.Model == "" {
		return "unconfigured"
	}
	return cfg.Model
}

// visit is one stage visit at work: its request, params, clock, the run's
// memory and state, and what it returns.
type visit struct {
	a     *Agents
	req   lunad.StageRequest
	p     params
	clock *stageclock.Clock
	mem   *memory.Memory
	st    state
	rec   *llm.Recorder
	files map[string]string
	// writes are this visit's changes, committed by the engine as one
	// commit carrying the trailers.
	writes   []lunad.StageWrite
	trailers map[string]string
}

// Process runs the stage: every way the goal can end is an outcome in
// the state (the report stage words it); the error is only a request
// the stage cannot make sense of, or ctx's.
func (s stage) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	a := s.a
	clk, err := stageclock.New(a.o.Clock, req)
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: err}
	}
	prev, err := latest(req.Outputs)
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: err}
	}
	v := &visit{a: a, req: req, clock: clk, files: map[string]string{}}
	mo := a.o.Memory
	mo.Clock = clk.Now
	if prev == nil {
		v.mem = memory.New(req.RunID, mo)
	} else {
		v.st = *prev
		if v.mem, err = memory.Restore(prev.Memory, mo); err != nil {
			return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("restoring goal %s's working memory from its stage %s: %w", req.RunID, prev.Stage, err)}
		}
	}
	v.st.Mutated = false
	v.p, err = parseParams(req.Params, a.o.MaxSteps)
	switch {
	case err != nil:
		v.end(outFailed, err.Error())
	case req.Dir == "":
		v.end(outFailed, fmt.Sprintf("%v: goal %s has no worktree: a goal runs isolated, on a branch of its own; the goal workflow must set isolated = true (a .luna/workflows/goal.toml that overrides the built-in one lacks it)", lunad.ErrInvalid, req.RunID))
	case prev == nil:
		v.st.MaxSteps, v.st.DryRun, v.st.Branch = v.p.maxSteps, v.p.dryRun, req.Branch
		v.st.Tested = len(v.p.tests) > 0 && !v.p.dryRun && !v.p.plan
		v.st.Sandbox = a.o.Sandbox
	}
	// The tests after a change run, and the report is written, however
	// the goal ended; begin and act work only while it goes on.
	if v.st.Outcome == "" || s.always {
		if err := s.run(ctx, v); err != nil {
			return lunad.StageResponse{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return lunad.StageResponse{}, err
	}
	return v.respond(s.name)
}

// end ends the goal with outcome, for reason.
func (v *visit) end(outcome, reason string) {
	if v.st.Outcome == "" {
		v.st.Outcome, v.st.Reason = outcome, reason
	}
}

func (v *visit) respond(name string) (lunad.StageResponse, error) {
	v.st.Stage, v.st.Visit = name, v.req.Visit
	v.st.Memory = v.mem.Snapshot()
	out, err := json.Marshal(v.st)
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: err}
	}
	if v.rec != nil {
		for name, text := range v.rec.Files() {
			v.files[name] = text
		}
	}
	if f := v.clock.File(); f != "" {
		v.files[stageclock.File] = f
	}
	resp := lunad.StageResponse{Status: "ok", Output: out}
	if len(v.files) > 0 {
		resp.Files = v.files
	}
	if len(v.writes) > 0 {
		resp.Writes, resp.Agent, resp.Trailers = v.writes, Role, v.trailers
	}
	return resp, nil
}

// recorded runs do, the stage's contact with the outside world, and
// records its result as the stage file effectFile; a live replay returns
// the recorded result and runs nothing.
func recorded[T any](v *visit, do func() T) (T, error) {
	var out T
	if v.req.Replay {
		text, ok := v.req.Recorded[effectFile]
		if !ok {
			return out, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("%w: replay: the stage's original attempt recorded no %s to serve its observation from", lunad.ErrInvalid, effectFile)}
		}
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			return out, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("%w: replay: the stage's recorded %s does not decode: %v", lunad.ErrInvalid, effectFile, err)}
		}
		return out, nil
	}
	out = do()
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return out, &lunad.AgentError{Permanent: true, Err: err}
	}
	v.files[effectFile] = string(b) + "\n"
	return out, nil
}

// model is the goal's model for this visit, recorded (in a live replay,
// the original's recorded calls instead of the provider), behind the
// memory's guards and lunad's retry policy.
func (v *visit) model() (llm.Provider, llm.Config, error) {
	p, cfg, err := v.a.o.Providers(Role)
	if err != nil {
		return nil, cfg, err
	}
	if v.req.Replay {
		rp, err := llm.NewReplayer(p.Name(), v.req.Recorded)
		if err != nil {
			return nil, cfg, err
		}
		p = rp
	}
	v.rec = llm.NewRecorder(p)
	o := v.a.o.Retry
	if v.req.Replay {
		o.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	}
	return guard.Retried(v.rec, v.mem, Role, o), cfg, nil
}

// chat makes one model call; a failure ends the goal with the outcome
// the guards' error says (budget_exhausted, stopped) or failed.
func (v *visit) chat(ctx context.Context, req llm.Request) (llm.Response, bool) {
	p, cfg, err := v.model()
	if err != nil {
		v.end(outFailed, "the goal's model: "+err.Error())
		return llm.Response{}, false
	}
	req.Model, req.Temperature, req.Seed, req.MaxTokens = cfg.Model, cfg.Temperature, cfg.Seed, cfg.MaxTokens
	resp, err := p.Chat(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return resp, false
		}
		switch refused := guard.Refused(err); {
		case refused != nil && errors.Is(err, memory.ErrBudget):
			v.end(outBudget, refused.Error())
		case refused != nil:
			v.end(outStopped, refused.Error())
		default:
			v.end(outFailed, "the goal's model call failed: "+err.Error())
		}
		return resp, false
	}
	v.st.Model = resp.Model
	if v.st.Model == "" {
		v.st.Model = cfg.Model
	}
	return resp, true
}
