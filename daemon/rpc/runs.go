package rpc

import (
	"context"
	"time"

	"github.com/lunad/lunad"
)

// The calls of lunad.WorkflowRuns: "lunad/run_*" and "lunad/workflow*", served
// from the tables in handlers.go. Run IDs and workflow names are plain strings
// (the engine refuses any that are not), so they need no text envelope;
// a start's inputs and params do.
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
	mRunAccept   = "lunad/run_accept"
	mRunDiscard  = "lunad/run_discard"
	mRunFile     = "lunad/run_file"
)

type runParams struct {
	ID   string `json:"id"`
	Live bool   `json:"live,omitempty"`
}

// settleParams names the run to accept or discard. Both are writes that
// may be sent again after a broken connection: a second accept or discard
// of a run returns it as the first left it, so the run is their key.
type settleParams struct {
	ID string `json:"id"`
}

func (p settleParams) key() string { return p.ID }

// runFileParams names a stage file of a run's event.
type runFileParams struct {
	ID   string `json:"id"`
	Seq  int    `json:"seq"`
	Name text   `json:"name"`
}

type pruneParams struct {
	OlderThan time.Duration `json:"older_than"`
}

// runStartParams is a lunad.RunRequest on the wire: its inputs and params
// are user text, sent losslessly, and its key makes a start retried after
// a broken connection safe (keyed).
type runStartParams struct {
	Workflow      string          `json:"workflow"`
	Inputs        []text          `json:"inputs,omitempty"`
	Params        map[string]text `json:"params,omitempty"`
	Key           text            `json:"key,omitempty"`
	CorrelationID text            `json:"correlation_id,omitempty"`
}

func (p runStartParams) key() string { return string(p.Key) }

func (p runStartParams) request() lunad.RunRequest {
	r := lunad.RunRequest{Workflow: p.Workflow, Key: string(p.Key), CorrelationID: string(p.CorrelationID)}
	for _, in := range p.Inputs {
		r.Inputs = append(r.Inputs, string(in))
	}
	if p.Params != nil {
		r.Params = map[string]string{}
		for k, v := range p.Params {
			r.Params[k] = string(v)
		}
	}
	return r
}

func fromRunRequest(r lunad.RunRequest) runStartParams {
	p := runStartParams{Workflow: r.Workflow, Key: text(r.Key), CorrelationID: text(r.CorrelationID)}
	for _, in := range r.Inputs {
		p.Inputs = append(p.Inputs, text(in))
	}
	if r.Params != nil {
		p.Params = map[string]text{}
		for k, v := range r.Params {
			p.Params[k] = text(v)
		}
	}
	return p
}

// waitSlice bounds one lunad/run_wait call: the daemon answers with the
// run as it stands after at most this long, and the client asks again, so
// that no call outlives its client or holds up the daemon's shutdown for
// longer.
const waitSlice = 2 * time.Second

// waitRun waits for the run for at most waitSlice.
func waitRun(ctx context.Context, s lunad.Workspace, p runParams) (any, error) {
	wctx, cancel := context.WithTimeout(ctx, waitSlice)
	defer cancel()
	info, err := s.WaitRun(wctx, p.ID)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		return s.Run(ctx, p.ID) // still running: the client asks again
	}
	return info, err
}

func (c *Client) Workflows(ctx context.Context) ([]lunad.WorkflowInfo, error) {
	return call[[]lunad.WorkflowInfo](ctx, c, mWorkflows, nil)
}

func (c *Client) Workflow(ctx context.Context, name string) (lunad.WorkflowInfo, error) {
	return call[lunad.WorkflowInfo](ctx, c, mWorkflow, runParams{ID: name})
}

func (c *Client) StartRun(ctx context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	return call[lunad.RunInfo](ctx, c, mRunStart, fromRunRequest(req))
}

func (c *Client) Runs(ctx context.Context) ([]lunad.RunInfo, error) {
	return call[[]lunad.RunInfo](ctx, c, mRuns, nil)
}

func (c *Client) Run(ctx context.Context, id string) (lunad.RunInfo, error) {
	return call[lunad.RunInfo](ctx, c, mRun, runParams{ID: id})
}

// WaitRun asks the daemon again every waitSlice until the run has
// finished or ctx is done.
func (c *Client) WaitRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	for {
		info, err := call[lunad.RunInfo](ctx, c, mRunWait, runParams{ID: id})
		if err != nil || info.Status.Finished() {
			return info, err
		}
	}
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

func (c *Client) AcceptRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return call[lunad.RunInfo](ctx, c, mRunAccept, settleParams{ID: id})
}

func (c *Client) DiscardRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return call[lunad.RunInfo](ctx, c, mRunDiscard, settleParams{ID: id})
}

func (c *Client) RunFile(ctx context.Context, id string, seq int, name string) ([]byte, error) {
	return call[[]byte](ctx, c, mRunFile, runFileParams{ID: id, Seq: seq, Name: text(name)})
}
