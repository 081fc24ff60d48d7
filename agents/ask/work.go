package ask

import (
	"context"
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/stage"
	"github.com/lunad/lunad/agents/supervisor"
	"github.com/lunad/lunad/agents/tools"
	"github.com/lunad/lunad/agents/window"
	"github.com/lunad/lunad/agents/worker"
)

// work is a worker's stage.
type work struct {
	a    *Agents
	role string
}

func (w work) Version() string {
	p, err := worker.PromptFor(w.role)
	if err != nil {
		return "unknown"
	}
	return p.ID() + "+" + stage.ModelName(w.a.o.Providers, w.role)
}

// workerOptions are role's worker options for a stage: its model, tools
// over ov, the memory and its context compilation.
func (a *Agents) workerOptions(ctx context.Context, req lunad.StageRequest, mem *memory.Memory, c *calls, role string, r *lunad.AskRoute, ov *tools.Overlay) (worker.Options, *tools.Set, error) {
	m, cfg, err := a.provider(c, role)
	if err != nil {
		return worker.Options{}, nil, err
	}
	set, err := tools.For(role, ov)
	if err != nil {
		return worker.Options{}, nil, err
	}
	tok := window.TokenizerFor(m.Name)
	in := window.Input{Deps: r.ReadDeps, Budget: a.o.ContextTokens}
	o := worker.Options{Role: role, Model: m, Tools: set, Memory: mem, Retry: a.retry(c),
		Compile: func(ctx context.Context) (string, error) {
			in := in
			in.Active, in.Mode = a.active(ctx, ov, role, r)
			cc, err := window.Compile(ctx, ov, tok, in)
			return cc.Text, err
		}}
	if fb := cfg.Fallback; fb != "" {
		// [agents.ROLE] fallback names the role whose model to call while
		// this one's breaker is open.
		o.Fallback = func(string) (worker.Model, bool) {
			m, _, err := a.provider(c, fb)
			if err != nil {
				a.o.Logger.Warn("ask: the fallback model cannot be made", "role", role, "fallback", fb, "err", err)
				return worker.Model{}, false
			}
			if m.Provider.Name() == o.Model.Provider.Name() {
				// The same kind of provider (another base URL): a breaker
				// of its own.
				m.Provider = renamed{m.Provider, m.Provider.Name() + " (fallback " + fb + ")"}
			}
			return m, true
		}
	}
	return o, set, nil
}

// active is the artifact role works on, and its mode: the route's target,
// else the new artifact once created; read-only for the reviewer and for
// an artifact the other worker writes (tools.RoleFor its path).
func (a *Agents) active(ctx context.Context, ov *tools.Overlay, role string, r *lunad.AskRoute) (string, string) {
	id := ""
	switch {
	case r.Target != nil:
		id = *r.Target
	case r.NewArtifact != nil:
		if _, err := ov.Artifact(ctx, r.NewArtifact.Path); err == nil {
			id = r.NewArtifact.Path
		}
	}
	if id == "" {
		return "", ""
	}
	art, err := ov.Artifact(ctx, id)
	if err != nil || role == tools.Reviewer || tools.RoleFor(art.Path) != role {
		return id, window.ModeRead
	}
	return id, window.ModeWrite
}

func (w work) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	a := w.a
	c, mem, prev, err := a.begin(req)
	if err != nil {
		return lunad.StageResponse{}, err
	}
	out := output{Role: w.role}
	sup, ok := req.Outputs["supervise"]
	if !ok || prev == nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("%w: stage %s runs after the supervisor's route, and there is none", lunad.ErrInvalid, req.Stage)}
	}
	so, err := decodeOutput(sup)
	if err != nil || so.Route == nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("%w: the supervisor's output has no route", lunad.ErrInvalid)}
	}
	task := worker.Task{Request: req.Params[lunad.AskParamRequest], Route: so.Route}
	from, reason := supervisor.Role, so.Route.Reason
	if prev.Role != supervisor.Role {
		from, reason = prev.Role, prev.Summary
		task.From, task.Reason = from, reason
	}
	if err := mem.Enter(from, w.role, reason); err != nil {
		out.Outcome, out.Reason = guarded(err), err.Error()
		return a.respond(req, mem, out, c, nil)
	}
	ov := a.overlay(c, so.Route)
	o, set, err := a.workerOptions(ctx, req, mem, c, w.role, so.Route, ov)
	if err != nil {
		out.Outcome, out.Reason = outFailed, err.Error()
		return a.respond(req, mem, out, c, nil)
	}
	set.Scope(scope(so.Route, prev)...)
	if a.o.Writes != nil {
		set.Guard(a.o.Writes())
	}
	res, err := worker.Run(ctx, o, task)
	if err != nil {
		return lunad.StageResponse{}, err
	}
	out.Model, out.Prompt, out.Summary, out.Reason, out.Skipped = res.Model, res.Prompt, res.Summary, res.Reason, res.Skipped
	switch res.Status {
	case worker.Finished:
		out.Outcome = outDone
	case worker.HandedOff:
		out.Outcome, out.Next, out.Target = outHandoff, res.Handoff.To, res.Handoff.Target
	case worker.BudgetExhausted:
		out.Outcome = outBudget
	case worker.Stopped:
		out.Outcome = outStopped
	default:
		out.Outcome = outFailed
	}
	for _, ch := range ov.Changes() {
		out.Changes = append(out.Changes, change{Path: ch.Artifact.Path, Title: ch.Artifact.Title, Created: ch.Created, Added: ch.Added, Removed: ch.Removed})
	}
	if out.Outcome != outDone && out.Outcome != outHandoff {
		out.Changes = nil // nothing of a stopped stage is written
	}
	out.Findings, out.Acks = set.Findings(), set.Acks()
	if out.Outcome == outHandoff {
		// The next worker enters from this one.
	} else if err := mem.Leave(w.role); err != nil {
		a.o.Logger.Warn("ask: the call graph", "run", req.RunID, "err", err)
	}
	return a.respond(req, mem, out, c, ov.Writes())
}

// scope is what a worker's stage may change besides the artifacts it
// creates: the route's target, and the artifact the handoff it comes from
// names.
func scope(r *lunad.AskRoute, prev *output) []string {
	var refs []string
	if r.Target != nil {
		refs = append(refs, *r.Target)
	}
	if prev.Outcome == outHandoff && prev.Target != "" {
		refs = append(refs, prev.Target)
	}
	return refs
}

// overlay is a worker stage's overlay over the workspace it reads, with
// the route's new artifact planned (its title and type).
func (a *Agents) overlay(c *calls, r *lunad.AskRoute) *tools.Overlay {
	ov := tools.NewOverlay(c.src, a.o.TypeForPath)
	if r.NewArtifact != nil {
		ov.Plan(*r.NewArtifact)
	}
	return ov
}

// renamed is a provider under another name: the fallback's breaker is
// not the provider's it stands in for.
type renamed struct {
	llm.Provider
	name string
}

func (r renamed) Name() string { return r.name }
