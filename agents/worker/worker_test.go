package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/tools"
	"github.com/lunad/lunad/agents/window"
	"github.com/lunad/lunad/agents/worker"
	"github.com/lunad/lunad/internal/wstest"
)

// script is a provider that answers with its turns in order and keeps the
// requests it got.
type script struct {
	name  string
	mu    sync.Mutex
	turns []func(llm.Request) (llm.Response, error)
	reqs  []llm.Request
}

func (s *script) Name() string { return s.name }

func (s *script) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	if len(s.reqs) > len(s.turns) {
		return llm.Response{}, &llm.Error{Provider: s.name, Kind: llm.Permanent, Err: errors.New("script exhausted")}
	}
	return s.turns[len(s.reqs)-1](req)
}

func tool(name string, args any) func(llm.Request) (llm.Response, error) {
	b, _ := json.Marshal(args)
	return func(llm.Request) (llm.Response, error) {
		return llm.Response{Model: "m1", Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}, StopReason: "tool_calls",
			Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call", Name: name, Arguments: b}}}}, nil
	}
}

func say(text string) func(llm.Request) (llm.Response, error) {
	return func(llm.Request) (llm.Response, error) {
		return llm.Response{Model: "m1", Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}, Message: llm.Message{Role: llm.RoleAssistant, Content: text}}, nil
	}
}

func down(llm.Request) (llm.Response, error) {
	return llm.Response{}, &llm.Error{Provider: "primary", Kind: llm.Transient, Status: 503, Err: errors.New("503 service unavailable")}
}

const article = "# Config\n\nFirst paragraph.\n\nSecond paragraph.\n"

type env struct {
	ov    *tools.Overlay
	code  string
	prose string
	mem   *memory.Memory

	mu    sync.Mutex
	slept []time.Duration // the retries' backoff waits
}

// sleep records a backoff wait instead of waiting.
func (e *env) sleep(ctx context.Context, d time.Duration) error {
	e.mu.Lock()
	e.slept = append(e.slept, d)
	e.mu.Unlock()
	return ctx.Err()
}

func newEnv(t *testing.T, mo memory.Options) *env {
	s := wstest.NewService(t)
	e := &env{code: wstest.Create(t, s, "src/config.py", wstest.Src), prose: wstest.Create(t, s, "docs/config.md", article)}
	e.ov = tools.NewOverlay(s, nil)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mo.Clock = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	e.mem = memory.New("run1", mo)
	return e
}

func (e *env) options(t *testing.T, role, active string, p llm.Provider) worker.Options {
	set, err := tools.For(role, e.ov)
	if err != nil {
		t.Fatal(err)
	}
	mode := window.ModeWrite
	if role == tools.Reviewer {
		mode = window.ModeRead
	}
	return worker.Options{Role: role, Model: worker.Model{Provider: p, Name: "m1"}, Tools: set, Memory: e.mem,
		Retry: llm.RetryOptions{Base: 100 * time.Millisecond, Sleep: e.sleep, Jitter: func(d time.Duration) time.Duration { return d }},
		Compile: func(ctx context.Context) (string, error) {
			c, err := window.Compile(ctx, e.ov, window.TokenizerFor("m1"), window.Input{Active: active, Mode: mode, Budget: 4000})
			return c.Text, err
		}}
}

func edit(id, search, replace string) map[string]any {
	return map[string]any{"id": id, "blocks": []map[string]string{{"search": search, "replace": replace}}}
}

func TestWorker(t *testing.T) {
	ctx := context.Background()
	t.Run("finish after an edit", func(t *testing.T) {
		e := newEnv(t, memory.Options{})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){
			tool(tools.EditArtifact, edit(e.prose, "Second paragraph.\n", "Second paragraph, on JSON.\n")),
			tool(tools.Finish, map[string]string{"summary": "mentioned JSON"}),
		}}
		out, err := worker.Run(ctx, e.options(t, tools.Writer, e.prose, p), worker.Task{Request: "change the second paragraph to mention JSON"})
		if err != nil || out.Status != worker.Finished || out.Summary != "mentioned JSON" || out.Prompt != "writer@1" || out.Steps != 2 {
			t.Fatalf("%+v %v", out, err)
		}
		if w := e.ov.Writes(); len(w) != 1 || w[0].Content != "# Config\n\nFirst paragraph.\n\nSecond paragraph, on JSON.\n" {
			t.Errorf("writes %+v", w)
		}
		// The second call's context shows the staged edit.
		if !strings.Contains(p.reqs[1].Messages[0].Content, "Second paragraph, on JSON.") {
			t.Errorf("the context was not recompiled after the edit:\n%s", p.reqs[1].Messages[0].Content)
		}
		if m := p.reqs[1].Messages; len(m) != 3 || m[2].Role != llm.RoleTool || m[2].IsError {
			t.Errorf("tool result not sent back: %+v", m)
		}
	})
	t.Run("three failed attempts at one change stop it", func(t *testing.T) {
		e := newEnv(t, memory.Options{})
		bad := tool(tools.EditArtifact, edit(e.prose, "Third paragraph.\n", "x\n"))
		bad2 := tool(tools.EditArtifact, edit(e.prose, "Fourth paragraph.\n", "x\n"))
		good := tool(tools.EditArtifact, edit(e.prose, "First paragraph.\n", "Intro.\n"))
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){good, bad, bad2, bad, tool(tools.Finish, map[string]string{"summary": "never"})}}
		out, _ := worker.Run(ctx, e.options(t, tools.Writer, e.prose, p), worker.Task{Request: "r"})
		if out.Status != worker.Stopped || !strings.Contains(out.Reason, "the writer failed 3 times to change "+e.prose) || !strings.Contains(out.Reason, "SEARCH text not found") {
			t.Fatalf("%+v", out)
		}
		if len(p.reqs) != 4 {
			t.Errorf("%d calls, want 4", len(p.reqs))
		}
		// The hint went back to the model each time.
		if last := p.reqs[2].Messages[len(p.reqs[2].Messages)-1]; !last.IsError || !strings.Contains(last.Content, "closest line") {
			t.Errorf("hint not sent back: %+v", last)
		}
	})
	t.Run("a handoff returns control", func(t *testing.T) {
		e := newEnv(t, memory.Options{})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){
			tool(tools.EditArtifact, edit(e.code, "def main():\n", "def run():\n")),
			tool(tools.Handoff, map[string]string{"to": "coder", "reason": "the code must change"}),
		}}
		out, _ := worker.Run(ctx, e.options(t, tools.Writer, e.prose, p), worker.Task{Request: "rename main"})
		if out.Status != worker.HandedOff || out.Handoff == nil || out.Handoff.To != "coder" || out.Summary != "the code must change" {
			t.Fatalf("%+v", out)
		}
		if first := p.reqs[1].Messages[2]; !first.IsError || !strings.Contains(first.Content, "hand off to the coder") {
			t.Errorf("refusal: %+v", first)
		}
	})
	t.Run("budget exhausted", func(t *testing.T) {
		e := newEnv(t, memory.Options{Budget: memory.Budget{Calls: 2}})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){
			tool(tools.ReadArtifact, map[string]string{"id": e.code}), tool(tools.ListArtifacts, map[string]string{}), tool(tools.Finish, map[string]string{"summary": "s"}),
		}}
		out, _ := worker.Run(ctx, e.options(t, tools.Coder, e.code, p), worker.Task{Request: "r"})
		if out.Status != worker.BudgetExhausted || !strings.Contains(out.Reason, "calls budget is spent") || len(p.reqs) != 2 {
			t.Fatalf("%+v after %d calls", out, len(p.reqs))
		}
	})
	t.Run("monologue stalls", func(t *testing.T) {
		e := newEnv(t, memory.Options{})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){say("I will"), say("I will now"), say("Soon")}}
		out, _ := worker.Run(ctx, e.options(t, tools.Coder, e.code, p), worker.Task{Request: "r"})
		if out.Status != worker.Stopped || !strings.Contains(out.Reason, "stalled (monologue)") || len(p.reqs) != 3 {
			t.Fatalf("%+v", out)
		}
	})
	t.Run("a provider that is down opens its breaker: no fallback stops", func(t *testing.T) {
		e := newEnv(t, memory.Options{Breaker: memory.BreakerOptions{Failures: 2}})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){down, down, down}}
		out, _ := worker.Run(ctx, e.options(t, tools.Coder, e.code, p), worker.Task{Request: "r"})
		if out.Status != worker.Stopped || !strings.Contains(out.Reason, "provider primary failed 2 times in a row; its circuit breaker is open") || len(p.reqs) != 2 {
			t.Fatalf("%+v after %d calls", out, len(p.reqs))
		}
	})
	t.Run("a provider that is down opens its breaker: the fallback answers", func(t *testing.T) {
		e := newEnv(t, memory.Options{Breaker: memory.BreakerOptions{Failures: 2}})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){down, down, down}}
		backup := &script{name: "backup", turns: []func(llm.Request) (llm.Response, error){tool(tools.Finish, map[string]string{"summary": "from the backup"})}}
		o := e.options(t, tools.Coder, e.code, p)
		o.Fallback = func(string) (worker.Model, bool) { return worker.Model{Provider: backup, Name: "m2"}, true }
		out, _ := worker.Run(ctx, o, worker.Task{Request: "r"})
		if out.Status != worker.Finished || out.Summary != "from the backup" || len(p.reqs) != 2 || backup.reqs[0].Model != "m2" || out.Model != "m1" && out.Model != "m2" {
			t.Fatalf("%+v (primary called %d times)", out, len(p.reqs))
		}
		if st := e.mem.BreakerState("primary"); st != "open" {
			t.Errorf("primary's breaker is %s", st)
		}
	})
	t.Run("a permanent failure fails at once", func(t *testing.T) {
		e := newEnv(t, memory.Options{})
		p := &script{name: "primary"}
		out, _ := worker.Run(ctx, e.options(t, tools.Coder, e.code, p), worker.Task{Request: "r"})
		if out.Status != worker.Failed || !strings.Contains(out.Reason, "script exhausted") || len(p.reqs) != 1 {
			t.Fatalf("%+v after %d calls", out, len(p.reqs))
		}
	})
}

// TestPrompts: each role's system prompt is its file alone — nothing of
// another role's reaches it — and carries no artifact content.
func TestPrompts(t *testing.T) {
	e := newEnv(t, memory.Options{})
	sys := map[string]string{}
	for _, role := range tools.Roles {
		p := &script{name: "primary"}
		req, pr, err := worker.Request(context.Background(), e.options(t, role, e.prose, p), worker.Task{Request: "r"})
		if err != nil {
			t.Fatal(err)
		}
		if pr.ID() != role+"@1" || req.System != pr.Text || !strings.HasPrefix(req.System, "You are the "+role+" ") {
			t.Errorf("%s: prompt %s, system %.60q", role, pr.ID(), req.System)
		}
		if strings.Contains(req.System, "First paragraph") || !strings.Contains(req.Messages[0].Content, `mode="`) {
			t.Errorf("%s: the artifacts are not in the user message alone", role)
		}
		sys[role] = req.System
	}
	for _, a := range tools.Roles {
		for _, b := range tools.Roles {
			if a == b {
				continue
			}
			for _, line := range strings.Split(sys[b], "\n") {
				if strings.TrimSpace(line) != "" && strings.Contains(sys[a], line) {
					t.Errorf("the %s's prompt carries the %s's line %q", a, b, line)
				}
			}
			if strings.Contains(sys[a], "You are the "+b) {
				t.Errorf("the %s's prompt names the %s's role", a, b)
			}
		}
	}
	if _, err := worker.PromptFor("poet"); err == nil {
		t.Error("a prompt for an unknown role")
	}
}
