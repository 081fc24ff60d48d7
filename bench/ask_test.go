package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/runs"
)

var flagAsks = flag.Int("bench.asks", 5, "BenchmarkAskOverhead: asks per workspace size")

// BenchmarkAskOverhead measures what lunad adds to an ask besides the
// model: asks run end to end through the workspace service's engine and
// the ask workflow (supervise → coder, the coder calling read_artifact,
// list_artifacts, find_references and rewrite_artifact, then finish: six
// model calls, one commit) against an in-process provider that answers
// at once, on the references tree (generateRefsTree) of 1,000 and 10,000
// artifacts. Time in the provider is subtracted; what is left is the
// engine (events appended to the run's log in git, the commit), the
// stage agents (working memory, context compilation before every call,
// the tools, the recorder) and the workspace reads. Per stage visit: the
// time from its agent's start to the next stage's (the last: to the run's
// end as WaitRun sees it) less its model time. Per model call: the time
// since the previous call returned (or the stage began) — the context
// compilation and tool execution the call waited for.
func BenchmarkAskOverhead(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchAsks(b, n) })
	}
}

// stamp is one timed point of an ask: an agent's start, or a model call.
type stamp struct {
	stage      bool // an agent's Process began at start
	start, end time.Time
}

// timeline collects the stamps of the ask running.
type timeline struct {
	mu     sync.Mutex
	stamps []stamp
}

func (t *timeline) add(s stamp) { t.mu.Lock(); t.stamps = append(t.stamps, s); t.mu.Unlock() }

func (t *timeline) take() []stamp {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.stamps
	t.stamps = nil
	return out
}

// timedAgent stamps its agent's start.
type timedAgent struct {
	lunad.Agent
	tl *timeline
}

func (a timedAgent) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	a.tl.add(stamp{stage: true, start: time.Now()})
	return a.Agent.Process(ctx, req)
}

// instant is the provider: the supervisor routes to the coder, whose
// turns follow from the number of its earlier answers; it answers at
// once and stamps each call.
type instant struct {
	role    string
	tl      *timeline
	target  string // the artifact the coder works on
	content string // its content, to which each ask adds a line
	asks    *int
}

func (p *instant) Name() string { return "instant-" + p.role }

func (p *instant) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	t0 := time.Now()
	resp := p.answer(req)
	resp.Model, resp.Usage = "instant", llm.Usage{InputTokens: len(req.System) / 4, OutputTokens: 10}
	p.tl.add(stamp{start: t0, end: time.Now()})
	return resp, nil
}

func (p *instant) answer(req llm.Request) llm.Response {
	msg := func(s string) llm.Response {
		return llm.Response{StopReason: "end", Message: llm.Message{Role: llm.RoleAssistant, Content: s}}
	}
	if p.role == "supervisor" {
		b, _ := json.Marshal(map[string]any{"intent": "edit", "worker": "coder", "target": p.target, "new_artifact": nil,
			"read_deps": []string{}, "reason": "the code", "question": nil})
		return msg(string(b))
	}
	turn := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			turn++
		}
	}
	var name string
	var args any
	switch turn {
	case 0:
		name, args = "read_artifact", map[string]string{"id": p.target}
	case 1:
		name, args = "list_artifacts", map[string]string{}
	case 2:
		name, args = "find_references", map[string]string{"id": p.target}
	case 3:
		name, args = "rewrite_artifact", map[string]string{"id": p.target, "content": fmt.Sprintf("%s\n// ask %d\n", p.content, *p.asks)}
	default:
		name, args = "finish", map[string]string{"summary": "done"}
	}
	a, _ := json.Marshal(args)
	return llm.Response{StopReason: "tool_calls", Message: llm.Message{Role: llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call-%d", turn), Name: name, Arguments: a}}}}
}

func benchAsks(b *testing.B, n int) {
	ctx := context.Background()
	s, tree := refsWorkspace(b, fmt.Sprintf("ask-tree-%d", n), n)
	defer s.Close()
	target := tree.files[tree.byLng[rwGo][0]].path
	content, _, err := s.Read(ctx, target, "")
	if err != nil {
		b.Fatal(err)
	}
	tl := &timeline{}
	asks := 0
	providers := map[string]*instant{}
	for _, role := range []string{"supervisor", "coder", "writer", "reviewer"} {
		providers[role] = &instant{role: role, tl: tl, target: target, content: string(content), asks: &asks}
	}
	a, err := ask.New(ask.Options{Source: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Providers: func(role string) (llm.Provider, llm.Config, error) {
			return providers[role], llm.Config{Provider: "instant", Model: "instant"}, nil
		}})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	agents := map[string]lunad.Agent{}
	for name, ag := range a.Agents() {
		agents[name] = timedAgent{ag, tl}
	}
	s.ConfigureRuns(runs.Options{Builtin: ask.Builtin(), Agents: agents, OnFinish: a.OnFinish,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	// The reference index is built on first use: build it before timing.
	if _, err := s.Outgoing(ctx, target); err != nil {
		b.Fatal(err)
	}
	var whole, perStage, perCall, model []time.Duration
	b.ResetTimer()
	for i := 0; i < *flagAsks; i++ {
		asks = i + 1
		t0 := time.Now()
		info, err := s.StartRun(ctx, lunad.RunRequest{Workflow: lunad.AskWorkflow, Params: map[string]string{lunad.AskParamRequest: "add a line to the code"}})
		if err == nil {
			info, err = s.WaitRun(ctx, info.ID)
		}
		end := time.Now()
		if err != nil || info.Status != lunad.RunCompleted {
			b.Fatalf("ask %d: %s %v (%s)", i, info.Status, err, info.Error)
		}
		st := tl.take()
		var stages []int
		for j, x := range st {
			if x.stage {
				stages = append(stages, j)
			}
		}
		if len(stages) != 2 || len(st) != 8 {
			b.Fatalf("ask %d: %d stages and %d stamps, want 2 and 8 (six model calls)", i, len(stages), len(st))
		}
		var inModel time.Duration
		for k, first := range stages {
			last, stop := len(st), end
			if k+1 < len(stages) {
				last, stop = stages[k+1], st[stages[k+1]].start
			}
			prev := st[first].start
			var m time.Duration
			for _, c := range st[first+1 : last] {
				perCall = append(perCall, c.start.Sub(prev))
				m += c.end.Sub(c.start)
				prev = c.end
			}
			perStage = append(perStage, stop.Sub(st[first].start)-m)
			inModel += m
		}
		whole = append(whole, end.Sub(t0)-inModel)
		model = append(model, inModel)
	}
	b.StopTimer()
	fmt.Printf("\nBenchmarkAskOverhead: %d artifacts (%s), %d asks of 2 stages and 6 model calls each\n", n, machine(), *flagAsks)
	fmt.Printf("%-40s %10s %10s %10s\n", "", "p50", "p99", "max")
	for _, r := range []struct {
		name string
		ds   []time.Duration
	}{{"ask, less model time", whole}, {"  per stage, less model time", perStage}, {"  per model call, outside the model", perCall}, {"model time per ask", model}} {
		fmt.Printf("%-40s %10.2f %10.2f %10.2f ms\n", r.name, ms(pct(r.ds, 0.50)), ms(pct(r.ds, 0.99)), ms(slices.Max(r.ds)))
	}
	b.ReportMetric(ms(pct(whole, 0.50)), "ask-p50-ms")
	b.ReportMetric(ms(pct(perStage, 0.50)), "stage-p50-ms")
	b.ReportMetric(ms(pct(perStage, 0.99)), "stage-p99-ms")
	b.ReportMetric(ms(pct(perCall, 0.50)), "call-p50-ms")
	b.ReportMetric(ms(pct(perCall, 0.99)), "call-p99-ms")
}
