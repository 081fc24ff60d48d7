package goal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/window"
)

// tokenizer counts tokens for the goal's model.
func (a *Agents) tokenizer() window.Tokenizer {
	_, cfg, _ := a.o.Providers(Role)
	return window.TokenizerFor(cfg.Model)
}

// act is one step: the state compiled, one model call, one action
// checked by the policy and done, its observation recorded, and the stop
// criteria.
func (a *Agents) act(ctx context.Context, v *visit) error {
	st := &v.st
	if st.Steps >= st.MaxSteps {
		v.end(outMaxSteps, fmt.Sprintf("the goal took %d steps, its limit (--max-steps)", st.Steps))
		return nil
	}
	id, system := Prompt()
	resp, ok := v.chat(ctx, llm.Request{System: system, Tools: Tools(),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: v.compile(a.tokenizer())}}})
	if !ok {
		return ctx.Err()
	}
	step := st.Steps + 1
	var call *llm.ToolCall
	if calls := resp.Message.ToolCalls; len(calls) > 0 {
		call = &calls[0]
	}
	x := &executor{a: a, ctx: ctx, dir: v.req.Dir, step: step, dry: v.p.dryRun, tests: v.p.tests}
	e, err := recorded(v, func() effect { return x.do(call) })
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	gs := lunad.GoalStep{Step: step, Action: lunad.GoalAction{Tool: "", Args: json.RawMessage(`{}`)}, Observation: e.Observation}
	if call != nil {
		gs.Action = lunad.GoalAction{Tool: call.Name, Args: argsJSON(call.Arguments)}
		if extra := resp.Message.ToolCalls[1:]; len(extra) > 0 {
			var names []string
			for _, c := range extra {
				names = append(names, c.Name)
			}
			gs.Observation.Output += fmt.Sprintf("\nnote: one action a turn: only the first tool call (%s) was done, not the %d after it (%s)", call.Name, len(extra), strings.Join(names, ", "))
		}
	} else if t := strings.TrimSpace(resp.Message.Content); t != "" {
		gs.Observation.Output += "\n(you wrote: " + clipLine(t, 500) + ")"
	}
	trace, _ := json.MarshalIndent(gs, "", " ")
	v.files[fmt.Sprintf("trace/%04d.json", step)] = string(trace) + "\n"

	st.Steps = step
	st.record(gs)
	st.Changes = append(st.Changes, e.Changes...)
	st.Commands = append(st.Commands, e.Commands...)
	if e.Denial != nil {
		st.Denials = append(st.Denials, *e.Denial)
	}
	for _, n := range e.Notes {
		st.note(fmt.Sprintf("step %d: %s", step, n))
	}
	if e.Warning != "" {
		st.Sandbox = e.Warning
	}
	if e.Observation.Tests != nil {
		sum := *e.Observation.Tests
		st.Tests, st.TestsStep = &sum, step
	}
	failed := e.Observation.Status == statusError || e.Observation.Status == statusDenied
	if failed {
		st.Failures++
	} else {
		st.Failures = 0
	}
	if len(e.Writes) > 0 {
		st.Mutated = true
		v.writes = e.Writes
		v.trailers = map[string]string{"Action": gs.Action.Tool, "Model": trailer(st.Model), "Prompt": id}
	}
	ms := memory.Step{}
	if call != nil {
		ms = memory.Step{Tool: call.Name, Args: llm.CanonicalArgs(call.Arguments), Observation: e.Observation.Output, Failed: failed, Wrote: len(e.Writes) > 0, Read: e.Read}
	}
	stall := v.mem.Step(Role, ms)
	switch {
	case e.Finished:
		st.Summary = e.Summary
		v.end(outFinished, "")
	case stall != nil:
		v.end(outStopped, stall.Error())
	case st.Failures >= a.o.MaxFailures:
		v.end(outFailures, fmt.Sprintf("%d actions in a row failed; the last, step %d (%s): %s", st.Failures, step, gs.Action.Tool, clipLine(lunad.FirstLine(strings.TrimSpace(e.Observation.Output)), 300)))
	case st.Steps >= st.MaxSteps && !(st.Mutated && st.Tested):
		v.end(outMaxSteps, fmt.Sprintf("the goal took %d steps, its limit (--max-steps)", st.Steps))
	}
	return nil
}

// argsJSON is a tool call's arguments as JSON (as a string when the
// model wrote something that is not).
func argsJSON(raw json.RawMessage) json.RawMessage {
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// trailer is s as a one-line trailer value.
func trailer(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "unknown"
	}
	return clipLine(s, 200)
}
