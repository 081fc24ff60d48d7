package daemon

import (
	"context"
	"time"

	"github.com/lunad/lunad"
)

// The calls of lunad.Runner: "lunad/run_*" and "lunad/workflow*". Run IDs
// and workflow names are plain strings (the engine refuses any that are
// not), so they need no text envelope.
const (
	mWorkflows   = "lunad/workflows"
	mWorkflow    = "lunad/workflow"
	mRunStart    = "lunad/run_start"
	mRuns        = "lunad/runs"
	mRun         = "lunad/run"
	mRunWait     = "lunad/run_wait"
	mRunCancel   = "lunad/run_cancel"
	mRunRetry    = "lunad/run_retry"
	mRunReplay   = "lunad/run_replay"
	mRunPrune    = "lunad/run_prune"
	mDeadLetters = "lunad/dead_letters"
)

type runParams struct {
	ID   string `json:"id"`
	Live bool   `json:"live,omitempty"`
}

type pruneParams struct {
	OlderThan time.Duration `json:"older_than"`
}

func init() {
	for m, f := range map[string]func(context.Context, lunad.Workspace, []byte) (any, error){
		mWorkflows:   noArgs(func(ctx context.Context, s lunad.Workspace) (any, error) { return s.Workflows(ctx) }),
		mRuns:        noArgs(func(ctx context.Context, s lunad.Workspace) (any, error) { return s.Runs(ctx) }),
		mDeadLetters: noArgs(func(ctx context.Context, s lunad.Workspace) (any, error) { return s.DeadLetters(ctx) }),
		mWorkflow: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
			return s.Workflow(ctx, p.ID)
		}),
		mRunStart: args(func(ctx context.Context, s lunad.Workspace, p lunad.RunRequest) (any, error) {
			return s.StartRun(ctx, p)
		}),
		mRun: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
			return s.Run(ctx, p.ID)
		}),
		mRunWait: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
			return s.WaitRun(ctx, p.ID)
		}),
		mRunCancel: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
			return s.CancelRun(ctx, p.ID)
		}),
		mRunRetry: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
			return s.RetryRun(ctx, p.ID)
		}),
		mRunReplay: args(func(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
			return s.ReplayRun(ctx, p.ID, p.Live)
		}),
		mRunPrune: args(func(ctx context.Context, s lunad.Workspace, p pruneParams) (any, error) {
			return s.PruneRuns(ctx, p.OlderThan)
		}),
	} {
		methods[m] = f
	}
	for _, m := range []string{mRunStart, mRunCancel, mRunRetry, mRunPrune} {
		writes[m] = true
	}
}

func (c *Client) Workflows(ctx context.Context) ([]lunad.WorkflowInfo, error) {
	var r []lunad.WorkflowInfo
	return r, c.call(ctx, mWorkflows, nil, &r)
}

func (c *Client) Workflow(ctx context.Context, name string) (lunad.WorkflowInfo, error) {
	var r lunad.WorkflowInfo
	return r, c.call(ctx, mWorkflow, runParams{ID: name}, &r)
}

func (c *Client) StartRun(ctx context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	var r lunad.RunInfo
	return r, c.call(ctx, mRunStart, req, &r)
}

func (c *Client) Runs(ctx context.Context) ([]lunad.RunInfo, error) {
	var r []lunad.RunInfo
	return r, c.call(ctx, mRuns, nil, &r)
}

func (c *Client) Run(ctx context.Context, id string) (lunad.RunInfo, error) {
	var r lunad.RunInfo
	return r, c.call(ctx, mRun, runParams{ID: id}, &r)
}

func (c *Client) WaitRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	var r lunad.RunInfo
	return r, c.call(ctx, mRunWait, runParams{ID: id}, &r)
}

func (c *Client) CancelRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	var r lunad.RunInfo
	return r, c.call(ctx, mRunCancel, runParams{ID: id}, &r)
}

func (c *Client) RetryRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	var r lunad.RunInfo
	return r, c.call(ctx, mRunRetry, runParams{ID: id}, &r)
}

func (c *Client) ReplayRun(ctx context.Context, id string, live bool) (lunad.ReplayReport, error) {
	var r lunad.ReplayReport
	return r, c.call(ctx, mRunReplay, runParams{ID: id, Live: live}, &r)
}

func (c *Client) PruneRuns(ctx context.Context, olderThan time.Duration) ([]string, error) {
	var r []string
	return r, c.call(ctx, mRunPrune, pruneParams{OlderThan: olderThan}, &r)
}

func (c *Client) DeadLetters(ctx context.Context) ([]lunad.RunInfo, error) {
	var r []lunad.RunInfo
	return r, c.call(ctx, mDeadLetters, nil, &r)
}
