package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/guard"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/tools"
)

// Defaults of Options.
const (
	DefaultMaxSteps = 24
	// MaxFailures is the failed attempts at one change after which the
	// worker stops.
	MaxFailures = 3
)

// Statuses of an Outcome.
const (
	Finished        = "finished"         // the model called finish
	HandedOff       = "handoff"          // the model handed off (Outcome.Handoff)
	Stopped         = "stopped"          // a guard stopped it (Reason)
	BudgetExhausted = "budget_exhausted" // a budget ran out (Reason)
	Failed          = "failed"           // the provider failed (Reason)
)

// Model is one provider with the settings of its calls.
type Model struct {
	Provider    llm.Provider
	Name        string // the model
	Temperature *float64
	Seed        *int64
	MaxTokens   int
}

// Compile renders the context of a model call: the tagged blocks of the
// artifacts (package window over the stage's overlay). It is called before
// every model call, so the model sees its own staged changes.
type Compile func(ctx context.Context) (string, error)

// Options are what a worker runs with.
type Options struct {
	Role   string
	Model  Model
	Tools  *tools.Set
	Memory *memory.Memory
	// Retry is lunad's retry policy around each model call; the memory's
	// guards are inside it, so every attempt is admitted and counted (a
	// refusal is not retried). Zero fields take llm.Retry's defaults.
	Retry   llm.RetryOptions
	Compile Compile
	// Fallback gives the model to call while Model's breaker is open,
	// given the fallback the memory names ("" if none); nil, false, or a
	// model of the same provider name: none, the worker stops.
	Fallback func(name string) (Model, bool)
	MaxSteps int // default DefaultMaxSteps
}

// Task is what the worker is asked.
type Task struct {
	Request string // the user's request, as typed
	Route   *lunad.AskRoute
	// From and Reason say who handed the request over and why ("" for
	// the supervisor's route).
	From, Reason string
}

// Outcome is how a worker's turn ended.
type Outcome struct {
	Status  string         `json:"status"`
	Summary string         `json:"summary,omitempty"`
	Reason  string         `json:"reason,omitempty"`
	Handoff *tools.Control `json:"handoff,omitempty"`
	Model   string         `json:"model"`  // the model that answered last
	Prompt  string         `json:"prompt"` // name@version
	Steps   int            `json:"steps"`
	// Skipped are the tool calls not run because they came after a
	// finish or a handoff in the same answer (tools.Batch), as
	// "NAME ARGS".
	Skipped []string `json:"skipped,omitempty"`
}

// Request is the first model request of a task (what --dry-run shows):
// the role's system prompt, the user message with the compiled context,
// and the role's tools.
func Request(ctx context.Context, o Options, t Task) (llm.Request, Prompt, error) {
	p, err := PromptFor(o.Role)
	if err != nil {
		return llm.Request{}, p, err
	}
	text, err := o.Compile(ctx)
	if err != nil {
		return llm.Request{}, p, fmt.Errorf("compiling the %s's context: %w", o.Role, err)
	}
	return llm.Request{
		Model: o.Model.Name, System: p.Text, Tools: o.Tools.Tools(),
		Messages:    []llm.Message{{Role: llm.RoleUser, Content: userMessage(t, text)}},
		Temperature: o.Model.Temperature, Seed: o.Model.Seed, MaxTokens: o.Model.MaxTokens,
	}, p, nil
}

// userMessage is the task and the context, instructions outside the
// artifact blocks.
func userMessage(t Task, context string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Request: %s\n", t.Request)
	if t.Route != nil {
		fmt.Fprintf(&b, "Intent: %s", t.Route.Intent)
		if t.Route.Target != nil {
			fmt.Fprintf(&b, "; target: %s", *t.Route.Target)
		}
		if na := t.Route.NewArtifact; na != nil {
			fmt.Fprintf(&b, "; new artifact: %q (%s) at %s", na.Title, na.Type, na.Path)
		}
		b.WriteString("\n")
	}
	if t.From != "" {
		fmt.Fprintf(&b, "Handed over by the %s: %s\n", t.From, t.Reason)
	}
	b.WriteString("\n")
	b.WriteString(context)
	return b.String()
}

// Run runs the worker on t until it finishes, hands off or is stopped.
// Every way it ends is an Outcome; the error is only ctx's.
func Run(ctx context.Context, o Options, t Task) (Outcome, error) {
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	req, p, err := Request(ctx, o, t)
	out := Outcome{Prompt: p.ID(), Model: o.Model.Name}
	if err != nil {
		out.Status, out.Reason = Failed, err.Error()
		return out, nil
	}
	model := o.Model
	failures := map[string]int{}
	for out.Steps < o.MaxSteps {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if out.Steps > 0 {
			text, err := o.Compile(ctx)
			if err != nil {
				out.Status, out.Reason = Failed, fmt.Sprintf("compiling the %s's context: %v", o.Role, err)
				return out, nil
			}
			req.Messages[0].Content = userMessage(t, text)
		}
		out.Steps++
		resp, stop := call(ctx, o, &model, req)
		if stop != nil {
			out.Status, out.Reason = stop.status, stop.reason
			return out, ctx.Err()
		}
		out.Model = resp.Model
		if out.Model == "" {
			out.Model = model.Name
		}
		resp.Message.Role = llm.RoleAssistant
		req.Messages = append(req.Messages, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			if err := o.Memory.Step(o.Role, memory.Step{}); err != nil {
				out.Status, out.Reason = Stopped, err.Error()
				return out, nil
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Content: "Act through your tools: change the artifacts with them, and call finish (with a summary) when the request is done."})
			continue
		}
		var control *tools.Control
		run, skipped, ends := tools.Batch(resp.Message.ToolCalls)
		for _, c := range run {
			r := o.Tools.Call(ctx, c)
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: r.Content, IsError: r.IsError})
			// An answer that finishes (or hands off) is not a stall,
			// whatever it repeats on the way.
			if err := o.Memory.Step(o.Role, step(c, r)); err != nil && !(ends && errors.Is(err, memory.ErrStall)) {
				out.Status, out.Reason = Stopped, err.Error()
				return out, nil
			}
			if r.Change != "" {
				if !r.IsError {
					failures[r.Change] = 0
				} else if failures[r.Change]++; failures[r.Change] >= MaxFailures {
					out.Status = Stopped
					out.Reason = fmt.Sprintf("the %s failed %d times to change %s; the last error: %s", o.Role, MaxFailures, r.Change, r.Content)
					return out, nil
				}
			}
			if r.Control != nil && control == nil {
				control = r.Control
			}
		}
		for _, c := range skipped {
			out.Skipped = append(out.Skipped, clip(c.Name+" "+canonical(c.Arguments), 200))
			r := tools.Skipped(run[len(run)-1].Name)
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: r.Content, IsError: r.IsError})
		}
		switch {
		case control == nil:
		case control.Kind == "finish":
			out.Status, out.Summary = Finished, control.Summary
			return out, nil
		default:
			out.Status, out.Handoff, out.Summary = HandedOff, control, control.Reason
			return out, nil
		}
	}
	out.Status = Stopped
	out.Reason = fmt.Sprintf("the %s took %d steps without finishing (the step limit)", o.Role, o.MaxSteps)
	return out, nil
}

type stop struct{ status, reason string }

// maxSwitches bounds the switches to a fallback model within one call.
const maxSwitches = 4

// call makes one model call: the model behind lunad's retry policy
// (o.Retry) with the memory's guards inside it, so every attempt is
// admitted and counted by the memory and none is retried here. When the
// model's breaker opens, the fallback is called; without one the worker
// stops with the breaker's reason. A spent budget ends the worker
// budget_exhausted, any other failure failed.
func call(ctx context.Context, o Options, model *Model, req llm.Request) (llm.Response, *stop) {
	for range maxSwitches {
		req.Model, req.Temperature, req.Seed, req.MaxTokens = model.Name, model.Temperature, model.Seed, model.MaxTokens
		resp, err := guard.Retried(model.Provider, o.Memory, o.Role, o.Retry).Chat(ctx, req)
		if err == nil {
			return resp, nil
		}
		refused := guard.Refused(err)
		var open *memory.BreakerOpenError
		switch {
		case refused == nil && errors.As(err, new(*llm.CutError)):
			return resp, &stop{Failed, err.Error()} // it says what happened and what to do
		case refused == nil:
			return resp, &stop{Failed, fmt.Sprintf("the %s's model call failed: %v", o.Role, err)}
		case errors.Is(err, memory.ErrBudget):
			return resp, &stop{BudgetExhausted, refused.Error()}
		case !errors.As(err, &open):
			return resp, &stop{Stopped, refused.Error()}
		case o.Fallback == nil:
			return resp, &stop{Stopped, refused.Error()}
		}
		fb, ok := o.Fallback(open.Fallback)
		if !ok || fb.Provider.Name() == model.Provider.Name() {
			return resp, &stop{Stopped, refused.Error() + " (and no fallback model is configured for the " + o.Role + ")"}
		}
		*model = fb
	}
	return llm.Response{}, &stop{Stopped, fmt.Sprintf("the %s switched to a fallback model %d times in one call", o.Role, maxSwitches)}
}

// step is a tool call as the stall detector sees it.
func step(c llm.ToolCall, r tools.Result) memory.Step {
	s := memory.Step{Tool: c.Name, Args: canonical(c.Arguments), Observation: r.Content, Failed: r.IsError}
	if !r.IsError {
		s.Wrote = r.Progress && r.Change != ""
		if c.Name == tools.ReadArtifact || c.Name == tools.FindReferences || c.Name == tools.ListArtifacts {
			s.Read = c.Name + " " + s.Args + " " + lunad.FirstLine(r.Content)
		}
		if r.Progress && r.Change == "" {
			s.Read = c.Name + " " + s.Args // a finding: new information
		}
	}
	return s
}

// canonical is JSON arguments with keys sorted (invalid JSON as written).
func canonical(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// clip is s cut to n bytes at a rune boundary, "…" marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
