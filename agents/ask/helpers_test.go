package ask_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/workspace"
)

// turn is one scripted model answer, given the request.
type turn func(llm.Request) llm.Response

// model is a scripted provider: its turns in order; the requests it got.
type model struct {
	name  string
	mu    sync.Mutex
	turns []turn
	reqs  []llm.Request
	// block, if set, is called instead of answering (outside the lock).
	block func(context.Context) error
	// fail is the number of calls still to fail with a transient 503
	// before the turns are answered; failed counts those that did.
	fail, failed int
}

func (m *model) Name() string { return m.name }

func (m *model) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if m.block != nil {
		return llm.Response{}, &llm.Error{Provider: m.name, Kind: llm.Permanent, Err: m.block(ctx)}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail > 0 {
		m.fail--
		m.failed++
		return llm.Response{}, &llm.Error{Provider: m.name, Kind: llm.Transient, Status: 503, Err: errors.New("overloaded")}
	}
	m.reqs = append(m.reqs, req)
	if len(m.reqs) > len(m.turns) {
		return llm.Response{}, &llm.Error{Provider: m.name, Kind: llm.Permanent, Err: fmt.Errorf("the script has %d turns, call %d", len(m.turns), len(m.reqs))}
	}
	r := m.turns[len(m.reqs)-1](req)
	r.Model = "m-" + m.name
	r.Usage = llm.Usage{InputTokens: 100, OutputTokens: 10}
	return r, nil
}

func (m *model) add(t ...turn) { m.mu.Lock(); m.turns = append(m.turns, t...); m.mu.Unlock() }

func (m *model) calls() int { m.mu.Lock(); defer m.mu.Unlock(); return len(m.reqs) }

func text(s string) turn {
	return func(llm.Request) llm.Response {
		return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: s}}
	}
}

func route(r lunad.AskRoute) turn {
	if r.ReadDeps == nil {
		r.ReadDeps = []string{}
	}
	b, _ := json.Marshal(struct {
		lunad.AskRoute
		Question *string `json:"question"`
	}{AskRoute: r})
	return text(string(b))
}

func tool(name string, args any) turn {
	b, _ := json.Marshal(args)
	return func(llm.Request) llm.Response {
		return llm.Response{StopReason: "tool_calls", Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call-" + name, Name: name, Arguments: b}}}}
	}
}

func finish(summary string) turn { return tool("finish", map[string]string{"summary": summary}) }

// env is a real workspace with the ask workflow on its engine, and a
// scripted model per role.
type env struct {
	t      *testing.T
	s      *workspace.Service
	agents *ask.Agents
	models map[string]*model
	clock  *clock

	waited atomic.Int64 // the retries' backoff waits
}

// sleep counts a retry's backoff wait instead of waiting.
func (e *env) sleep(ctx context.Context, _ time.Duration) error {
	e.waited.Add(1)
	return ctx.Err()
}

func (e *env) waits() int { return int(e.waited.Load()) }

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// newEnv makes the env; with changes each Options before ask.New.
func newEnv(t *testing.T, mo memory.Options, ttl time.Duration, with ...func(*ask.Options)) *env {
	t.Helper()
	e := &env{t: t, s: wstest.NewService(t), models: map[string]*model{}, clock: &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	for _, r := range []string{"supervisor", "coder", "writer", "reviewer"} {
		e.models[r] = &model{name: r}
	}
	o := ask.Options{Source: e.s, Memory: mo, TTL: ttl, Clock: e.clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Retry: llm.RetryOptions{Sleep: e.sleep},
		Providers: func(role string) (llm.Provider, llm.Config, error) {
			m, ok := e.models[role]
			if !ok {
				return nil, llm.Config{}, errors.New("no such role")
			}
			return m, llm.Config{Model: "m-" + role}, nil
		}}
	for _, f := range with {
		f(&o)
	}
	a, err := ask.New(o)
	if err != nil {
		t.Fatal(err)
	}
	e.agents = a
	t.Cleanup(func() { a.Close() })
	e.s.ConfigureRuns(runs.Options{Builtin: ask.Builtin(), Agents: a.Agents(), OnFinish: a.OnFinish, Jitter: func() float64 { return 0 }})
	return e
}

// ask runs an ask to its end and returns its run and result.
func (e *env) ask(request, artifact string, dry bool) (lunad.RunInfo, lunad.AskResult) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := map[string]string{lunad.AskParamRequest: request}
	if artifact != "" {
		p[lunad.AskParamArtifact] = artifact
	}
	if dry {
		p[lunad.AskParamDryRun] = "true"
	}
	info, err := e.s.StartRun(ctx, lunad.RunRequest{Workflow: lunad.AskWorkflow, Params: p})
	if err != nil {
		e.t.Fatal(err)
	}
	info, err = e.s.WaitRun(ctx, info.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	info, err = e.s.Run(ctx, info.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := lunad.AskResultOf(info)
	if err != nil {
		e.t.Fatalf("%v; events %v", err, wstest.EventTypes(info))
	}
	return info, res
}

func (e *env) head() string {
	return strings.TrimSpace(wstest.GitRun(e.t, e.s.Root(), "rev-parse", "HEAD"))
}

func ptr(s string) *string { return &s }
