package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// askWorkspace is a real workspace whose runs of the ask workflow are
// played from events (one more per read) ending with result, as the
// agents' run would end.
type askWorkspace struct {
	lunad.Workspace
	mu        sync.Mutex
	started   []lunad.RunRequest
	events    []lunad.RunEvent
	reads     int
	cancelled []string
}

func (w *askWorkspace) StartRun(ctx context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	if req.Workflow != lunad.AskWorkflow {
		return w.Workspace.StartRun(ctx, req)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started = append(w.started, req)
	return lunad.RunInfo{ID: "ask1", Workflow: req.Workflow, Status: lunad.RunRunning}, nil
}

func (w *askWorkspace) Run(ctx context.Context, id string) (lunad.RunInfo, error) {
	if id != "ask1" {
		return w.Workspace.Run(ctx, id)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reads++
	n := min(w.reads, len(w.events))
	info := lunad.RunInfo{ID: id, Workflow: lunad.AskWorkflow, Status: lunad.RunRunning, Events: w.events[:n]}
	if n == len(w.events) && w.events[n-1].Type == lunad.EventRunCompleted {
		info.Status = lunad.RunCompleted
	}
	return info, nil
}

func (w *askWorkspace) CancelRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cancelled = append(w.cancelled, id)
	return lunad.RunInfo{ID: id, Status: lunad.RunCancelled}, nil
}

func connectAsk(t *testing.T, events []lunad.RunEvent, copts *sdk.ClientOptions) (*sdk.ClientSession, *askWorkspace) {
	t.Helper()
	svc, _ := newService(t, nil)
	ws := &askWorkspace{Workspace: svc, events: events}
	srv, err := New(context.Background(), ws, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return connectTo(t, srv, copts), ws
}

// TestAskTool: ask starts the ask workflow with the request, the active
// artifact and dry_run as its params, reports each stage as a progress
// notification to a client that gave a token, and returns the AskResult.
func TestAskTool(t *testing.T) {
	target := "c1"
	want := lunad.AskResult{Run: "ask1", Status: lunad.AskDone, Workers: []string{"coder"}, Summary: "renamed parse_config to load_config",
		Route:   &lunad.AskRoute{Intent: "edit", Worker: "coder", Target: &target, ReadDeps: []string{}, Reason: "a code change"},
		Changes: []lunad.AskChange{{ArtifactRef: lunad.ArtifactRef{ID: "c1", Path: "src/config.py", Version: 2, Commit: "abc"}, Added: 3, Removed: 3, Worker: "coder"}},
		Stale:   []lunad.AskFollowUp{{ID: "a1", Path: "docs/config.md", Symbols: []string{"parse_config"}}},
		Usage:   lunad.AskUsage{InputTokens: 900, OutputTokens: 120, Calls: 2},
		Memory:  json.RawMessage(`{"consumption":{"coder":{"calls":2,"tokens":1020}},"trips":[]}`)}
	out, _ := json.Marshal(want)
	events := []lunad.RunEvent{
		{Seq: 1, Type: lunad.EventRunCreated},
		{Seq: 2, Type: lunad.EventStageStarted, Stage: "supervise", Attempt: 1},
		{Seq: 3, Type: lunad.EventStageSucceeded, Stage: "supervise", Attempt: 1, Next: "coder"},
		{Seq: 4, Type: lunad.EventStageStarted, Stage: "coder", Attempt: 1},
		{Seq: 5, Type: lunad.EventStageSucceeded, Stage: "coder", Attempt: 1, Next: "end"},
		{Seq: 6, Type: lunad.EventStageCommitted, Stage: "coder", Writes: []lunad.ArtifactRef{{Path: "src/config.py", Version: 2}}},
		{Seq: 7, Type: lunad.EventRunCompleted, Output: out},
	}
	var (
		mu       sync.Mutex
		progress []string
		arrived  = make(chan struct{}, 100)
	)
	cs, ws := connectAsk(t, events, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		progress = append(progress, req.Params.Message)
		arrived <- struct{}{}
	}})
	var artifact map[string]any
	if res := call(t, cs, "create_artifact", map[string]any{"title": "config", "type": "code/python", "path": "src/config.py", "content": "def parse_config(): pass\n"}, &artifact); res.IsError {
		t.Fatal(text(res))
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask", Meta: sdk.Meta{"progressToken": "tok"},
		Arguments: map[string]any{"request": "rename parse_config to load_config", "artifact": "src/config.py"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var got lunad.AskResult
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if g, _ := json.Marshal(got); string(g) != string(out) {
		t.Fatalf("result\n%s\nwant\n%s", g, out)
	}
	if len(ws.started) != 1 || !maps(ws.started[0].Params, map[string]string{"request": "rename parse_config to load_config", "artifact": "src/config.py"}) {
		t.Fatalf("started %+v", ws.started)
	}
	wantProgress := []string{"ask1: supervise: working", "ask1: supervise: done, next coder", "ask1: coder: working", "ask1: coder: done",
		"ask1: coder: committed src/config.py v2", "ask1: completed"}
	// A notification may arrive after the call's result.
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

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestAskToolErrors: an empty request, an unknown artifact and a run that
// ended without a result are tool errors that say what to do; nothing is
// started for the first two.
func TestAskToolErrors(t *testing.T) {
	cs, ws := connectAsk(t, []lunad.RunEvent{{Seq: 1, Type: lunad.EventRunCreated}, {Seq: 2, Type: lunad.EventRunCompleted}}, nil)
	wantError(t, call(t, cs, "ask", map[string]any{"request": "  "}, nil), "nothing was started: request is empty")
	wantError(t, call(t, cs, "ask", map[string]any{"request": "fix it", "artifact": "nope.md"}, nil), "nothing was started", "nope.md", "list_artifacts")
	if len(ws.started) != 0 {
		t.Fatalf("started %+v", ws.started)
	}
	wantError(t, call(t, cs, "ask", map[string]any{"request": "fix it", "dry_run": true}, nil), "ask ask1 completed without a result", `run_status {"id": "ask1"}`)
	if len(ws.started) != 1 || ws.started[0].Params["dry_run"] != "true" {
		t.Fatalf("started %+v", ws.started)
	}
	wantError(t, call(t, cs, "ask", map[string]any{"request": 3}, nil), "ask takes:")
	if !strings.Contains(text(call(t, cs, "ask", map[string]any{"request": 3}, nil)), "request (string, required)") {
		t.Error("the signature is not repeated")
	}
}
