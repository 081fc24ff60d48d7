package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/workspace"
)

// goalService is the session's workspace whose goal runs are played from
// events, one more per read, with the stage files a goal stores (its
// steps' trace, its report).
type goalService struct {
	*workspace.Service
	mu      sync.Mutex
	started []lunad.RunRequest
	events  []lunad.RunEvent
	files   map[string]string // "SEQ/NAME"
	reads   int
	// settled logs AcceptRun and DiscardRun ("accept RUN"), which fail
	// with settleErr when set.
	settled   []string
	settleErr error
}

func (w *goalService) StartRun(ctx context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started = append(w.started, req)
	return lunad.RunInfo{ID: "goal1", Workflow: req.Workflow, Status: lunad.RunRunning, Branch: "luna/goal/goal1"}, nil
}

func (w *goalService) Run(ctx context.Context, id string) (lunad.RunInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reads++
	n := min(w.reads, len(w.events))
	info := lunad.RunInfo{ID: id, Workflow: lunad.GoalWorkflow, Status: lunad.RunRunning, Branch: "luna/goal/goal1", Events: w.events[:n]}
	if last := w.events[n-1]; n == len(w.events) {
		info.Status = lunad.RunStatus(last.Outcome)
	}
	return info, nil
}

func (w *goalService) AcceptRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return w.settle("accept", id)
}

func (w *goalService) DiscardRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return w.settle("discard", id)
}

// settle records an accept or discard and answers as the engine does:
// the run, accepted at the goal's commit, or discarded; or settleErr.
func (w *goalService) settle(verb, id string) (lunad.RunInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settled = append(w.settled, verb+" "+id)
	if w.settleErr != nil {
		return lunad.RunInfo{}, w.settleErr
	}
	info := lunad.RunInfo{ID: id, Workflow: lunad.GoalWorkflow, Status: lunad.RunStatus(lunad.GoalFinished), Branch: "luna/goal/" + id, BaseBranch: "main"}
	if verb == "accept" {
		info.Accepted = "89abcdef01234567"
	} else {
		info.Discarded = true
	}
	return info, nil
}

func (w *goalService) RunFile(_ context.Context, id string, seq int, name string) ([]byte, error) {
	if s, ok := w.files[fmt.Sprintf("%d/%s", seq, name)]; ok {
		return []byte(s), nil
	}
	return nil, fmt.Errorf("%w: run %s event %d has no %s", lunad.ErrNotFound, id, seq, name)
}

func goalRun(t *testing.T, res lunad.GoalResult) ([]lunad.RunEvent, map[string]string) {
	t.Helper()
	enc := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	failing := lunad.TestSummary{Failed: 1, Commands: []lunad.GoalCommand{{Argv: []string{"pytest", "-q"}, ExitCode: 1}}}
	passing := lunad.TestSummary{Passed: 1, OK: true, Commands: []lunad.GoalCommand{{Argv: []string{"pytest", "-q"}}}}
	edit := lunad.GoalStep{Step: 1, Action: lunad.GoalAction{Tool: "edit_artifact", Args: json.RawMessage(`{"path":"config.py"}`)}, Observation: lunad.GoalObservation{Status: "ok", Files: []string{"config.py"}}}
	finish := lunad.GoalStep{Step: 2, Action: lunad.GoalAction{Tool: "finish", Args: json.RawMessage(`{"summary":"fixed"}`)}, Observation: lunad.GoalObservation{Status: "ok"}}
	events := []lunad.RunEvent{
		{Seq: 1, Type: lunad.EventRunCreated},
		{Seq: 2, Type: lunad.EventStageSucceeded, Stage: "begin", Output: enc(map[string]any{"tests": failing, "tested": true})},
		{Seq: 3, Type: lunad.EventStageSucceeded, Stage: "act", Output: enc(map[string]any{"steps": 1, "max_steps": 30, "recent": []lunad.GoalStep{edit}})},
		{Seq: 4, Type: lunad.EventStageCommitted, Stage: "act", Writes: []lunad.ArtifactRef{{Path: "config.py", Commit: "89abcdef01234567"}}},
		{Seq: 5, Type: lunad.EventStageSucceeded, Stage: "test", Output: enc(map[string]any{"steps": 1, "tests": passing, "tests_step": 1})},
		{Seq: 6, Type: lunad.EventStageSucceeded, Stage: "act", Output: enc(map[string]any{"steps": 2, "max_steps": 30, "recent": []lunad.GoalStep{edit, finish}})},
		{Seq: 7, Type: lunad.EventStageSucceeded, Stage: "report", Output: enc(map[string]any{"steps": 2, "outcome": "finished"})},
		{Seq: 8, Type: lunad.EventRunCompleted, Outcome: string(res.Outcome), Output: enc(res)},
	}
	files := map[string]string{"3/trace/0001.json": string(enc(edit)), "6/trace/0002.json": string(enc(finish)), "7/report.md": "# Goal: make the tests pass\n\n- Outcome: **finished**\n"}
	return events, files
}

// TestGoal: luna.goal starts the goal workflow (the workspace's [tests]
// commands when it names none) and answers at once; the goal is reported
// as $/progress, a report per step; at its end its report is kept as a
// file, and window/showMessageRequest offers to open it, which
// window/showDocument does.
func TestGoal(t *testing.T) {
	var svc *goalService
	res := lunad.GoalResult{Run: "goal1", Goal: "make the tests pass", Outcome: lunad.GoalFinished, Summary: "fixed", Branch: "luna/goal/goal1", Commits: []string{"89abcdef01234567"},
		TestsBefore: &lunad.TestSummary{Failed: 1}, TestsAfter: &lunad.TestSummary{Passed: 1, OK: true}, Steps: 2, Report: "report.md"}
	events, files := goalRun(t, res)
	s := startConfigured(t, startConfig{wrap: func(base *workspace.Service) lunad.Workspace {
		svc = &goalService{Service: base, events: events, files: files}
		return svc
	}, goalTests: [][]string{{"pytest", "-q"}}, choose: openReport,
		caps: protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{ShowDocument: &protocol.ShowDocumentClientCapabilities{Support: true}}}})

	var run lunad.RunInfo
	if err := s.runCommand("luna.goal", &run, `{"goal": "make the tests pass", "maxSteps": 12}`); err != nil {
		t.Fatal(err)
	}
	if run.ID != "goal1" || run.Status != lunad.RunRunning || run.Branch != "luna/goal/goal1" {
		t.Fatalf("luna.goal = %+v", run)
	}
	token := "lunad-goal-goal1"
	want := []string{"create", "begin: lunad: goal: goal1: started on luna/goal/goal1",
		"report: goal1: tests at the start: FAIL — 1 failed (pytest -q exit 1)", "report: goal1: step 1/30: edit_artifact config.py → ok, changed config.py",
		"report: goal1: committed 89abcdef: config.py", "report: goal1: tests after step 1: ok — 1 passed (pytest -q exit 0)",
		"report: goal1: step 2/30: finish → ok", "report: goal1: report written", "report: goal1: finished", "end: goal1: finished"}
	s.cl.waitFor(t, "the goal's progress", func() bool { return len(s.cl.progress[token]) == len(want) })
	s.cl.waitFor(t, "the report shown", func() bool { return len(s.cl.shown) == 1 })
	s.cl.mu.Lock()
	defer s.cl.mu.Unlock()
	got := slices.Clone(s.cl.progress[token])
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("progress:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.cl.requests) != 1 || s.cl.requests[0] != fmt.Sprintf("%v: lunad goal goal1: finished: fixed; 1 commits on luna/goal/goal1; tests FAIL → ok; take it with lunad goal accept goal1, or drop it with lunad goal discard goal1 [Open report Accept Discard]", protocol.MessageTypeInfo) {
		t.Fatalf("showMessageRequest %q", s.cl.requests)
	}
	report := filepath.Join(s.root, ".git", "luna", "goals", "goal1.md")
	if s.cl.shown[0] != uri.File(report) {
		t.Fatalf("showDocument %s, want %s", s.cl.shown[0], uri.File(report))
	}
	if b, err := os.ReadFile(report); err != nil || string(b) != files["7/report.md"] {
		t.Fatalf("the report file: %q, %v", b, err)
	}
	var doc lunad.GoalTrace
	if b, err := os.ReadFile(filepath.Join(s.root, ".git", "luna", "goals", "goal1.json")); err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Trace) != 2 || doc.Result.Run != "goal1" {
		t.Fatalf("the trace file: %+v, %v", doc, err)
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	if p := svc.started[0].Params; svc.started[0].Workflow != lunad.GoalWorkflow || p["goal"] != "make the tests pass" || p["max_steps"] != "12" || p["tests"] != `[["pytest","-q"]]` {
		t.Fatalf("started %+v", svc.started)
	}
}

// TestGoalWithoutShowDocument: a client that cannot show documents is
// told where the report is; a client that declines the offer is shown
// nothing, and nothing is accepted or discarded.
func TestGoalWithoutShowDocument(t *testing.T) {
	res := lunad.GoalResult{Run: "goal1", Outcome: lunad.GoalMaxSteps, Reason: "the goal took 30 steps", Branch: "luna/goal/goal1", Commits: []string{"89abcdef01234567"}, Report: "report.md"}
	for _, tc := range []struct {
		name    string
		caps    protocol.ClientCapabilities
		report  bool // the message names the report's file
		actions string
	}{
		{"no showDocument", protocol.ClientCapabilities{}, true, "[Accept Discard]"},
		{"declined", protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{ShowDocument: &protocol.ShowDocumentClientCapabilities{Support: true}}}, false, "[Open report Accept Discard]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events, files := goalRun(t, res)
			svc := &goalService{events: events, files: files}
			s := startConfigured(t, startConfig{wrap: func(base *workspace.Service) lunad.Workspace {
				svc.Service = base
				return svc
			}, caps: tc.caps})
			if err := s.runCommand("luna.goal", nil, `"make the tests pass"`); err != nil {
				t.Fatal(err)
			}
			report := filepath.Join(s.root, ".git", "luna", "goals", "goal1.md")
			want := fmt.Sprintf("%v: lunad goal goal1: max_steps: the goal took 30 steps; 1 commits on luna/goal/goal1; no tests ran; take it with lunad goal accept goal1, or drop it with lunad goal discard goal1", protocol.MessageTypeWarning)
			if tc.report {
				want += "; the report: " + report
			}
			s.cl.waitFor(t, "the offer", func() bool { return len(s.cl.requests) == 1 })
			s.cl.mu.Lock()
			defer s.cl.mu.Unlock()
			if s.cl.requests[0] != want+" "+tc.actions {
				t.Fatalf("request %q\nwant    %q", s.cl.requests[0], want+" "+tc.actions)
			}
			if _, err := os.Stat(report); err != nil {
				t.Fatal(err)
			}
			if len(s.cl.shown) != 0 || len(svc.settled) != 0 {
				t.Fatalf("shown %v, settled %v", s.cl.shown, svc.settled)
			}
		})
	}
}

// TestGoalSettleOffered: the message that ends a goal with commits offers
// Accept and Discard; the one chosen is done (AcceptRun, DiscardRun) and
// its outcome shown — a refusal too, worded with the git merge that
// keeps the work. A goal without commits offers neither.
func TestGoalSettleOffered(t *testing.T) {
	base, now := strings.Repeat("a", 40), strings.Repeat("b", 40)
	moved := &lunad.BranchMovedError{Branch: "main", Base: base, Now: now, Run: "goal1", RunBranch: "luna/goal/goal1"}
	for _, tc := range []struct {
		name    string
		choose  string
		commits []string
		err     error
		settled []string
		message string // the window/showMessage that follows: "TYPE: TEXT" (3 info, 1 error)
		actions string
	}{
		{"accept", acceptAction, []string{"89abcdef01234567"}, nil, []string{"accept goal1"},
			"3: lunad goal goal1 accepted: main is at 89abcdef now, with the goal's work; luna/goal/goal1 removed", "[Open report Accept Discard]"},
		{"discard", discardAction, []string{"89abcdef01234567"}, nil, []string{"discard goal1"},
			"3: lunad goal goal1 discarded: luna/goal/goal1 and its worktree removed (the report stays: lunad goal show goal1)", "[Open report Accept Discard]"},
		{"accept refused", acceptAction, []string{"89abcdef01234567"}, moved, []string{"accept goal1"},
			"1: lunad goal goal1: conflict: branch main moved since run goal1 started (aaaaaaaaaaaa → bbbbbbbbbbbb); nothing was changed: merge luna/goal/goal1 yourself with git (git merge luna/goal/goal1, on main), or discard the run (luna.discardRun)", "[Open report Accept Discard]"},
		{"no commits", acceptAction, nil, nil, nil, "", "[Open report]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := lunad.GoalResult{Run: "goal1", Outcome: lunad.GoalFinished, Summary: "done", Branch: "luna/goal/goal1", Commits: tc.commits, Report: "report.md"}
			events, files := goalRun(t, res)
			svc := &goalService{events: events, files: files, settleErr: tc.err}
			s := startConfigured(t, startConfig{wrap: func(base *workspace.Service) lunad.Workspace {
				svc.Service = base
				return svc
			}, choose: tc.choose, caps: protocol.ClientCapabilities{Window: &protocol.WindowClientCapabilities{ShowDocument: &protocol.ShowDocumentClientCapabilities{Support: true}}}})
			if err := s.runCommand("luna.goal", nil, `"make the tests pass"`); err != nil {
				t.Fatal(err)
			}
			s.cl.waitFor(t, "the offer", func() bool { return len(s.cl.requests) == 1 })
			if tc.message != "" {
				s.cl.waitFor(t, "the outcome", func() bool { return len(s.cl.messages) == 1 })
			}
			s.cl.mu.Lock()
			defer s.cl.mu.Unlock()
			if !strings.HasSuffix(s.cl.requests[0], " "+tc.actions) {
				t.Fatalf("request %q, want the actions %s", s.cl.requests[0], tc.actions)
			}
			if tc.message != "" && s.cl.messages[0] != tc.message {
				t.Fatalf("message %q\nwant    %q", s.cl.messages[0], tc.message)
			}
			svc.mu.Lock()
			defer svc.mu.Unlock()
			if !slices.Equal(svc.settled, tc.settled) {
				t.Fatalf("settled %q, want %q", svc.settled, tc.settled)
			}
		})
	}
}

// TestGoalErrors: bad arguments start nothing.
func TestGoalErrors(t *testing.T) {
	var svc *goalService
	s := startWith(t, func(base *workspace.Service) lunad.Workspace {
		svc = &goalService{Service: base}
		return svc
	})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no argument", nil, "argument 1 must be a non-empty string (luna.goal takes {goal"},
		{"empty goal", []string{`{"goal": " "}`}, "luna.goal: invalid input: the goal is empty"},
		{"not an object", []string{`{"goal": 3}`}, "argument 1 must be an object"},
		{"bad steps", []string{`{"goal": "g", "maxSteps": -2}`}, "--max-steps -2"},
		{"empty test", []string{`{"goal": "g", "tests": [[]]}`}, "test command 1 is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.runCommand("luna.goal", nil, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if len(svc.started) != 0 {
		t.Fatalf("started %+v", svc.started)
	}
}
