package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad/internal/wstest"
)

// connectRuns is connect over a workspace with wstest's review and broken
// workflows and their agent.
func connectRuns(t *testing.T) *sdk.ClientSession {
	t.Helper()
	svc, dir := newService(t, nil)
	wstest.AddWorkflows(t, dir)
	srv, err := New(context.Background(), svc, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return connectTo(t, srv, nil)
}

// TestRunWorkflow: list_workflows shows the workflows (and a broken one's
// problems); run_workflow with wait returns the finished run; run_status
// shows it with its events, and lists it; its stages' writes are artifacts.
func TestRunWorkflow(t *testing.T) {
	cs := connectRuns(t)
	var wfs workflowsOut
	if res := call(t, cs, "list_workflows", map[string]any{}, &wfs); res.IsError {
		t.Fatal(text(res))
	}
	if len(wfs.Workflows) != 2 || wfs.Workflows[0].Name != "broken" || len(wfs.Workflows[0].Problems) == 0 ||
		!strings.Contains(wfs.Workflows[0].Problems[0], ".luna/workflows/broken.toml:3:") {
		t.Fatalf("workflows = %+v, want broken (with its problem) and review", wfs.Workflows)
	}
	if r := wfs.Workflows[1]; r.Name != "review" || r.Start != "draft" || !slices.Equal(r.Stages, []string{"draft", "publish"}) || !strings.HasPrefix(r.Version, "1@") {
		t.Fatalf("review = %+v", r)
	}

	var run runOut
	if res := call(t, cs, "run_workflow", map[string]any{"workflow": "review", "params": map[string]string{"score": "0.9"}, "wait": true}, &run); res.IsError {
		t.Fatal(text(res))
	}
	if run.Status != "completed" || !slices.Equal(run.Path, []string{"draft", "publish"}) || len(run.Stages) != 2 || run.Error != "" {
		t.Fatalf("run = %+v, want completed through draft and publish", run)
	}
	if st := run.Stages[0]; st.Stage != "draft" || st.Attempts != 1 || st.Status != "succeeded" || fmt.Sprint(st.Output) != "map[score:0.9 stage:draft]" {
		t.Errorf("draft = %+v (output %s)", st, st.Output)
	}

	var status runStatusOut
	if res := call(t, cs, "run_status", map[string]any{"id": run.ID}, &status); res.IsError {
		t.Fatal(text(res))
	}
	if status.Run == nil || status.Run.ID != run.ID || status.Run.Status != "completed" || status.Runs != nil {
		t.Fatalf("run_status = %+v", status)
	}
	evs := status.Run.Events
	if len(evs) < 4 || evs[0].Type != "RUN_CREATED" || evs[0].Seq != 1 || evs[len(evs)-1].Type != "RUN_COMPLETED" {
		t.Fatalf("events = %+v", evs)
	}
	if i := slices.IndexFunc(evs, func(e eventOut) bool { return e.Type == "STAGE_SUCCEEDED" }); i < 0 || evs[i].Stage != "draft" || evs[i].Attempt != 1 {
		t.Errorf("events = %+v, want draft's STAGE_SUCCEEDED", evs)
	}

	// A low score ends the run after the draft.
	var short runOut
	call(t, cs, "run_workflow", map[string]any{"workflow": "review", "params": map[string]string{"score": "0.1"}, "wait": true}, &short)
	if short.Status != "completed" || !slices.Equal(short.Path, []string{"draft"}) {
		t.Fatalf("short run = %+v", short)
	}
	// A permanent failure dead-letters the run: a result, not a tool error.
	var failed runOut
	if res := call(t, cs, "run_workflow", map[string]any{"workflow": "review", "params": map[string]string{"fail": "publish"}, "wait": true}, &failed); res.IsError {
		t.Fatal(text(res))
	}
	if failed.Status != "dead_lettered" || !strings.Contains(failed.Error, "asked to fail") || failed.Stages[1].Status != "failed" {
		t.Fatalf("failed run = %+v", failed)
	}

	var list runStatusOut
	call(t, cs, "run_status", map[string]any{}, &list)
	if len(list.Runs) != 3 || list.Run != nil {
		t.Fatalf("run_status {} = %+v, want 3 runs", list)
	}
	for _, r := range list.Runs {
		if r.Workflow != "review" || r.Updated == "" || len(r.Path) == 0 {
			t.Errorf("listed run %+v", r)
		}
	}

	var r readOut
	if res := call(t, cs, "read_artifact", map[string]any{"id": "notes/publish.md"}, &r); res.IsError || r.Content != "publish of run "+run.ID+"\n" {
		t.Errorf("notes/publish.md: %q %s", r.Content, text(res))
	}
}

// TestRunWorkflowKey: a second start with a key returns the run it
// started (and can wait for it); the key with another request is refused.
func TestRunWorkflowKey(t *testing.T) {
	cs := connectRuns(t)
	args := map[string]any{"workflow": "review", "key": "weekly-42", "params": map[string]string{"score": "1"}}
	var first, again runOut
	if res := call(t, cs, "run_workflow", args, &first); res.IsError {
		t.Fatal(text(res))
	}
	if first.ID == "" || first.Workflow != "review" {
		t.Fatalf("started %+v", first)
	}
	args["wait"] = true
	if res := call(t, cs, "run_workflow", args, &again); res.IsError {
		t.Fatal(text(res))
	}
	if again.ID != first.ID || again.Status != "completed" {
		t.Fatalf("again = %+v, want run %s completed", again, first.ID)
	}
	var list runStatusOut
	call(t, cs, "run_status", map[string]any{}, &list)
	if len(list.Runs) != 1 {
		t.Fatalf("runs = %+v, want the one run", list.Runs)
	}
	args["params"] = map[string]string{"score": "0"}
	wantError(t, call(t, cs, "run_workflow", args, nil), "no run was started", "the key belongs to another run", `"weekly-42"`, "this one has other params")
}

// TestRunToolErrors: unknown runs and workflows, and workflows that do not
// check, are errors that say which tool shows what there is.
func TestRunToolErrors(t *testing.T) {
	cs := connectRuns(t)
	if res := call(t, cs, "run_status", map[string]any{}, nil); res.IsError || !strings.Contains(text(res), `"runs":[]`) {
		t.Errorf("run_status {} with no runs: %s", text(res))
	}
	wantError(t, call(t, cs, "run_status", map[string]any{"id": "nope"}, nil), `no run "nope"; see run_status {} for the runs`)
	wantError(t, call(t, cs, "run_workflow", map[string]any{"workflow": "nope"}, nil),
		"no run was started", `no workflow "nope"; see list_workflows for the workspace's workflows`)
	wantError(t, call(t, cs, "run_workflow", map[string]any{"workflow": "broken"}, nil), "no run was started", ".luna/workflows/broken.toml:3:")
	wantError(t, call(t, cs, "run_workflow", map[string]any{"workflow": "review", "inputs": []string{"missing.md"}}, nil),
		"no run was started", "input missing.md", "see list_artifacts")
	wantError(t, call(t, cs, "run_workflow", map[string]any{"workflow": "review", "params": map[string]any{"n": 3}}, nil), "run_workflow takes:")
}
