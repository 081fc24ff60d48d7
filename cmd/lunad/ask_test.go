package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/lunad/lunad"
)

// askRunner is a lunad.Workspace whose ask run goes through events, one
// more each time the run is read, and ends with result as the last
// event's Output. Its other methods are nil (calling one panics the test).
type askRunner struct {
	lunad.Workspace
	mu        sync.Mutex
	req       lunad.RunRequest
	events    []lunad.RunEvent
	reads     int
	cancelled bool
}

func newAskRunner(t *testing.T, result lunad.AskResult, status lunad.RunStatus, events ...lunad.RunEvent) *askRunner {
	t.Helper()
	out, err := json.Marshal(result)
	if err != nil {
		t.Fatal(err)
	}
	last := lunad.RunEvent{Type: lunad.EventRunCompleted, Output: out}
	if status == lunad.RunAborted {
		last = lunad.RunEvent{Type: lunad.EventRunAborted, Error: "stage writer: permanent failure: the model's provider refused the key"}
	}
	return &askRunner{events: append(append([]lunad.RunEvent{{Type: lunad.EventRunCreated}}, events...), last)}
}

func (r *askRunner) Artifact(_ context.Context, ref string) (lunad.Artifact, error) {
	if ref == "notes/article.md" {
		return lunad.Artifact{ID: "a1", Path: ref}, nil
	}
	return lunad.Artifact{}, &lunad.NotFoundError{Kind: "artifact", Ref: ref}
}

func (r *askRunner) StartRun(_ context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.req = req
	return lunad.RunInfo{ID: "run1", Workflow: req.Workflow, Status: lunad.RunRunning}, nil
}

func (r *askRunner) Run(_ context.Context, id string) (lunad.RunInfo, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads++
	n := min(r.reads, len(r.events))
	info := lunad.RunInfo{ID: id, Workflow: lunad.AskWorkflow, Status: lunad.RunRunning, Events: r.events[:n]}
	if n == len(r.events) {
		switch r.events[n-1].Type {
		case lunad.EventRunCompleted:
			info.Status = lunad.RunCompleted
		case lunad.EventRunAborted:
			info.Status, info.Error = lunad.RunAborted, r.events[n-1].Error
		}
	}
	return info, nil
}

func (r *askRunner) CancelRun(_ context.Context, id string) (lunad.RunInfo, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cancelled = true
	return lunad.RunInfo{ID: id, Status: lunad.RunCancelled}, nil
}

var articleID = "a1"

// doneResult is an ask that edited an article and left nothing stale.
var doneResult = lunad.AskResult{
	Run: "run1", Status: lunad.AskDone, Workers: []string{"writer"}, Summary: "the second paragraph mentions JSON",
	Route:   &lunad.AskRoute{Intent: "edit", Worker: "writer", Target: &articleID, ReadDeps: []string{"c1"}, Reason: "the active article"},
	Changes: []lunad.AskChange{{ArtifactRef: lunad.ArtifactRef{ID: "a1", Path: "notes/article.md", Version: 3}, Added: 2, Removed: 1, Worker: "writer"}},
	Stale:   []lunad.AskFollowUp{{ID: "a2", Path: "notes/howto.md", Symbols: []string{"parse_config"}}},
	Usage:   lunad.AskUsage{InputTokens: 1200, OutputTokens: 80, Calls: 3},
}

// TestAskAndWait: the request becomes the ask workflow's params; each
// stage transition is one progress line, in order; the result is the last
// event's output and prints as what was done.
func TestAskAndWait(t *testing.T) {
	r := newAskRunner(t, doneResult, lunad.RunCompleted,
		lunad.RunEvent{Type: lunad.EventStageEnqueued, Stage: "supervise"},
		lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "supervise", Attempt: 1},
		lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "supervise", Attempt: 1, Next: "writer"},
		lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "writer", Attempt: 1},
		lunad.RunEvent{Type: lunad.EventStageFailed, Stage: "writer", Attempt: 1, Error: "provider down\nmore"},
		lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "writer", Attempt: 2},
		lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "writer", Attempt: 2, Next: "end"},
		lunad.RunEvent{Type: lunad.EventStageCommitted, Stage: "writer", Writes: []lunad.ArtifactRef{{Path: "notes/article.md", Version: 3}}},
	)
	var progress bytes.Buffer
	res, err := askAndWait(context.Background(), r, askRequest("change the second paragraph to mention JSON", "notes/article.md", false), &progress)
	if err != nil {
		t.Fatal(err)
	}
	want := lunad.RunRequest{Workflow: "ask", Params: map[string]string{"request": "change the second paragraph to mention JSON", "artifact": "notes/article.md"}}
	if r.req.Workflow != want.Workflow || len(r.req.Params) != 2 || r.req.Params["request"] != want.Params["request"] || r.req.Params["artifact"] != "notes/article.md" {
		t.Fatalf("started %+v, want %+v", r.req, want)
	}
	wantProgress := `ask run1: started
  supervise: working
  supervise: done, next writer
  writer: working
  writer: failed: provider down
  writer: attempt 2
  writer: done
  writer: committed notes/article.md v3
  completed
`
	if progress.String() != wantProgress {
		t.Fatalf("progress:\n%s\nwant\n%s", progress.String(), wantProgress)
	}
	var out bytes.Buffer
	if err := printAsk(&out, res); err != nil {
		t.Fatal(err)
	}
	wantOut := `ask run1: done (writer)
route: edit → writer a1, reading c1: the active article
summary: the second paragraph mentions JSON
edited  notes/article.md (a1) v3 +2 -1 by writer
stale now:
  notes/howto.md (a2): refers to parse_config
update them with: lunad ask "update the stale docs"
tokens: 1200 in, 80 out, 3 model calls
`
	if out.String() != wantOut {
		t.Fatalf("output:\n%s\nwant\n%s", out.String(), wantOut)
	}
	if err := askOutcome(res); err != nil {
		t.Fatal(err)
	}
}

// TestAskOutcomes: every way an ask ends that is not done is an error
// that says what to do (exit 1); dry-run is done.
func TestAskOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  lunad.AskResult
		want string
	}{
		{"question", lunad.AskResult{Run: "r", Status: lunad.AskQuestion, Question: "which article: notes/a.md or notes/b.md?"}, "which article: notes/a.md or notes/b.md? (name the artifact with --artifact ID"},
		{"budget", lunad.AskResult{Run: "r", Status: lunad.AskBudgetExhausted, Reason: "tokens: 50000 of 50000"}, "raise [agents.budget]"},
		{"stopped", lunad.AskResult{Run: "r", Status: lunad.AskStopped, Reason: "handoff loop writer → coder → writer → coder"}, "was stopped: handoff loop"},
		{"failed", lunad.AskResult{Run: "r", Status: lunad.AskFailed, Reason: "openai: 401 Unauthorized: check OPENAI_API_KEY"}, "OPENAI_API_KEY (see lunad run log r)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := askOutcome(tc.res)
			if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != exitError {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	if err := askOutcome(lunad.AskResult{Status: lunad.AskDryRun}); err != nil {
		t.Fatal(err)
	}
}

// TestAskWithoutResult: a run that ended without a result names the run
// command that shows why; an unknown --artifact starts nothing.
func TestAskWithoutResult(t *testing.T) {
	r := newAskRunner(t, lunad.AskResult{}, lunad.RunAborted)
	_, err := askAndWait(context.Background(), r, askRequest("x", "", false), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "ask run1 aborted without a result: stage writer: permanent failure") || !strings.Contains(err.Error(), "lunad run show run1") {
		t.Fatalf("err %v", err)
	}
	r = newAskRunner(t, doneResult, lunad.RunCompleted)
	_, err = askAndWait(context.Background(), r, askRequest("x", "notes/nope.md", false), &bytes.Buffer{})
	if !errors.Is(err, lunad.ErrNotFound) || r.req.Workflow != "" {
		t.Fatalf("err %v, started %+v", err, r.req)
	}
}

// TestAskInterrupted: a caller that stops waiting cancels the ask's run.
func TestAskInterrupted(t *testing.T) {
	r := newAskRunner(t, doneResult, lunad.RunCompleted, make([]lunad.RunEvent, 1000)...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := askAndWait(ctx, r, askRequest("x", "", true), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "its run is cancelled") || !r.cancelled || r.req.Params["dry_run"] != "true" {
		t.Fatalf("err %v, cancelled %v, req %+v", err, r.cancelled, r.req)
	}
}

// TestAskCommandRefused: without a provider an ask starts nothing and
// says which setting and variable to set; an empty request is a usage
// error.
func TestAskCommandRefused(t *testing.T) {
	w := newWS(t)
	w.env = append(w.env, "LUNAD_LLM_PROVIDER=")
	w.fail(1, "no model provider configured: set [llm] provider in .luna/config.toml or LUNAD_LLM_PROVIDER", "ask", "write a Python function")
	w.fail(2, "the request is empty", "ask", " ")
	if runs := w.ok("run", "list"); strings.Count(runs, "\n") != 1 {
		t.Fatalf("runs after refused asks:\n%s", runs)
	}
}
