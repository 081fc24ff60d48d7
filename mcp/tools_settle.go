package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// The settle tools: a finished isolated run — a goal, or a run of any
// workflow with isolated = true — worked on a branch of its own;
// accept_run takes its work onto the branch it was made from (a
// fast-forward), discard_run drops it. Both are lunad.WorkflowRuns's AcceptRun
// and DiscardRun, as lunad goal accept and discard.

type settleIn struct {
	ID string `json:"id" jsonschema:"the run's ID: a goal's (the goal tool returns it) or an isolated workflow run's; run_status {} lists the runs"`
}

type settleOut struct {
	Run        string `json:"run"`
	Workflow   string `json:"workflow"`
	Branch     string `json:"branch" jsonschema:"the run's branch, removed now with its worktree"`
	BaseBranch string `json:"base_branch" jsonschema:"the branch the run was made from"`
	Accepted   string `json:"accepted,omitempty" jsonschema:"the commit base_branch is at now, holding the run's work (accept_run)"`
	Discarded  bool   `json:"discarded,omitempty" jsonschema:"true once the run's work was dropped (discard_run)"`
	Message    string `json:"message" jsonschema:"what was done, in words"`
}

func (s *Server) addSettleTools() {
	addTool(s, &sdk.Tool{
		Name:  "accept_run",
		Title: "Accept a run's work",
		Description: "Take a finished goal's (or isolated run's) work: the branch it was made from is fast-forwarded to the run's branch — the working tree follows when that branch is checked out — and the run's branch and worktree are removed. " +
			"Refused, changing nothing, when that branch moved since the run started (merge the run's branch with git instead, or discard_run), when uncommitted changes would be overwritten, or while the run is running. Accepting again returns the run. " +
			"Call it only when the person asked for the goal's work to be taken.",
		// A fast-forward: nothing is lost, and git can revert it.
		Annotations: write(true),
	}, s.acceptRun)
	addTool(s, &sdk.Tool{
		Name:  "discard_run",
		Title: "Discard a run's work",
		Description: "Drop a finished goal's (or isolated run's) work: its branch and worktree are deleted; the branch you work on is untouched, and the run's report and log stay (run_status). " +
			"Refused while the run is running and once it was accepted. Discarding again returns the run.",
		// The run's branch is deleted: its commits stay only until git gc.
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.discardRun)
}

func (s *Server) acceptRun(ctx context.Context, _ *sdk.CallToolRequest, in settleIn) (*sdk.CallToolResult, settleOut, error) {
	info, err := s.ws.AcceptRun(ctx, in.ID)
	if err != nil {
		return nil, settleOut{}, s.explainSettle(err, "accept")
	}
	out := settledOf(info)
	out.Message = fmt.Sprintf("accepted run %s: %s is at %.12s now, with the run's work; %s and its worktree are removed", info.ID, info.BaseBranch, info.Accepted, info.Branch)
	return nil, out, nil
}

func (s *Server) discardRun(ctx context.Context, _ *sdk.CallToolRequest, in settleIn) (*sdk.CallToolResult, settleOut, error) {
	info, err := s.ws.DiscardRun(ctx, in.ID)
	if err != nil {
		return nil, settleOut{}, s.explainSettle(err, "discard")
	}
	out := settledOf(info)
	out.Message = fmt.Sprintf("discarded run %s: %s and its worktree are deleted; %s is untouched", info.ID, info.Branch, info.BaseBranch)
	return nil, out, nil
}

func settledOf(info lunad.RunInfo) settleOut {
	return settleOut{Run: info.ID, Workflow: info.Workflow, Branch: info.Branch, BaseBranch: info.BaseBranch, Accepted: info.Accepted, Discarded: info.Discarded}
}

// explainSettle words accept_run's and discard_run's (verb) errors: a
// branch that moved names both commits and the way out with git; an
// unknown run, the tool that lists the runs.
func (s *Server) explainSettle(err error, verb string) error {
	var bm *lunad.BranchMovedError
	switch {
	case errors.As(err, &bm):
		return &toolError{msg: "conflict, nothing was changed: " + lunad.Reword(err, bm, fmt.Sprintf(
			"branch %s moved since run %s started, from %s to %s, so a fast-forward would drop its new commits; to keep the run's work, the person merges its branch with git (git merge %s, on %s); or drop it with discard_run {\"id\": %q}",
			bm.Branch, bm.Run, bm.Base, bm.Now, bm.RunBranch, bm.Branch, bm.Run)), err: err}
	case errors.Is(err, lunad.ErrDirty):
		return &toolError{msg: "nothing was changed: the branch's files have uncommitted changes the " + verb + " would overwrite; the person commits or discards them, then call again. " + err.Error(), err: err}
	case errors.Is(err, lunad.ErrInvalid):
		return &toolError{msg: "nothing was changed: " + err.Error(), err: err}
	}
	return s.explainRun(err, "nothing was changed")
}
