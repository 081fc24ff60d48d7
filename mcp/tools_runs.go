package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// The run tools: start a run of a workflow, follow it, list the workflows.
// The engine chooses every next stage; these tools only start and show.

type runWorkflowIn struct {
	Workflow string   `json:"workflow" jsonschema:"the workflow's name: its file is .luna/workflows/NAME.toml (see list_workflows)"`
	Inputs   []string `json:"inputs,omitempty" jsonschema:"artifacts the run reads, by ID or workspace path"`
	Params   []param  `json:"params,omitempty" jsonschema:"the run's parameters, each a name and its string value (an object of string values by name is taken too)"`
	Key      string   `json:"key,omitempty" jsonschema:"an idempotency key: a second call with it starts nothing and returns the run it started"`
	Wait     bool     `json:"wait,omitempty" jsonschema:"wait until the run finishes (completed, aborted, cancelled or dead_lettered) before returning; otherwise return at once with the run as started"`
}

// param is one of a run's parameters. run_workflow takes them as a list
// of pairs rather than a map: a strict tool schema (OpenAI's, Anthropic's)
// cannot describe an object of arbitrary keys. The guard turns the older
// form, an object of values by name, into this one.
type param struct {
	Name  string `json:"name" jsonschema:"the parameter's name"`
	Value string `json:"value" jsonschema:"its value"`
}

// paramMap is params by name; a name given twice is lunad.ErrInvalid.
func paramMap(params []param) (map[string]string, error) {
	if params == nil {
		return nil, nil
	}
	m := make(map[string]string, len(params))
	for _, p := range params {
		if _, dup := m[p.Name]; dup {
			return nil, fmt.Errorf("%w: parameter %q is given twice; give each parameter once", lunad.ErrInvalid, p.Name)
		}
		m[p.Name] = p.Value
	}
	return m, nil
}

type runStatusIn struct {
	ID string `json:"id,omitempty" jsonschema:"a run's ID; every run when omitted"`
}

// runOut is one run: where it stands and the stages it went through.
type runOut struct {
	ID              string          `json:"id"`
	Workflow        string          `json:"workflow"`
	WorkflowVersion string          `json:"workflow_version" jsonschema:"the workflow file's version field and git blob hash, fixed when the run started"`
	Status          lunad.RunStatus `json:"status" jsonschema:"running, completed, aborted, cancelled or dead_lettered"`
	Path            []string        `json:"path" jsonschema:"the stages entered, in order"`
	Stages          []stageOut      `json:"stages"`
	Error           string          `json:"error,omitempty" jsonschema:"why the run stopped, when it did not complete"`
	Updated         string          `json:"updated" jsonschema:"when the run's last event was recorded (RFC 3339)"`
}

// runDetail is a run with its events (run_status).
type runDetail struct {
	runOut
	Events []eventOut `json:"events" jsonschema:"the run's event log, oldest first"`
}

type stageOut struct {
	Stage    string `json:"stage"`
	Attempts int    `json:"attempts"`
	Status   string `json:"status" jsonschema:"enqueued, running, retrying, succeeded or failed"`
	Output   any    `json:"output,omitempty" jsonschema:"the stage's structured output, when it succeeded"`
	Error    string `json:"error,omitempty"`
}

type eventOut struct {
	Seq     int    `json:"seq"`
	Type    string `json:"type" jsonschema:"RUN_CREATED, STAGE_ENQUEUED, STAGE_STARTED, STAGE_SUCCEEDED, STAGE_COMMITTED, STAGE_FAILED, STAGE_CONFLICT, RETRY_SCHEDULED, DEAD_LETTERED, RUN_COMPLETED..."`
	Stage   string `json:"stage,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	Error   string `json:"error,omitempty"`
}

// runStatusOut is run_status's result: one run (with an id) or the list.
type runStatusOut struct {
	Run  *runDetail   `json:"run,omitempty" jsonschema:"the run asked for, with its events"`
	Runs []runSummary `json:"runs,omitzero" jsonschema:"every run, newest first (without an id)"`
}

type runSummary struct {
	ID       string          `json:"id"`
	Workflow string          `json:"workflow"`
	Status   lunad.RunStatus `json:"status"`
	Path     []string        `json:"path"`
	Error    string          `json:"error,omitempty"`
	Updated  string          `json:"updated"`
}

type workflowsOut struct {
	Workflows []workflowOut `json:"workflows"`
}

type workflowOut struct {
	Name     string   `json:"name"`
	Version  string   `json:"version,omitempty" jsonschema:"the version a run started now records"`
	File     string   `json:"file"`
	Start    string   `json:"start,omitempty"`
	Stages   []string `json:"stages"`
	Problems []string `json:"problems,omitempty" jsonschema:"why the file does not check (file:line:col: message); such a workflow cannot be run"`
}

func (s *Server) addRunTools() {
	addTool(s, &sdk.Tool{
		Name:  "run_workflow",
		Title: "Run workflow",
		Description: "Start a run of one of the workspace's workflows (see list_workflows). The engine drives the run through its stages; each stage's writes are commits. " +
			"Returns the run: status, the stages entered so far and their outputs; pass wait to get it once finished. Follow a run with run_status. " +
			"With a key the call is idempotent: calling again returns the same run.",
		Annotations: write(false),
	}, s.runWorkflow)
	addTool(s, &sdk.Tool{
		Name:        "run_status",
		Title:       "Run status",
		Description: "Show a run (status, path of stages, each stage's attempts, status and output, and its events), or without an id list every run: id, workflow, status, path, updated.",
		Annotations: readOnly,
	}, s.runStatus)
	addTool(s, &sdk.Tool{
		Name:        "list_workflows",
		Title:       "List workflows",
		Description: "List the workspace's workflows (.luna/workflows/*.toml): name, version, start stage, stages, and the problems of a file that does not check.",
		Annotations: readOnly,
	}, s.listWorkflows)
}

func (s *Server) runWorkflow(ctx context.Context, _ *sdk.CallToolRequest, in runWorkflowIn) (*sdk.CallToolResult, runOut, error) {
	params, err := paramMap(in.Params)
	if err != nil {
		return nil, runOut{}, s.explainRun(err, "no run was started")
	}
	info, err := s.ws.StartRun(ctx, lunad.RunRequest{Workflow: in.Workflow, Inputs: in.Inputs, Params: params, Key: in.Key})
	if err != nil {
		return nil, runOut{}, s.explainRun(err, "no run was started")
	}
	if in.Wait && !info.Status.Finished() {
		done, err := s.ws.WaitRun(ctx, info.ID)
		if err != nil {
			return nil, runOut{}, s.explainRun(fmt.Errorf("run %s was started and goes on, but waiting for it stopped: %w; follow it with run_status {\"id\": %q}", info.ID, err, info.ID), "")
		}
		info = done
	}
	return nil, runOf(info), nil
}

func (s *Server) runStatus(ctx context.Context, _ *sdk.CallToolRequest, in runStatusIn) (*sdk.CallToolResult, runStatusOut, error) {
	if in.ID != "" {
		info, err := s.ws.Run(ctx, in.ID)
		if err != nil {
			return nil, runStatusOut{}, s.explainRun(err, "")
		}
		out := runDetail{runOut: runOf(info), Events: make([]eventOut, len(info.Events))}
		for i, ev := range info.Events {
			out.Events[i] = eventOut{Seq: ev.Seq, Type: string(ev.Type), Stage: ev.Stage, Attempt: ev.Attempt, Error: ev.Error}
		}
		return nil, runStatusOut{Run: &out}, nil
	}
	all, err := s.ws.Runs(ctx)
	if err != nil {
		return nil, runStatusOut{}, s.explainRun(err, "")
	}
	out := runStatusOut{Runs: make([]runSummary, len(all))} // [] when there are none
	for i, r := range all {
		out.Runs[i] = runSummary{ID: r.ID, Workflow: r.Workflow, Status: r.Status, Path: nonNil(r.Path), Error: r.Error, Updated: stamp(r.Updated)}
	}
	return nil, out, nil
}

func (s *Server) listWorkflows(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, workflowsOut, error) {
	wfs, err := s.ws.Workflows(ctx)
	if err != nil {
		return nil, workflowsOut{}, s.explainRun(err, "")
	}
	out := workflowsOut{Workflows: make([]workflowOut, len(wfs))}
	for i, w := range wfs {
		out.Workflows[i] = workflowOut{Name: w.Name, Version: w.Version, File: w.File, Start: w.Start, Stages: nonNil(w.Stages)}
		if w.Error != "" {
			out.Workflows[i].Problems = strings.Split(w.Error, "\n")
		}
	}
	return nil, out, nil
}

// runOf is the tools' form of a run.
func runOf(r lunad.RunInfo) runOut {
	out := runOut{ID: r.ID, Workflow: r.Workflow, WorkflowVersion: r.WorkflowVersion, Status: r.Status,
		Path: nonNil(r.Path), Stages: make([]stageOut, len(r.Stages)), Error: r.Error, Updated: stamp(r.Updated)}
	for i, st := range r.Stages {
		out.Stages[i] = stageOut{Stage: st.Stage, Attempts: st.Attempts, Status: st.Status, Output: decoded(st.Output), Error: st.Error}
	}
	return out
}

// decoded is a stage's JSON output as a value (nil for none), its numbers
// kept as written.
func decoded(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return string(raw)
	}
	return v
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// explainRun words a run tool's error for a model: what was (not) done —
// done, when the tool would have started something — and which tool shows
// what an unknown name could not find.
func (s *Server) explainRun(err error, done string) error {
	var (
		nf *lunad.RunNotFoundError
		kr *lunad.KeyReusedError
	)
	prefix := ""
	if done != "" {
		prefix = done + ": "
	}
	switch {
	case errors.As(err, &nf):
		hint := "see run_status {} for the runs"
		if nf.Kind == "workflow" {
			hint = "see list_workflows for the workspace's workflows"
		}
		return &toolError{msg: prefix + lunad.Reword(err, nf, fmt.Sprintf("no %s %q; %s", nf.Kind, nf.Ref, hint)), err: err}
	case errors.As(err, &kr):
		return &toolError{msg: prefix + "the key belongs to another run; call again with a new key, or without one. " + err.Error(), err: err}
	case errors.Is(err, lunad.ErrNotFound):
		// an input artifact
		return &toolError{msg: prefix + withToolHint(err), err: err}
	}
	return &toolError{msg: prefix + err.Error(), err: err}
}
