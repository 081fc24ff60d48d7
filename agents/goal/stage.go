package goal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/guard"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/stage"
)

// effectFile is the stage file holding what the stage's one contact with
// the outside world gave (an action's observation and writes, a test
// run, the files the report read); a live replay serves it back instead.
const effectFile = "effect.json"

// stageAgent is one of the workflow's stage agents. A stage that is not
// always run does nothing once the goal has ended.
type stageAgent struct {
	a      *Agents
	name   string
	always bool
	run    func(ctx context.Context, v *visit) error
}

func (s stageAgent) Version() string {
	id, _ := Prompt()
	return id + "+" + stage.ModelName(s.a.o.Providers, Role)
}

// visit is one stage visit at work: its request, params, runtime (the
// clock, the recorded model calls), the run's memory and state, and what
// it returns.
type visit struct {
	a     *Agents
	req   lunad.StageRequest
	p     params
	rt    *stage.Visit // the visit's runtime
	mem   *memory.Memory
	st    state
	files map[string]string // the visit's own stage files
	// writes are this visit's changes, committed by the engine as one
	// commit carrying the trailers.
	writes   []lunad.StageWrite
	trailers map[string]string
}

// Process runs the stage: every way the goal can end is an outcome in
// the state (the report stage words it); the error is only a request
// the stage cannot make sense of, or ctx's.
func (s stageAgent) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	a := s.a
	rt, err := stage.Begin(a.o.Clock, req)
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: err}
	}
	prev, err := latest(req.Outputs)
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: err}
	}
	v := &visit{a: a, req: req, rt: rt, files: map[string]string{}}
	if prev == nil {
		v.mem, _ = rt.Memory(a.o.Memory, nil)
	} else {
		v.st = *prev
		if v.mem, err = rt.Memory(a.o.Memory, &prev.Memory); err != nil {
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
	resp := lunad.StageResponse{Status: "ok", Output: out, Files: v.rt.Files(v.files)}
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
// the original's recorded calls instead of the provider: stage.Visit.Model),
// behind the memory's guards and lunad's retry policy.
func (v *visit) model() (llm.Provider, llm.Config, error) {
	p, cfg, err := v.a.o.Providers(Role)
	if err != nil {
		return nil, cfg, err
	}
	rec, err := v.rt.Model("", p)
	if err != nil {
		return nil, cfg, err
	}
	return guard.Retried(rec, v.mem, Role, v.rt.Retry(v.a.o.Retry)), cfg, nil
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
		case errors.As(err, new(*llm.CutError)):
			v.end(outFailed, err.Error()) // it says what happened and what to do
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
