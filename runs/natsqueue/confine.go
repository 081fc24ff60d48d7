package natsqueue

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/procagent"
	"github.com/lunad/lunad/runs/workflow"
	"github.com/lunad/lunad/sandbox"
)

// Sandbox runs one command in a sandbox: *sandbox.Runner's Run, or the
// goals' runner of `lunad worker`, which adds the policy's limits. Its
// errors mean the command could not be started (see sandbox.Runner.Run).
type Sandbox interface {
	Run(ctx context.Context, s sandbox.Spec) (sandbox.Result, error)
}

// refusal is why a worker does not run a stage it was validly asked to
// run; Permanent as in lunad.AgentError.
type refusal struct {
	msg       string
	permanent bool
}

func (r *refusal) Error() string { return "refused, nothing ran: " + r.msg }

// stage is the stage m asks for, as the clone's own workflow file defines
// it — at the message's workflow version, and with the message's command —
// or a *refusal. The worker runs only that: a stage message chooses which
// of the clone's commands runs, never what the command is.
func (w *Worker) stage(m stageMsg) (*workflow.Stage, error) {
	req := m.Request
	if !safeToken().MatchString(req.Workflow) {
		return nil, &refusal{msg: fmt.Sprintf("workflow name %q is not a workflow's", req.Workflow), permanent: true}
	}
	path := filepath.Join(w.root, filepath.FromSlash(workflow.Dir), req.Workflow+".toml")
	wf, err := workflow.LoadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &refusal{msg: fmt.Sprintf("this clone has no workflow %s (%s): bring the clone up to date (git pull)", req.Workflow, path)}
	}
	if err != nil {
		return nil, &refusal{msg: fmt.Sprintf("this clone's workflow %s: %v", req.Workflow, err)}
	}
	if v := wf.VersionID(); v != req.WorkflowVersion {
		return nil, &refusal{msg: fmt.Sprintf("this clone's workflow %s is at version %s, the stage message's is %s: bring the clone to the daemon's version (git pull)", req.Workflow, v, req.WorkflowVersion)}
	}
	st := wf.Stages[req.Stage]
	switch {
	case st == nil:
		return nil, &refusal{msg: fmt.Sprintf("workflow %s at version %s has no stage %q", req.Workflow, req.WorkflowVersion, req.Stage), permanent: true}
	case len(st.Command) == 0:
		return nil, &refusal{msg: fmt.Sprintf("stage %s of workflow %s runs a built-in agent, not a command", req.Stage, req.Workflow), permanent: true}
	case !slices.Equal(st.Command, m.Argv):
		return nil, &refusal{msg: fmt.Sprintf("the stage message's command %q is not stage %s's in workflow %s at version %s (%q)", m.Argv, req.Stage, req.Workflow, req.WorkflowVersion, st.Command), permanent: true}
	}
	return st, nil
}

// runSandboxed runs st's command for req in the worker's sandbox, in the
// clone, its .git and .luna read-only, and reads its response as the
// process agent does (procagent's contract and classification).
func (w *Worker) runSandboxed(ctx context.Context, st *workflow.Stage, req lunad.StageRequest) (lunad.StageResponse, error) {
	if w.opts.Sandbox == nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: &refusal{msg: fmt.Sprintf(
			"this worker has no sandbox, and stage %s of workflow %s does not say `sandbox = false`", req.Stage, req.Workflow)}}
	}
	stdin, err := procagent.EncodeRequest(req)
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("encoding the request: %w", err)}
	}
	res, err := w.opts.Sandbox.Run(ctx, sandbox.Spec{
		Argv: st.Command, Root: w.root, Dir: w.root, Stdin: stdin, Timeout: st.Timeout,
		ReadOnly: []string{filepath.Join(w.root, ".git"), filepath.Join(w.root, ".luna")},
		Env: map[string]string{"LUNAD_RUN_ID": req.RunID, "LUNAD_STAGE": req.Stage,
			"LUNAD_ATTEMPT": strconv.Itoa(req.Attempt), "LUNAD_WORKSPACE": w.root},
	})
	if err != nil {
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: errors.Is(err, lunad.ErrInvalid) || errors.Is(err, lunad.ErrNotFound),
			Err: fmt.Errorf("cannot start %q in the sandbox: %w", st.Command[0], err)}
	}
	if res.Warning != "" {
		w.log.Warn("sandbox: "+res.Warning, "run", req.RunID, "stage", req.Stage)
	}
	tail := func(msg string) error {
		if t := res.Stderr.Text; t != "" {
			msg += "; stderr: " + lastBytes(t, 2<<10)
		}
		return errors.New(msg)
	}
	switch {
	case res.Ended == "cancelled" && ctx.Err() != nil:
		return lunad.StageResponse{}, fmt.Errorf("stage %s: cancelled: %w", req.Stage, ctx.Err())
	case res.Ended == "timeout":
		return lunad.StageResponse{}, &lunad.AgentError{Err: timeoutError(tail(fmt.Sprintf("timed out after %v", st.Timeout)).Error())}
	case res.Ended != "" || res.Signal != "":
		return lunad.StageResponse{}, &lunad.AgentError{Err: tail(fmt.Sprintf("ended by %s%s", res.Ended, res.Signal))}
	case res.ExitCode != 0:
		return lunad.StageResponse{}, &lunad.AgentError{Err: tail("exit status " + strconv.Itoa(res.ExitCode))}
	case res.Stdout.Cut > 0:
		return lunad.StageResponse{}, &lunad.AgentError{Permanent: true, Err: fmt.Errorf("printed %d bytes on stdout, more than the sandbox keeps", res.Stdout.Total)}
	}
	return procagent.DecodeResponse([]byte(res.Stdout.Text))
}

// lastBytes is the end of s, at most n bytes.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// stale reports whether a stage message sent at sent, with a timeout,
// is too old to run: the server deduplicates a replayed message only
// within its duplicate window, so a worker refuses one older than that
// (and the stage's timeout, after which the daemon no longer waits).
func (w *Worker) stale(sent time.Time, timeout time.Duration) bool {
	return sent.IsZero() || time.Since(sent) > w.q.opts.DuplicateWindow+timeout
}
