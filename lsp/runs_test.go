package lsp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
)

// runCommand runs a luna.* command with JSON arguments and decodes its
// result into out (if not nil).
func (s *session) runCommand(cmd string, out any, args ...string) error {
	s.t.Helper()
	params := &protocol.ExecuteCommandParams{Command: cmd}
	for _, a := range args {
		params.Arguments = append(params.Arguments, protocol.LSPAny(a))
	}
	res, err := s.srv.ExecuteCommand(context.Background(), params)
	if err == nil && out != nil {
		if err := json.Unmarshal([]byte(res), out); err != nil {
			s.t.Fatalf("%s: decoding %s: %v", cmd, res, err)
		}
	}
	return err
}

// runProgress waits for the end of run id's progress and returns it.
func (s *session) runProgress(id string) []string {
	s.t.Helper()
	token := "lunad-run-" + id
	s.cl.waitFor(s.t, "the end of "+token, func() bool {
		p := s.cl.progress[token]
		return len(p) > 0 && strings.HasPrefix(p[len(p)-1], "end: ")
	})
	s.cl.mu.Lock()
	defer s.cl.mu.Unlock()
	return slices.Clone(s.cl.progress[token])
}

// TestRunWorkflowProgress: luna.runWorkflow answers with the run at once,
// then reports it as work-done progress — created, begun, a report per
// stage, ended with the final status; luna.runs lists the runs and shows
// one with its events.
func TestRunWorkflowProgress(t *testing.T) {
	s := start(t)
	wstest.AddWorkflows(t, s.root)

	var run lunad.RunInfo
	if err := s.runCommand("luna.runWorkflow", &run, `{"workflow": "review", "params": {"score": "0.9", "sleep": "0.3"}}`); err != nil {
		t.Fatal(err)
	}
	if run.ID == "" || run.Workflow != "review" || run.Status != lunad.RunRunning {
		t.Fatalf("luna.runWorkflow = %+v, want the run, running", run)
	}
	want := []string{
		"create",
		"begin: lunad: run review: " + run.ID + ": started",
		"report: " + run.ID + ": stage 1, draft",
		"report: " + run.ID + ": stage 2, publish",
		"end: " + run.ID + ": completed: draft → publish",
	}
	if got := s.runProgress(run.ID); !slices.Equal(got, want) {
		t.Fatalf("progress of the run:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	var failed lunad.RunInfo
	if err := s.runCommand("luna.runWorkflow", &failed, `{"workflow": "review", "params": {"fail": "publish"}}`); err != nil {
		t.Fatal(err)
	}
	got := s.runProgress(failed.ID)
	if end := got[len(got)-1]; end != "end: "+failed.ID+": dead_lettered: draft → publish: permanent failure: asked to fail" {
		t.Fatalf("progress of the failing run ends %q", end)
	}

	var runs []lunad.RunInfo
	if err := s.runCommand("luna.runs", &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || !slices.ContainsFunc(runs, func(r lunad.RunInfo) bool { return r.ID == run.ID && r.Status == lunad.RunCompleted }) {
		t.Fatalf("luna.runs = %+v", runs)
	}
	for _, arg := range []string{`{"id": "` + run.ID + `"}`, `"` + run.ID + `"`} {
		var one lunad.RunInfo
		if err := s.runCommand("luna.runs", &one, arg); err != nil {
			t.Fatal(err)
		}
		if one.ID != run.ID || one.Status != lunad.RunCompleted || len(one.Events) == 0 || one.Events[len(one.Events)-1].Type != lunad.EventRunCompleted {
			t.Fatalf("luna.runs %s = %+v", arg, one)
		}
	}
}

// TestRunCommandErrors: unknown runs and workflows and bad arguments are
// errors; a start with a used key returns the same run.
func TestRunCommandErrors(t *testing.T) {
	s := start(t)
	wstest.AddWorkflows(t, s.root)
	for _, tc := range []struct {
		name, cmd string
		args      []string
		want      string
	}{
		{"unknown run", "luna.runs", []string{`"nope"`}, `no run "nope"`},
		{"bad run argument", "luna.runs", []string{`{"run": 1}`}, "argument 1 must be a run's ID or {id}"},
		{"unknown workflow", "luna.runWorkflow", []string{`{"workflow": "nope"}`}, `no workflow "nope"`},
		{"workflow that does not check", "luna.runWorkflow", []string{`{"workflow": "broken"}`}, ".luna/workflows/broken.toml:3:"},
		{"not an object", "luna.runWorkflow", []string{`"review"`}, "argument 1 must be {workflow, params?: {name: string}, inputs?: [ID or path], key?}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.runCommand(tc.cmd, nil, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	var first, again lunad.RunInfo
	arg := `{"workflow": "review", "key": "k1"}`
	if err := s.runCommand("luna.runWorkflow", &first, arg); err != nil {
		t.Fatal(err)
	}
	s.runProgress(first.ID)
	if err := s.runCommand("luna.runWorkflow", &again, arg); err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || again.Status != lunad.RunCompleted {
		t.Fatalf("second start with the key = %+v, want run %s, completed", again, first.ID)
	}
}

// TestRunProgressStopsAtShutdown: shutdown ends the progress of a run
// still going (the run goes on), and the session ends without waiting for
// the run.
func TestRunProgressStopsAtShutdown(t *testing.T) {
	s := start(t)
	wstest.AddWorkflows(t, s.root)
	var run lunad.RunInfo
	if err := s.runCommand("luna.runWorkflow", &run, `{"workflow": "review", "params": {"sleep": "3"}}`); err != nil {
		t.Fatal(err)
	}
	token := "lunad-run-" + run.ID
	s.cl.waitFor(t, "the stage report", func() bool { return len(s.cl.progress[token]) == 3 })
	if err := s.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := s.runProgress(run.ID)
	if end := got[len(got)-1]; !strings.Contains(end, "no longer followed (lunad is shutting down); the run goes on") {
		t.Fatalf("progress at shutdown ends %q", end)
	}
}
