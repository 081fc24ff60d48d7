package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// goalWorkspace is a real workspace whose goal runs are played from
// events (one more per read), as the goal's run would go; dirty, when set,
// is the uncommitted path a start is refused for, as the engine refuses
// an isolated run.
type goalWorkspace struct {
	lunad.Workspace
	dirty   string
	mu      sync.Mutex
	started []lunad.RunRequest
	events  []lunad.RunEvent
	reads   int
}

func (w *goalWorkspace) StartRun(ctx context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	if req.Workflow != lunad.GoalWorkflow {
		return w.Workspace.StartRun(ctx, req)
	}
	if w.dirty != "" {
		return lunad.RunInfo{}, fmt.Errorf("%w: commit or discard them: %s", lunad.ErrDirty, w.dirty)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started = append(w.started, req)
	return lunad.RunInfo{ID: "goal1", Workflow: req.Workflow, Status: lunad.RunRunning, Branch: "luna/goal/goal1"}, nil
}

func (w *goalWorkspace) Run(ctx context.Context, id string) (lunad.RunInfo, error) {
	if id != "goal1" {
		return w.Workspace.Run(ctx, id)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reads++
	n := min(w.reads, len(w.events))
	info := lunad.RunInfo{ID: id, Workflow: lunad.GoalWorkflow, Status: lunad.RunRunning, Branch: "luna/goal/goal1", Events: w.events[:n]}
	if last := w.events[n-1]; n == len(w.events) && last.Type == lunad.EventRunCompleted {
		info.Status = lunad.RunStatus(last.Outcome)
	}
	return info, nil
}

func (w *goalWorkspace) reqs() []lunad.RunRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.started)
}

func connectGoal(t *testing.T, ws *goalWorkspace, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	svc, _ := newService(t, nil)
	ws.Workspace = svc
	srv, err := New(context.Background(), ws, Options{Version: "test", GoalTests: [][]string{{"go", "test", "./..."}}})
	if err != nil {
		t.Fatal(err)
	}
	return connectTo(t, srv, copts)
}

// goalEvents are a goal's run: the tests at the start, an edit committed,
// the tests after it, finish, the result.
func goalEvents(t *testing.T, res lunad.GoalResult) []lunad.RunEvent {
	t.Helper()
	enc := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	failing := lunad.TestSummary{Failed: 1, Commands: []lunad.GoalCommand{{Argv: []string{"go", "test", "./..."}, ExitCode: 1}}}
	passing := lunad.TestSummary{Passed: 1, OK: true, Commands: []lunad.GoalCommand{{Argv: []string{"go", "test", "./..."}}}}
	act := func(n int, tool, args string, o lunad.GoalObservation) json.RawMessage {
		return enc(map[string]any{"steps": n, "max_steps": 30, "recent": []lunad.GoalStep{{Step: n, Action: lunad.GoalAction{Tool: tool, Args: json.RawMessage(args)}, Observation: o}}})
	}
	return []lunad.RunEvent{
		{Seq: 1, Type: lunad.EventRunCreated},
		{Seq: 2, Type: lunad.EventStageStarted, Stage: "begin", Attempt: 1},
		{Seq: 3, Type: lunad.EventStageSucceeded, Stage: "begin", Output: enc(map[string]any{"tests": failing, "tested": true})},
		{Seq: 4, Type: lunad.EventStageSucceeded, Stage: "act", Output: act(1, "edit_artifact", `{"path":"calc.go"}`, lunad.GoalObservation{Status: "ok", Files: []string{"calc.go"}})},
		{Seq: 5, Type: lunad.EventStageCommitted, Stage: "act", Writes: []lunad.ArtifactRef{{Path: "calc.go", Commit: "0123456789abcdef"}}},
		{Seq: 6, Type: lunad.EventStageSucceeded, Stage: "test", Output: enc(map[string]any{"tests": passing, "tests_step": 1})},
		{Seq: 7, Type: lunad.EventStageSucceeded, Stage: "act", Output: act(2, "finish", `{"summary":"fixed"}`, lunad.GoalObservation{Status: "ok"})},
		{Seq: 8, Type: lunad.EventRunCompleted, Outcome: "finished", Output: enc(res)},
	}
}

// TestGoalTool: goal starts the goal workflow with its params — the
// workspace's [tests] commands when the call gives none — and returns at
// once with the run, its run_status and its branch; with wait it reports
// each step as a progress notification and returns the GoalResult too.
func TestGoalTool(t *testing.T) {
	res := lunad.GoalResult{Run: "goal1", Goal: "make the tests pass", Outcome: lunad.GoalFinished, Branch: "luna/goal/goal1", Commits: []string{"0123456789abcdef"}, Steps: 2, Report: "report.md"}
	ws := &goalWorkspace{}
	ws.events = goalEvents(t, res)
	var (
		mu       sync.Mutex
		progress []string
		arrived  = make(chan struct{}, 100)
	)
	cs := connectGoal(t, ws, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		progress = append(progress, req.Params.Message)
		arrived <- struct{}{}
	}})

	var out goalOut
	if r := call(t, cs, "goal", map[string]any{"goal": "make the tests pass"}, &out); r.IsError {
		t.Fatal(text(r))
	}
	if out.Run != "goal1" || out.RunStatus != lunad.RunRunning || out.Branch != "luna/goal/goal1" || out.Result != nil ||
		out.Follow != `run_status {"id": "goal1"} shows where it is; once it ends, the person reads the report (lunad goal show goal1) and decides: accept_run {"id": "goal1"} takes its branch, discard_run {"id": "goal1"} drops it` {
		t.Fatalf("goal returned %+v", out)
	}
	if ws.reads != 0 {
		t.Errorf("goal read the run %d times before returning; it returns at once", ws.reads)
	}
	call(t, cs, "goal", map[string]any{"goal": "g", "tests": [][]string{}, "max_steps": 5, "dry_run": true}, nil)
	call(t, cs, "goal", map[string]any{"goal": "g", "tests": [][]string{{"pytest", "-q"}}, "plan": true}, nil)
	started := ws.reqs()
	for i, want := range []map[string]string{
		{"goal": "make the tests pass", "tests": `[["go","test","./..."]]`},
		{"goal": "g", "tests": "[]", "max_steps": "5", "dry_run": "true"},
		{"goal": "g", "tests": `[["pytest","-q"]]`, "plan": "true"},
	} {
		if i >= len(started) || started[i].Workflow != lunad.GoalWorkflow || !maps(started[i].Params, want) {
			t.Fatalf("start %d: %+v, want params %v", i+1, started, want)
		}
	}

	r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "goal", Meta: sdk.Meta{"progressToken": "tok"},
		Arguments: map[string]any{"goal": "make the tests pass", "wait": true}})
	if err != nil || r.IsError {
		t.Fatalf("%v %s", err, text(r))
	}
	raw, _ := json.Marshal(r.StructuredContent)
	var waited goalOut
	if err := json.Unmarshal(raw, &waited); err != nil || waited.RunStatus != "finished" || waited.Result == nil || waited.Result.Outcome != lunad.GoalFinished || len(waited.Result.Commits) != 1 {
		t.Fatalf("goal with wait: %s, %v", raw, err)
	}
	wantProgress := []string{"goal1: tests at the start: FAIL — 1 failed (go test ./... exit 1)", "goal1: step 1/30: edit_artifact calc.go → ok, changed calc.go",
		"goal1: committed 01234567: calc.go", "goal1: tests after step 1: ok — 1 passed (go test ./... exit 0)", "goal1: step 2/30: finish → ok", "goal1: finished"}
	deadline := time.After(10 * time.Second)
	for range wantProgress {
		select {
		case <-arrived:
		case <-deadline:
			t.Fatal("timed out waiting for the progress notifications")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(progress, wantProgress) {
		t.Fatalf("progress %q, want %q", progress, wantProgress)
	}
}

// TestGoalToolErrors: a goal that cannot start is a tool error saying
// what to fix, and nothing is started; a run that ended without a result
// says where to look.
func TestGoalToolErrors(t *testing.T) {
	ws := &goalWorkspace{dirty: "calc.go"}
	ws.events = []lunad.RunEvent{{Seq: 1, Type: lunad.EventRunCreated}, {Seq: 2, Type: lunad.EventRunCompleted, Outcome: "finished"}}
	cs := connectGoal(t, ws, nil)
	wantError(t, call(t, cs, "goal", map[string]any{"goal": " "}, nil), "nothing was started: invalid input: the goal is empty")
	wantError(t, call(t, cs, "goal", map[string]any{"goal": "g", "max_steps": -1}, nil), "nothing was started", "max_steps -1: give a whole number from 1 to 10000")
	wantError(t, call(t, cs, "goal", map[string]any{"goal": "g", "tests": [][]string{{}}}, nil), "nothing was started", "tests: test command 1 is empty")
	wantError(t, call(t, cs, "goal", map[string]any{"goal": "g", "dry_run": true, "plan": true}, nil), "dry_run and plan together: plan only asks for a plan")
	wantError(t, call(t, cs, "goal", map[string]any{"goal": "g"}, nil), "nothing was started: a goal's branch starts from the last commit", "commit or discard them: calc.go")
	wantError(t, call(t, cs, "goal", map[string]any{"goal": 3}, nil), "goal takes:", "goal (string, required)")
	if len(ws.reqs()) != 0 {
		t.Fatalf("started %+v", ws.reqs())
	}
	ws.dirty = ""
	wantError(t, call(t, cs, "goal", map[string]any{"goal": "g", "wait": true}, nil), "goal goal1 finished without a result", `run_status {"id": "goal1"}`)
}
