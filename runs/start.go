package runs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/workflow"
)

// Start starts a run of the workspace's workflow req.Workflow and returns
// it as created; the engine drives it in the background. With req.Key,
// starting again returns the run the key started (ErrConflict, as a
// *lunad.KeyReusedError, if the request differs). An isolated workflow's
// run is given its branch and base (isolation.go): ErrDirty when the
// working tree has uncommitted changes.
func (e *Engine) Start(ctx context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	wf, data, err := e.load(req.Workflow)
	if err != nil {
		return lunad.RunInfo{}, err
	}
	for _, name := range wf.Order {
		if a := wf.Stages[name].Agent; a != "" && e.opts.Agents[a] == nil {
			return lunad.RunInfo{}, fmt.Errorf("%w: stage %s of workflow %s names agent %q, which lunad does not have (it has %s)",
				lunad.ErrInvalid, name, wf.Name, a, strings.Join(slices.Sorted(maps.Keys(e.opts.Agents)), ", "))
		}
	}
	inputs := make([]lunad.ArtifactRef, 0, len(req.Inputs))
	for _, ref := range req.Inputs {
		a, err := e.opts.Effects.Artifact(ctx, ref)
		if err != nil {
			return lunad.RunInfo{}, fmt.Errorf("input %s: %w", ref, err)
		}
		inputs = append(inputs, lunad.ArtifactRef{ID: a.ID, Path: a.Path, Version: a.Version, Commit: a.Commit})
	}
	id := e.opts.NewID()
	if req.Key != "" {
		id = keyRunID(req.Key)
	}
	corr := req.CorrelationID
	if corr == "" {
		corr = id
	}
	ev := lunad.RunEvent{Seq: 1, Type: lunad.EventRunCreated, RunID: id, CorrelationID: corr, Workflow: wf.Name,
		WorkflowVersion: wf.VersionID(), ConfigRef: workflow.BlobHash(e.opts.Config),
		Params: req.Params, Key: req.Key, Inputs: inputs, Time: e.now()}
	if wf.Isolated {
		if req.Key != "" {
			// The run the key started, if any, whatever the working tree is now.
			if _, _, err := e.opts.Store.RunLog(ctx, id); err == nil {
				return e.sameStart(ctx, id, ev)
			}
		}
		if err := e.isolate(ctx, &ev); err != nil {
			return lunad.RunInfo{}, err
		}
	}
	recs := []lunad.RunRecord{{Event: ev, Files: map[string][]byte{fileWorkflow: data, fileConfig: e.opts.Config}}}
	st := fold([]lunad.RunEvent{ev}, "")
	info := st.info // the run as created, before the driver changes st
	if !wf.Isolated {
		// The first attempt's events go in the same durable append as
		// the run's creation: one sync fewer per run. An isolated run
		// makes its worktree first (the loop's prepare), so its first
		// attempt starts in an append of its own.
		for _, next := range st.enqueue(wf.Start, 1, 1, e.agentVersion(wf, wf.Start), e.now()) {
			recs = append(recs, lunad.RunRecord{Event: next})
		}
	}
	tip, err := e.opts.Store.AppendRun(ctx, id, "", recs)
	if errors.Is(err, lunad.ErrExists) && req.Key != "" {
		return e.sameStart(ctx, id, ev)
	}
	if err != nil {
		return lunad.RunInfo{}, err
	}
	for _, rec := range recs[1:] {
		rec.Event.Seq = st.seq + 1
		st.apply(rec.Event)
	}
	st.tip = tip
	e.drive(&run{id: id, wf: wf, st: st, attemptDue: len(recs) > 1})
	return info, nil
}

// sameStart answers a start whose key made run id before: that run, if
// the request is the same.
func (e *Engine) sameStart(ctx context.Context, id string, ev lunad.RunEvent) (lunad.RunInfo, error) {
	info, err := e.Run(ctx, id)
	if err != nil {
		return lunad.RunInfo{}, err
	}
	first := info.Events[0]
	why := ""
	switch {
	case first.Workflow != ev.Workflow:
		why = "this one runs workflow " + ev.Workflow
	case !maps.Equal(first.Params, ev.Params):
		why = "this one has other params"
	case !slices.EqualFunc(first.Inputs, ev.Inputs, func(a, b lunad.ArtifactRef) bool { return a.ID == b.ID }):
		why = "this one has other inputs"
	}
	if why != "" {
		return lunad.RunInfo{}, &lunad.KeyReusedError{Key: ev.Key, Use: "run " + id + " of workflow " + first.Workflow, Why: why}
	}
	info.Events = nil
	return info, nil
}

// keyRunID is the ID of the run started with an idempotency key: deriving
// it makes a second start with the key find the first one atomically.
func keyRunID(key string) string {
	h := sha256.Sum256([]byte(key))
	return "k-" + hex.EncodeToString(h[:10])
}

// load reads and parses the workflow name: the workspace's file, else
// the built-in workflow of that name.
func (e *Engine) load(name string) (*workflow.Workflow, []byte, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return nil, nil, fmt.Errorf("%w: %q is not a workflow name (a file name under %s, without .toml)", lunad.ErrInvalid, name, workflow.Dir)
	}
	file := filepath.Join(workflow.Dir, name+".toml")
	data, err := os.ReadFile(filepath.Join(e.opts.Root, file))
	if errors.Is(err, os.ErrNotExist) {
		if b, ok := e.opts.Builtin[name]; ok {
			wf, err := parseBuiltin(name, b)
			return wf, b, err
		}
		return nil, nil, &lunad.RunNotFoundError{Kind: "workflow", Ref: name}
	}
	if err != nil {
		return nil, nil, err
	}
	wf, err := workflow.Parse(file, data)
	if err != nil {
		return nil, nil, err
	}
	if wf.Name != name {
		// As workflow.LoadFile has it: runs record the name, which must
		// find the file again.
		return nil, nil, fmt.Errorf("%w: %s: the workflow is named %q; name it %q, as its file", lunad.ErrInvalid, file, wf.Name, name)
	}
	return wf, data, nil
}

// builtinFile is what a built-in workflow's File says.
func builtinFile(name string) string { return "builtin:" + name }

// parseBuiltin parses the built-in workflow name.
func parseBuiltin(name string, data []byte) (*workflow.Workflow, error) {
	wf, err := workflow.Parse(builtinFile(name), data)
	if err != nil {
		return nil, err
	}
	if wf.Name != name {
		return nil, fmt.Errorf("%w: %s: the workflow is named %q, not %q", lunad.ErrInvalid, builtinFile(name), wf.Name, name)
	}
	return wf, nil
}

// Workflows lists the workspace's workflow files and the built-in
// workflows no file overrides, by name; one that does not check is
// listed with its errors.
func (e *Engine) Workflows(ctx context.Context) ([]lunad.WorkflowInfo, error) {
	files, err := filepath.Glob(filepath.Join(e.opts.Root, workflow.Dir, "*.toml"))
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, f := range files {
		names[strings.TrimSuffix(filepath.Base(f), ".toml")] = true
	}
	for name := range e.opts.Builtin {
		names[name] = true
	}
	out := make([]lunad.WorkflowInfo, 0, len(names))
	for _, name := range slices.Sorted(maps.Keys(names)) {
		wf, _, err := e.load(name)
		out = append(out, workflowInfo(name, wf, err))
	}
	return out, nil
}

// Workflow describes the workflow name (the workspace's file, else the
// built-in one); one that does not check is described with its errors.
func (e *Engine) Workflow(ctx context.Context, name string) (lunad.WorkflowInfo, error) {
	wf, _, err := e.load(name)
	if err != nil && !errors.Is(err, lunad.ErrInvalid) {
		return lunad.WorkflowInfo{}, err
	}
	return workflowInfo(name, wf, err), nil
}

func workflowInfo(name string, wf *workflow.Workflow, err error) lunad.WorkflowInfo {
	info := lunad.WorkflowInfo{Name: name, File: filepath.Join(workflow.Dir, name+".toml")}
	if err != nil {
		info.Error = err.Error()
		return info
	}
	if strings.HasPrefix(wf.File, "builtin:") {
		info.File = wf.File
	}
	info.Version, info.Start, info.Stages, info.Isolated = wf.VersionID(), wf.Start, wf.Order, wf.Isolated
	return info
}
