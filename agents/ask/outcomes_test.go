package ask_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/internal/wstest"
)

// TestOutcomes: every way an ask ends other than done ends the run with
// that outcome as its status, a result saying why, and nothing written by
// the stage that stopped.
func TestOutcomes(t *testing.T) {
	edit := func(id, search, replace string) turn {
		return tool("edit_artifact", map[string]any{"id": id, "blocks": []map[string]string{{"search": search, "replace": replace}}})
	}
	type setup struct {
		e            *env
		code, a1, a2 string
	}
	cases := []struct {
		name    string
		budget  memory.Budget
		active  bool
		dry     bool
		script  func(s setup)
		status  lunad.AskStatus
		reason  string // in Reason or Question
		workers []string
		check   func(t *testing.T, s setup, info lunad.RunInfo, res lunad.AskResult)
	}{
		{name: "ambiguous edit asks", status: lunad.AskQuestion, reason: "Which artifact do you mean: docs/a.md",
			script: func(s setup) {
				s.e.models["supervisor"].add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Reason: "second paragraph"}))
			}},
		{name: "invalid twice is fail-safe", status: lunad.AskQuestion, reason: "please say which artifact you mean",
			script: func(s setup) { s.e.models["supervisor"].add(text("the writer"), text(`{"intent":"edit"}`)) }},
		{name: "budget exhausted", budget: memory.Budget{Calls: 3}, status: lunad.AskBudgetExhausted, reason: "calls budget is spent", workers: []string{"writer"},
			script: func(s setup) {
				s.e.models["supervisor"].add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr(s.a1), Reason: "r"}))
				s.e.models["writer"].add(edit(s.a1, "Second paragraph.\n", "Changed.\n"), tool("read_artifact", map[string]string{"id": s.a2}), finish("never"))
			},
			check: func(t *testing.T, s setup, info lunad.RunInfo, res lunad.AskResult) {
				if res.Usage.Calls != 3 || s.e.models["writer"].calls() != 2 {
					t.Errorf("usage %+v, writer called %d times", res.Usage, s.e.models["writer"].calls())
				}
			}},
		{name: "three failed attempts stop", status: lunad.AskStopped, reason: "the coder failed 3 times to change", workers: []string{"coder"},
			script: func(s setup) {
				s.e.models["supervisor"].add(route(lunad.AskRoute{Intent: "edit", Worker: "coder", Target: ptr(s.code), Reason: "r"}))
				s.e.models["coder"].add(edit(s.code, "def main():\n", "def run():\n"), edit(s.code, "nope\n", "x\n"), edit(s.code, "nope 2\n", "x\n"), edit(s.code, "nope 3\n", "x\n"))
			}},
		{name: "a handoff loop stops", status: lunad.AskStopped, reason: "handoff loop", workers: []string{"writer", "coder", "writer", "coder"},
			script: func(s setup) {
				s.e.models["supervisor"].add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr(s.a1), Reason: "r"}))
				h := func(to string) turn { return tool("handoff", map[string]string{"to": to, "reason": "yours"}) }
				s.e.models["writer"].add(edit(s.a1, "Second paragraph.\n", "Changed.\n"), h("coder"), h("coder"))
				s.e.models["coder"].add(h("writer"), h("writer"))
			},
			check: func(t *testing.T, s setup, info lunad.RunInfo, res lunad.AskResult) {
				// The first writer's handoff committed its edit; the loop
				// writer → coder → writer → coder was caught when the
				// coder's second visit entered, before it called its model.
				if res.Summary != "written before the ask ended: the writer edited docs/a.md (version 2)" {
					t.Errorf("summary %q", res.Summary)
				}
				if len(res.Changes) != 1 || res.Changes[0].ID != s.a1 || s.e.models["writer"].calls() != 3 || s.e.models["coder"].calls() != 1 {
					t.Errorf("changes %+v, writer called %d times, coder %d", res.Changes, s.e.models["writer"].calls(), s.e.models["coder"].calls())
				}
			}},
		{name: "a failing provider fails the ask", status: lunad.AskFailed, reason: "the script has 0 turns, call 1",
			script: func(s setup) {}},
		{name: "a failing worker writes nothing", status: lunad.AskFailed, reason: "the writer's model call failed", workers: []string{"writer"},
			script: func(s setup) {
				s.e.models["supervisor"].add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr(s.a1), Reason: "r"}))
				s.e.models["writer"].add(edit(s.a1, "Second paragraph.\n", "Changed.\n"))
			}},
		{name: "dry run", dry: true, status: lunad.AskDryRun,
			script: func(s setup) {
				s.e.models["supervisor"].add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr(s.a1), ReadDeps: []string{s.code}, Reason: "r"}))
			},
			check: func(t *testing.T, s setup, info lunad.RunInfo, res lunad.AskResult) {
				if res.Route == nil || res.Route.Worker != "writer" || len(res.Prompts) != 2 || s.e.models["writer"].calls() != 0 {
					t.Fatalf("route %+v, prompts %d, writer called %d times", res.Route, len(res.Prompts), s.e.models["writer"].calls())
				}
				w := res.Prompts[1]
				if w.Role != "writer" || w.Prompt != "writer@1" || !strings.Contains(w.User, `mode="active_write"`) || !strings.Contains(w.User, "def parse_config") || !slices.Contains(w.Tools, "edit_artifact") || w.Tokens == 0 {
					t.Errorf("writer prompt %+v", w)
				}
				if p := res.Prompts[0]; p.Role != "supervisor" || p.Prompt != "supervisor@1" || p.Tokens == 0 || strings.Contains(p.User, "Second paragraph") {
					t.Errorf("supervisor prompt %+v", p)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, memory.Options{Budget: c.budget}, 0)
			s := setup{e: e, code: wstest.Create(t, e.s, "src/config.py", wstest.Src),
				a1: wstest.Create(t, e.s, "docs/a.md", "# A\n\nFirst paragraph.\n\nSecond paragraph.\n"),
				a2: wstest.Create(t, e.s, "docs/b.md", "# B\n\nFirst paragraph.\n\nSecond paragraph.\n")}
			c.script(s)
			before := e.head()
			info, res := e.ask("change the second paragraph", "", c.dry)
			if res.Status != c.status || string(info.Status) != string(c.status) {
				t.Fatalf("status %s (run %s), want %s: %+v", res.Status, info.Status, c.status, res)
			}
			if !strings.Contains(res.Reason+res.Question, c.reason) {
				t.Errorf("reason %q, question %q; want %q", res.Reason, res.Question, c.reason)
			}
			if c.workers == nil {
				c.workers = []string{}
			}
			if !slices.Equal(res.Workers, c.workers) {
				t.Errorf("workers %v, want %v", res.Workers, c.workers)
			}
			if c.check != nil {
				c.check(t, s, info, res)
			} else if e.head() != before || len(res.Changes) != 0 {
				t.Errorf("something was written: %+v", res.Changes)
			}
			if c.status != lunad.AskQuestion && c.status != lunad.AskDryRun && c.check == nil && res.Summary != "nothing was written" {
				t.Errorf("summary %q", res.Summary)
			}
		})
	}
}

// TestResumedMemory: a run whose live memory is gone (swept after the
// TTL, as after a restart) continues from the snapshot in the last
// stage's output: its budgets are not reset.
func TestResumedMemory(t *testing.T) {
	e := newEnv(t, memory.Options{Budget: memory.Budget{Calls: 3}}, time.Minute)
	a1 := wstest.Create(t, e.s, "docs/a.md", "# A\n\nText.\n")
	e.models["supervisor"].add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr(a1), Reason: "r"}))
	e.models["writer"].add(func(r llm.Request) llm.Response {
		e.clock.advance(time.Hour) // the writer takes long: the memory idles past its TTL
		return tool("handoff", map[string]string{"to": "coder", "reason": "code"})(r)
	})
	e.models["coder"].add(tool("list_artifacts", map[string]string{}), finish("never"))
	_, res := e.ask("r", "", false)
	if res.Status != lunad.AskBudgetExhausted || e.models["coder"].calls() != 1 || res.Usage.Calls != 3 {
		t.Fatalf("status %s, coder called %d times, usage %+v: %s", res.Status, e.models["coder"].calls(), res.Usage, res.Reason)
	}
}

func TestSweep(t *testing.T) {
	e := newEnv(t, memory.Options{}, time.Minute)
	e.models["supervisor"].add(text("no"), text("no"))
	ctx := context.Background()
	// A stage leaves its memory in the store; a run that never finishes
	// (its OnFinish never called) is swept after the TTL.
	resp, err := e.agents.Agents()["ask.supervisor"].Process(ctx, lunad.StageRequest{RunID: "r1", Stage: "supervise", Visit: 1, Params: map[string]string{lunad.AskParamRequest: "x"}})
	if err != nil || resp.Status != "ok" {
		t.Fatal(resp, err)
	}
	if got := e.agents.Live(); !slices.Equal(got, []string{"r1"}) {
		t.Fatalf("live %v", got)
	}
	if got := e.agents.Sweep(); len(got) != 0 {
		t.Fatalf("swept %v before the TTL", got)
	}
	e.clock.advance(2 * time.Minute)
	if got := e.agents.Sweep(); !slices.Equal(got, []string{"r1"}) || len(e.agents.Live()) != 0 {
		t.Fatalf("swept %v, live %v", got, e.agents.Live())
	}
}

// TestReview: the reviewer's findings reach the result; its write is
// refused by the tool layer and nothing is written.
func TestReview(t *testing.T) {
	e := newEnv(t, memory.Options{}, 0)
	a1 := wstest.Create(t, e.s, "docs/a.md", "# A\n\nCall `parse_config`.\n")
	e.models["supervisor"].add(route(lunad.AskRoute{Intent: "review", Worker: "reviewer", Target: ptr(a1), Reason: "review"}))
	e.models["reviewer"].add(
		tool("rewrite_artifact", map[string]string{"id": a1, "content": "x\n"}),
		tool("report_finding", map[string]any{"artifact": a1, "line": 3, "severity": "warning", "message": "parse_config is not defined anywhere"}),
		finish("one finding"))
	before := e.head()
	_, res := e.ask("review docs/a.md", "", false)
	if res.Status != lunad.AskDone || len(res.Findings) != 1 || res.Findings[0] != (lunad.AskFinding{Artifact: a1, Line: 3, Severity: "warning", Message: "parse_config is not defined anywhere"}) {
		t.Fatalf("%+v", res)
	}
	refusal := e.models["reviewer"].reqs[1].Messages[2]
	if !refusal.IsError || !strings.Contains(refusal.Content, "the reviewer cannot write") {
		t.Errorf("refusal %+v", refusal)
	}
	if e.head() != before || len(res.Changes) != 0 {
		t.Errorf("the review wrote: %+v", res.Changes)
	}
}

func TestNew(t *testing.T) {
	e := newEnv(t, memory.Options{}, 0)
	for _, c := range []struct {
		name string
		o    ask.Options
		want string
	}{
		{"no workspace", ask.Options{}, "needs a Workspace and Providers"},
		{"negative budget", ask.Options{Source: e.s, Providers: func(string) (llm.Provider, llm.Config, error) { return nil, llm.Config{}, nil }, Memory: memory.Options{Budget: memory.Budget{Calls: -1}}}, "[agents.budget] calls is -1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if a, err := ask.New(c.o); err == nil {
				a.Close()
				t.Fatal("no error")
			} else if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v; want %q", err, c.want)
			}
		})
	}
	wf := ask.Builtin()[lunad.AskWorkflow]
	if !strings.Contains(string(wf), `name = "ask"`) {
		t.Errorf("builtin %q", wf)
	}
	names := slices.Sorted(maps.Keys(e.agents.Agents()))
	if !slices.Equal(names, []string{"ask.coder", "ask.reviewer", "ask.supervisor", "ask.writer"}) {
		t.Errorf("agents %v", names)
	}
	if v := e.agents.Agents()["ask.writer"].Version(); v != "writer@1+m-writer" {
		t.Errorf("version %q", v)
	}
}

// TestHandoff: a worker's handoff returns control to the engine, which
// runs the named worker on the artifact the handoff names; each worker's
// writes are its own commit, with itself as the author.
func TestHandoff(t *testing.T) {
	e := newEnv(t, memory.Options{}, 0)
	code := wstest.Create(t, e.s, "src/config.py", wstest.Src)
	doc := wstest.Create(t, e.s, "docs/a.md", "# A\n\nCall `parse_config`.\n")
	e.models["supervisor"].add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr(doc), ReadDeps: []string{code}, Reason: "r"}))
	e.models["writer"].add(
		tool("edit_artifact", map[string]any{"id": doc, "blocks": []map[string]string{{"search": "Call `parse_config`.\n", "replace": "Call `load_config`.\n"}}}),
		tool("handoff", map[string]string{"to": "coder", "reason": "rename parse_config to load_config in the code", "target": code}))
	e.models["coder"].add(
		tool("edit_artifact", map[string]any{"id": code, "blocks": []map[string]string{{"search": "def parse_config(path):\n", "replace": "def load_config(path):\n"}, {"search": "    print(parse_config('a.toml'))\n", "replace": "    print(load_config('a.toml'))\n"}}}),
		finish("renamed"))
	info, res := e.ask("call it load_config everywhere", "", false)
	if res.Status != lunad.AskDone || !slices.Equal(info.Path, []string{"supervise", "writer", "coder"}) || !slices.Equal(res.Workers, []string{"writer", "coder"}) {
		t.Fatalf("path %v: %+v", info.Path, res)
	}
	if len(res.Changes) != 2 || res.Changes[0].Worker != "writer" || res.Changes[1].Worker != "coder" || res.Changes[1].Added != 2 {
		t.Errorf("changes %+v", res.Changes)
	}
	if u := e.models["coder"].reqs[0].Messages[0].Content; !strings.Contains(u, "Handed over by the writer: rename parse_config to load_config in the code") {
		t.Errorf("the coder was not told why:\n%s", u)
	}
	authors := wstest.GitRun(t, e.s.Root(), "log", "-2", "--format=%an %(trailers:key=Luna-Prompt,valueonly,separator=)")
	if authors != "coder coder@1\nwriter writer@1\n" {
		t.Errorf("authors:\n%s", authors)
	}
}

// TestCancelled: an ask cancelled while its worker waits for the model
// ends failed, with the result saying so, and writes nothing.
func TestCancelled(t *testing.T) {
	e := newEnv(t, memory.Options{}, 0)
	doc := wstest.Create(t, e.s, "docs/a.md", "# A\n\nText.\n")
	called := make(chan struct{})
	e.models["supervisor"].add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr(doc), Reason: "r"}))
	e.models["writer"].block = func(ctx context.Context) error {
		close(called)
		<-ctx.Done()
		return ctx.Err()
	}
	before := e.head()
	ctx := context.Background()
	info, err := e.s.StartRun(ctx, lunad.RunRequest{Workflow: lunad.AskWorkflow, Params: map[string]string{lunad.AskParamRequest: "r"}})
	if err != nil {
		t.Fatal(err)
	}
	<-called
	if _, err := e.s.CancelRun(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	info, err = e.s.Run(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := lunad.AskResultOf(info)
	if err != nil || info.Status != lunad.RunCancelled || res.Status != lunad.AskFailed || res.Reason == "" || len(res.Changes) != 0 {
		t.Fatalf("run %s: %+v %v", info.Status, res, err)
	}
	if e.head() != before {
		t.Error("a cancelled ask wrote")
	}
}

// TestRetriedCalls: a transient failure is retried by lunad's policy with
// the run's memory inside it — every attempt counted and recorded — and a
// live replay serves the recorded attempts, failed ones included, in
// their order: the same memory, no model called, no wait.
func TestRetriedCalls(t *testing.T) {
	e := newEnv(t, memory.Options{}, 0)
	a1 := wstest.Create(t, e.s, "docs/a.md", "# A\n\nFirst paragraph.\n\nSecond paragraph.\n")
	sup, writer := e.models["supervisor"], e.models["writer"]
	sup.fail, writer.fail = 1, 2
	sup.add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr(a1), Reason: "r"}))
	writer.add(tool("edit_artifact", map[string]any{"id": a1, "blocks": []map[string]string{{"search": "Second paragraph.\n", "replace": "Changed.\n"}}}), finish("done"))
	info, res := e.ask("change the second paragraph", "", false)
	if res.Status != lunad.AskDone || len(res.Changes) != 1 {
		t.Fatalf("%+v", res)
	}
	// The supervisor: 1 failure + 1 answer; the writer: 2 failures + 2 answers.
	if res.Usage.Calls != 6 || sup.failed != 1 || writer.failed != 2 || e.waits() != 3 {
		t.Errorf("calls %d (want 6: one per attempt), failures %d+%d, waits %d", res.Usage.Calls, sup.failed, writer.failed, e.waits())
	}
	var sum memory.Summary
	if err := json.Unmarshal(res.Memory, &sum); err != nil || sum.Usage.Failures != 3 || sum.Usage.Calls != 6 {
		t.Errorf("the memory's summary %s (%v), want 6 calls, 3 failures", res.Memory, err)
	}
	rep, err := e.s.ReplayRun(context.Background(), info.ID, true)
	if err != nil || !rep.Identical || rep.Divergence != 0 || rep.Tree != rep.ReplayTree {
		t.Fatalf("replay: %+v %v", rep, err)
	}
	if sup.calls() != 1 || writer.calls() != 2 || e.waits() != 3 {
		t.Errorf("the replay called the models (supervisor %d, writer %d) or waited (%d)", sup.calls(), writer.calls(), e.waits())
	}
}
