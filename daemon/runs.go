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
	return call[[]lunad.WorkflowInfo](ctx, c, mWorkflows, nil)
}

func (c *Client) Workflow(ctx context.Context, name string) (lunad.WorkflowInfo, error) {
	return call[lunad.WorkflowInfo](ctx, c, mWorkflow, runParams{ID: name})
}

func (c *Client) StartRun(ctx context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	return call[lunad.RunInfo](ctx, c, mRunStart, req)
}

func (c *Client) Runs(ctx context.Context) ([]lunad.RunInfo, error) {
	return call[[]lunad.RunInfo](ctx, c, mRuns, nil)
}

func (c *Client) Run(ctx context.Context, id string) (lunad.RunInfo, error) {
	return call[lunad.RunInfo](ctx, c, mRun, runParams{ID: id})
}

func (c *Client) WaitRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return call[lunad.RunInfo](ctx, c, mRunWait, runParams{ID: id})
}

func (c *Client) CancelRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return call[lunad.RunInfo](ctx, c, mRunCancel, runParams{ID: id})
}

func (c *Client) RetryRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return call[lunad.RunInfo](ctx, c, mRunRetry, runParams{ID: id})
}

func (c *Client) ReplayRun(ctx context.Context, id string, live bool) (lunad.ReplayReport, error) {
	return call[lunad.ReplayReport](ctx, c, mRunReplay, runParams{ID: id, Live: live})
}

func (c *Client) PruneRuns(ctx context.Context, olderThan time.Duration) ([]string, error) {
	return call[[]string](ctx, c, mRunPrune, pruneParams{OlderThan: olderThan})
}

func (c *Client) DeadLetters(ctx context.Context) ([]lunad.RunInfo, error) {
	return call[[]lunad.RunInfo](ctx, c, mDeadLetters, nil)
}
