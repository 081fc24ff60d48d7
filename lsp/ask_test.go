package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/workspace"
)

// askService is the session's workspace whose ask runs are played from
// events, one more per read; at the STAGE_COMMITTED event the writer's
// edit of guide.md is made for real, as the engine commits a stage's
// writes, so its event reaches the open buffer.
type askService struct {
	*workspace.Service
	mu      sync.Mutex
	started []lunad.RunRequest
	events  []lunad.RunEvent
	reads   int
	wrote   bool
}

func (w *askService) StartRun(ctx context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started = append(w.started, req)
	return lunad.RunInfo{ID: "ask1", Workflow: req.Workflow, Status: lunad.RunRunning}, nil
}

func (w *askService) Run(ctx context.Context, id string) (lunad.RunInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reads++
	n := min(w.reads, len(w.events))
	if !w.wrote && w.events[n-1].Type == lunad.EventStageCommitted {
		w.wrote = true
		if _, err := w.Service.Edit(ctx, lunad.EditRequest{ID: "guide.md", Change: lunad.Change{Agent: "writer"},
			BlocksText: "<<<<<<< SEARCH\n# Guide\n=======\n# Guide to JSON and TOML\n>>>>>>> REPLACE\n"}); err != nil {
			return lunad.RunInfo{}, err
		}
	}
	info := lunad.RunInfo{ID: id, Workflow: lunad.AskWorkflow, Status: lunad.RunRunning, Events: w.events[:n]}
	if n == len(w.events) {
		info.Status = lunad.RunCompleted
	}
	return info, nil
}

func askEvents(t *testing.T, res lunad.AskResult) []lunad.RunEvent {
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return []lunad.RunEvent{
		{Seq: 1, Type: lunad.EventRunCreated},
		{Seq: 2, Type: lunad.EventStageStarted, Stage: "supervise", Attempt: 1},
		{Seq: 3, Type: lunad.EventStageSucceeded, Stage: "supervise", Attempt: 1, Next: "writer"},
		{Seq: 4, Type: lunad.EventStageStarted, Stage: "writer", Attempt: 1},
		{Seq: 5, Type: lunad.EventStageSucceeded, Stage: "writer", Attempt: 1, Next: "end"},
		{Seq: 6, Type: lunad.EventStageCommitted, Stage: "writer", Writes: []lunad.ArtifactRef{{Path: "guide.md", Version: 2}}},
		{Seq: 7, Type: lunad.EventRunCompleted, Output: out},
	}
}

// TestAsk: luna.ask with the buffer's URI starts the ask workflow with the
// buffer as the active artifact and answers at once; the ask is reported
// as $/progress, one report per stage transition; its write reaches the
// open buffer through the workspace's events; a message says what was
// done.
func TestAsk(t *testing.T) {
	var svc *askService
	res := lunad.AskResult{Run: "ask1", Status: lunad.AskDone, Workers: []string{"writer"}, Summary: "the title mentions JSON",
		Changes: []lunad.AskChange{{ArtifactRef: lunad.ArtifactRef{Path: "guide.md", Version: 2}, Added: 1, Removed: 1, Worker: "writer"}},
		Usage:   lunad.AskUsage{InputTokens: 700, OutputTokens: 50, Calls: 2}}
	s := startWith(t, func(base *workspace.Service) lunad.Workspace {
		svc = &askService{Service: base, events: askEvents(t, res)}
		return svc
	})
	s.cl.waitFor(t, "the buffer to be open", func() bool { _, ok := s.cl.diags[s.docURI]; return ok })

	var run lunad.RunInfo
	if err := s.runCommand("luna.ask", &run, `{"request": "mention JSON in the title", "artifact": "`+string(s.docURI)+`"}`); err != nil {
		t.Fatal(err)
	}
	if run.ID != "ask1" || run.Status != lunad.RunRunning {
		t.Fatalf("luna.ask = %+v", run)
	}
	svc.mu.Lock()
	req := svc.started[0]
	svc.mu.Unlock()
	if req.Workflow != "ask" || len(req.Params) != 2 || req.Params["request"] != "mention JSON in the title" || req.Params["artifact"] != "guide.md" {
		t.Fatalf("started %+v", req)
	}
	token := "lunad-ask-ask1"
	want := []string{"create", "begin: lunad: ask: ask1: started",
		"report: ask1: supervise: working", "report: ask1: supervise: done, next writer", "report: ask1: writer: working",
		"report: ask1: writer: done", "report: ask1: writer: committed guide.md v2", "report: ask1: completed", "end: ask1: done"}
	s.cl.waitFor(t, "the ask's progress", func() bool { return len(s.cl.progress[token]) == len(want) })
	s.cl.waitFor(t, "the final message", func() bool { return len(s.cl.messages) == 1 })
	s.cl.waitFor(t, "workspace/applyEdit of the open buffer", func() bool { return len(s.cl.edits) == 1 })
	s.cl.mu.Lock()
	defer s.cl.mu.Unlock()
	// The test client handles notifications concurrently: their order
	// there is not the order sent.
	got := slices.Clone(s.cl.progress[token])
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("progress:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if msg := s.cl.messages[0]; msg != fmt.Sprintf("%v: lunad ask: done: the title mentions JSON; edited guide.md v2 (+1 -1, writer); tokens 700 in, 50 out", protocol.MessageTypeInfo) {
		t.Fatalf("message %q", msg)
	}
	if edit := s.cl.edits[0].Changes[s.docURI]; len(edit) != 1 || !strings.HasPrefix(edit[0].NewText, "# Guide to JSON and TOML\n") {
		t.Fatalf("applyEdit = %+v", s.cl.edits[0])
	}
}

// TestAskQuestion: an ask that asks back ends with a warning carrying the
// question; the positional form takes the request and an artifact.
func TestAskQuestion(t *testing.T) {
	var svc *askService
	res := lunad.AskResult{Run: "ask1", Status: lunad.AskQuestion, Question: "which article, notes/a.md or notes/b.md?"}
	out, _ := json.Marshal(res)
	s := startWith(t, func(base *workspace.Service) lunad.Workspace {
		svc = &askService{Service: base, events: []lunad.RunEvent{{Seq: 1, Type: lunad.EventRunCreated}, {Seq: 2, Type: lunad.EventRunCompleted, Output: out}}}
		return svc
	})
	if err := s.runCommand("luna.ask", nil, `"change the second paragraph"`, `"config.py"`); err != nil {
		t.Fatal(err)
	}
	s.cl.waitFor(t, "the final message", func() bool { return len(s.cl.messages) == 1 })
	s.cl.mu.Lock()
	defer s.cl.mu.Unlock()
	if msg := s.cl.messages[0]; msg != fmt.Sprintf("%v: lunad ask: question; nothing was written: which article, notes/a.md or notes/b.md?; tokens 0 in, 0 out", protocol.MessageTypeWarning) {
		t.Fatalf("message %q", msg)
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	if p := svc.started[0].Params; p["request"] != "change the second paragraph" || p["artifact"] != "config.py" {
		t.Fatalf("params %v", p)
	}
}

// TestAskErrors: bad arguments and an unknown artifact start nothing.
func TestAskErrors(t *testing.T) {
	var svc *askService
	s := startWith(t, func(base *workspace.Service) lunad.Workspace {
		svc = &askService{Service: base}
		return svc
	})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no argument", nil, "argument 1 must be a non-empty string (luna.ask takes {request"},
		{"empty request", []string{`{"request": " "}`}, "argument 1 must be a request saying what to do"},
		{"not an object", []string{`{"request": 3}`}, "argument 1 must be an object"},
		{"unknown artifact", []string{`"fix it"`, `"nope.md"`}, "luna.ask: the active artifact"},
		{"outside the workspace", []string{`{"request": "fix it", "artifact": "file:///etc/passwd"}`}, "is not a file of the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.runCommand("luna.ask", nil, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if len(svc.started) != 0 {
		t.Fatalf("started %+v", svc.started)
	}
}
