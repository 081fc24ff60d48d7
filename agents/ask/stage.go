package ask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/stage"
	"github.com/lunad/lunad/agents/supervisor"
	"github.com/lunad/lunad/agents/window"
	"github.com/lunad/lunad/agents/worker"
)

// memoryFor is the run's working memory as the stage before req left
// it (stage.Visit.Memory: resumed from the snapshot in that stage's
// output, a new memory for the first stage). The store keeps the live
// memories between stages until the run ends or their TTL passes.
func (a *Agents) memoryFor(req lunad.StageRequest, v *stage.Visit) (*memory.Memory, *output, error) {
	a.Sweep()
	prev, err := latest(req)
	if err != nil {
		return nil, nil, err
	}
	var snap *memory.Snapshot
	if prev != nil {
		snap = &prev.Memory
	}
	m, err := v.Memory(a.o.Memory, snap)
	if err != nil {
		return nil, nil, fmt.Errorf("restoring run %s's working memory from its stage %s: %w", req.RunID, prev.Role, err)
	}
	return m, prev, nil
}

// begin sets a stage up: its calls and clock (recorded, or replayed) and
// the run's memory; an error is a permanent *lunad.AgentError.
func (a *Agents) begin(req lunad.StageRequest) (*calls, *memory.Memory, *output, error) {
	c, err := a.newCalls(req)
	if err != nil {
		return nil, nil, nil, &lunad.AgentError{Permanent: true, Err: err}
	}
	mem, prev, err := a.memoryFor(req, c.visit)
	if err != nil {
		return nil, nil, nil, &lunad.AgentError{Permanent: true, Err: err}
	}
	return c, mem, prev, nil
}

// calls are a stage's model calls: each role's bare provider behind the
// visit's recorder in the folder ROLE/ (the worker and the supervisor put
// the memory's guards and the retry policy around it, so every attempt
// is recorded, the failed ones too; in a live replay, a replayer of that
// role's recorded attempts instead of the provider), and the stage's
// reads of the workspace.
type calls struct {
	src   *source
	visit *stage.Visit
}

func (a *Agents) newCalls(req lunad.StageRequest) (*calls, error) {
	ws := a.o.Source
	if a.o.Reads != nil {
		ws = hide(ws, a.o.Reads())
	}
	src, err := newSource(ws, req)
	if err != nil {
		return nil, err
	}
	v, err := stage.Begin(a.o.Clock, req)
	if err != nil {
		return nil, err
	}
	return &calls{src: src, visit: v}, nil
}

// provider is role's model for this stage, recorded.
func (a *Agents) provider(c *calls, role string) (worker.Model, llm.Config, error) {
	p, cfg, err := a.o.Providers(role)
	if err != nil {
		return worker.Model{}, cfg, err
	}
	r, err := c.visit.Model(role+"/", p)
	if err != nil {
		return worker.Model{}, cfg, err
	}
	return worker.Model{Provider: r, Name: cfg.Model, Temperature: cfg.Temperature, Seed: cfg.Seed, MaxTokens: cfg.MaxTokens}, cfg, nil
}

// retry is the stage's retry policy (stage.Visit.Retry).
func (a *Agents) retry(c *calls) llm.RetryOptions { return c.visit.Retry(a.o.Retry) }

// files are the stage's recorded model calls (ROLE/llm/NNNN.json: one
// recorder per role, the worker's and its fallback's), its clock
// (clock.json) and its reads of the workspace (workspace.json).
func (c *calls) files() map[string]string {
	own := map[string]string{}
	if f := c.src.file(); f != "" {
		own[readsFile] = f
	}
	return c.visit.Files(own)
}

// respond is the stage's response: its output with the memory's snapshot,
// the writes and the reviewer's acknowledgements (only when the stage
// finished or handed off: the engine commits both) and the files.
func (a *Agents) respond(req lunad.StageRequest, mem *memory.Memory, out output, c *calls, writes []lunad.StageWrite) (lunad.StageResponse, error) {
	out.Visit = req.Visit
	out.Memory = mem.Snapshot()
	if !req.Replay {
		a.mems.put(req.RunID, mem, a.o.Clock())
	}
	b, err := json.Marshal(out)
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: err}
	}
	resp := lunad.StageResponse{Status: "ok", Output: b, Files: c.files()}
	if out.Outcome == outDone || out.Outcome == outHandoff {
		resp.Writes = writes
		for _, a := range out.Acks {
			resp.Acks = append(resp.Acks, lunad.StageAck{Ref: a.ID, Symbol: a.Symbol})
		}
	}
	if len(resp.Writes) > 0 || len(resp.Acks) > 0 {
		resp.Agent = out.Role
		resp.Trailers = map[string]string{"Model": out.Model, "Prompt": out.Prompt}
	}
	return resp, nil
}

// guarded is the outcome of an error of the memory's guards or a
// provider: budget_exhausted, stopped or failed.
func guarded(err error) string {
	switch {
	case errors.Is(err, memory.ErrBudget):
		return outBudget
	case errors.Is(err, memory.ErrBreakerOpen), errors.Is(err, memory.ErrLoop), errors.Is(err, memory.ErrStall):
		return outStopped
	}
	return outFailed
}

// supervise is the supervisor's stage.
type supervise struct{ a *Agents }

func (s supervise) Version() string {
	id, _ := supervisor.Prompt()
	return id + "+" + stage.ModelName(s.a.o.Providers, supervisor.Role)
}

func (s supervise) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	a := s.a
	c, mem, _, err := a.begin(req)
	if err != nil {
		return lunad.StageResponse{}, err
	}
	out := output{Role: supervisor.Role}
	out.Prompt, _ = supervisor.Prompt()
	in, err := a.input(ctx, c.src, req)
	if err != nil {
		out.Outcome, out.Reason = outFailed, err.Error()
		return a.respond(req, mem, out, c, nil)
	}
	m, _, err := a.provider(c, supervisor.Role)
	if err != nil {
		out.Outcome, out.Reason = outFailed, err.Error()
		return a.respond(req, mem, out, c, nil)
	}
	dec, err := supervisor.Decide(ctx, supervisor.Deps{Provider: m.Provider, Model: m.Name, Seed: m.Seed, Memory: mem, Retry: a.retry(c)}, in)
	out.Model = dec.Model
	switch {
	case ctx.Err() != nil:
		return lunad.StageResponse{}, ctx.Err()
	case err != nil:
		out.Outcome, out.Reason = guarded(err), err.Error()
	case dec.Question != "":
		out.Outcome, out.Question, out.Reason = outQuestion, dec.Question, dec.Reason
	default:
		out.Outcome, out.Route, out.Next = outRoute, dec.Route, dec.Route.Worker
	}
	if req.Params[lunad.AskParamDryRun] == "true" && out.Outcome == outRoute {
		sp := prompt(supervisor.Role, out.Prompt, dec.Request)
		sp.Tokens = window.TokenizerFor(m.Name).Count(sp.System + sp.User)
		out.Prompts = []lunad.AskPrompt{sp}
		w, err := a.dryRun(ctx, req, mem, c, *dec.Route)
		if err != nil {
			out.Outcome, out.Reason = outFailed, err.Error()
		} else {
			out.Outcome, out.Next = outDryRun, ""
			out.Prompts = append(out.Prompts, w)
		}
	}
	return a.respond(req, mem, out, c, nil)
}

// input is the supervisor's input: the request, the active artifact's ID
// (the param may name a path) and the artifacts' metadata.
func (a *Agents) input(ctx context.Context, src *source, req lunad.StageRequest) (supervisor.Input, error) {
	in := supervisor.Input{Request: strings.TrimSpace(req.Params[lunad.AskParamRequest])}
	if in.Request == "" {
		return in, fmt.Errorf("%w: the ask has no request: give the run param %q", lunad.ErrInvalid, lunad.AskParamRequest)
	}
	if ref := req.Params[lunad.AskParamArtifact]; ref != "" {
		art, err := src.Artifact(ctx, ref)
		if err != nil {
			return in, fmt.Errorf("the active artifact %q: %w", ref, err)
		}
		in.Active = art.ID
	}
	arts, err := src.List(ctx)
	if err != nil {
		return in, err
	}
	in.Artifacts = arts
	refs, err := src.Stale(ctx)
	if err != nil {
		return in, err
	}
	in.Stale = staleTargets(refs)
	return in, nil
}

// staleTargets maps each artifact with stale or broken references to the
// paths they point at, sorted.
func staleTargets(refs []lunad.Reference) map[string][]string {
	out := map[string][]string{}
	for _, r := range refs {
		to := r.Text
		if r.To != nil {
			to = r.To.Path
		}
		if !slices.Contains(out[r.From.ID], to) {
			out[r.From.ID] = append(out[r.From.ID], to)
		}
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

func prompt(role, id string, req llm.Request) lunad.AskPrompt {
	p := lunad.AskPrompt{Role: role, Prompt: id, System: req.System}
	if len(req.Messages) > 0 {
		p.User = req.Messages[0].Content
	}
	p.Tools = []string{}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, t.Name)
	}
	return p
}

// dryRun compiles the routed worker's first request without calling it.
func (a *Agents) dryRun(ctx context.Context, req lunad.StageRequest, mem *memory.Memory, c *calls, r lunad.AskRoute) (lunad.AskPrompt, error) {
	o, _, err := a.workerOptions(ctx, req, mem, c, r.Worker, &r, a.overlay(c, &r))
	if err != nil {
		return lunad.AskPrompt{}, err
	}
	wreq, p, err := worker.Request(ctx, o, worker.Task{Request: req.Params[lunad.AskParamRequest], Route: &r})
	if err != nil {
		return lunad.AskPrompt{}, err
	}
	ap := prompt(r.Worker, p.ID(), wreq)
	ap.Tokens = window.TokenizerFor(o.Model.Name).Count(wreq.System + ap.User)
	return ap, nil
}
