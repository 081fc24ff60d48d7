package lsp

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// A finished goal's work — or an isolated run's — from the editor:
// luna.acceptRun RUN (or {id}) fast-forwards the branch the run was made
// from to the run's branch, luna.discardRun RUN drops the run's branch
// (lunad.WorkflowRuns's AcceptRun and DiscardRun, as lunad goal accept and
// discard); both answer with the run. The message that ends a goal with
// commits offers the same as its actions "Accept" and "Discard".

// The actions of the message that ends a goal with commits.
const (
	acceptAction  = "Accept"
	discardAction = "Discard"
)

// settleCommand answers luna.acceptRun (accept) and luna.discardRun.
func settleCommand(ctx context.Context, ws lunad.Workspace, a *argList, accept bool) (any, error) {
	id, err := runArg(a, "")
	if err != nil {
		return nil, err
	}
	info, err := settle(ctx, ws, id, accept)
	if err != nil {
		return nil, err
	}
	return info, nil
}

// settle accepts or discards run id, its error worded for the editor.
func settle(ctx context.Context, ws lunad.Workspace, id string, accept bool) (lunad.RunInfo, error) {
	var (
		info lunad.RunInfo
		err  error
	)
	if accept {
		info, err = ws.AcceptRun(ctx, id)
	} else {
		info, err = ws.DiscardRun(ctx, id)
	}
	var (
		bm *lunad.BranchMovedError
		nf *lunad.RunNotFoundError
	)
	switch {
	case errors.As(err, &bm):
		err = &worded{msg: lunad.Reword(err, bm, fmt.Sprintf("%v: %s; nothing was changed: merge %s yourself with git (git merge %s, on %s), or discard the run (luna.discardRun)",
			lunad.ErrConflict, bm.Facts(), bm.RunBranch, bm.RunBranch, bm.Branch)), err: err}
	case errors.As(err, &nf):
		err = &worded{msg: lunad.Reword(err, nf, nf.Error()+" (luna.runs lists the runs)"), err: err}
	}
	return info, err
}

// settled says what accepting or discarding a goal did.
func settled(info lunad.RunInfo) string {
	if info.Discarded {
		return fmt.Sprintf("lunad goal %s discarded: %s and its worktree removed (the report stays: lunad goal show %s)", info.ID, info.Branch, info.ID)
	}
	return fmt.Sprintf("lunad goal %s accepted: %s is at %.8s now, with the goal's work; %s removed", info.ID, info.BaseBranch, info.Accepted, info.Branch)
}

// settleOffered does what the person chose in the message that ended goal
// id, and says how it went.
func (s *Server) settleOffered(ctx context.Context, ws lunad.Workspace, id string, accept bool) {
	info, err := settle(ctx, ws, id, accept)
	if err != nil {
		s.notify(protocol.MessageTypeError, fmt.Sprintf("lunad goal %s: %v", id, err))
		return
	}
	s.notify(protocol.MessageTypeInfo, settled(info))
}

// worded is an error with the editor's wording of its message; the chain
// (its sentinels, for the JSON-RPC error code) is err's.
type worded struct {
	msg string
	err error
}

func (e *worded) Error() string { return e.msg }
func (e *worded) Unwrap() error { return e.err }
