package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// The goal tool: an autonomous goal (an agent that acts in a sandbox under the
// workspace policy until its tests pass or it stops), run as the built-in
// workflow goal on a branch of its own. It returns at once with the run
// and its status, which run_status follows; with wait it follows the goal
// itself, a progress notification per step for a client that gave a
// token, and returns its GoalResult too.

type goalIn struct {
	Goal     string     `json:"goal" jsonschema:"what to achieve, in words: e.g. make the failing test in parser_test.go pass; add a --verbose flag and document it"`
	MaxSteps int        `json:"max_steps,omitempty" jsonschema:"the most actions the agent may take (default 30, at most 10000)"`
	Tests    [][]string `json:"tests,omitempty" jsonschema:"the test commands to run after every change, each a program and its arguments, e.g. [[\"go\", \"test\", \"./...\"]]; [] for none; omitted: the workspace's [tests] commands"`
	DryRun   bool       `json:"dry_run,omitempty" jsonschema:"let the agent propose actions, check each with the policy, do none"`
	Plan     bool       `json:"plan,omitempty" jsonschema:"ask for a plan and end with it, doing nothing"`
	Wait     bool       `json:"wait,omitempty" jsonschema:"wait until the goal ends (minutes, usually), reporting each step as progress, and return its result too"`
}

type goalOut struct {
	Run       string            `json:"run" jsonschema:"the goal's run ID"`
	RunStatus lunad.RunStatus   `json:"run_status" jsonschema:"running; once the goal ends its outcome: finished, max_steps, failures, budget_exhausted, stopped, failed, planned, dry_run (or aborted, cancelled)"`
	Branch    string            `json:"branch" jsonschema:"the goal's branch (luna/goal/RUN): its commits, one per step that changed files; the user's branch is untouched until they accept it"`
	Follow    string            `json:"follow" jsonschema:"how to follow the goal and what to do once it ends"`
	Result    *lunad.GoalResult `json:"result,omitempty" jsonschema:"the goal's result (with wait): outcome, summary, commits, tests before and after, commands, denials, tokens"`
}

func (s *Server) addGoalTool() {
	addTool(s, &sdk.Tool{
		Name:  "goal",
		Title: "Work toward a goal",
		Description: "Start an autonomous goal: lunad's agent works toward it on a branch of its own (luna/goal/RUN, made from the current branch, which must have no uncommitted changes), one action per step — read, search, edit, patch, write, run a command, run the tests, finish — each checked by the workspace's policy (.luna/policy.toml), commands in a sandbox without network, " +
			"each change a commit on the goal's branch and followed by the tests. Returns at once with the run ID and its run_status (follow it with run_status {\"id\": RUN}); with wait, returns once the goal ends with its result. " +
			"Once it ends, the person reads the report (lunad goal show RUN) and decides: accept_run takes the branch onto theirs (lunad goal accept RUN), discard_run drops it (lunad goal discard RUN).",
		// It edits a branch of its own, never the user's, and calls the
		// configured model: an open world.
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, s.goal)
}

func (s *Server) goal(ctx context.Context, req *sdk.CallToolRequest, in goalIn) (*sdk.CallToolResult, goalOut, error) {
	tests := in.Tests
	if tests == nil {
		tests = s.opts.GoalTests
	}
	run, err := lunad.GoalSpec{Goal: in.Goal, MaxSteps: in.MaxSteps, Tests: tests, DryRun: in.DryRun, Plan: in.Plan}.Request()
	if err != nil {
		return nil, goalOut{}, &toolError{msg: "nothing was started: " + goalFlags.Replace(err.Error()), err: err}
	}
	info, err := s.ws.StartRun(ctx, run)
	if err != nil {
		if errors.Is(err, lunad.ErrDirty) {
			return nil, goalOut{}, &toolError{msg: "nothing was started: a goal's branch starts from the last commit, and the workspace has uncommitted changes it would not see; commit or discard them first. " + err.Error(), err: err}
		}
		return nil, goalOut{}, s.explainRun(err, "nothing was started")
	}
	out := goalOut{Run: info.ID, RunStatus: info.Status, Branch: info.Branch,
		Follow: fmt.Sprintf("run_status {\"id\": %q} shows where it is; once it ends, the person reads the report (lunad goal show %s) and decides: accept_run {\"id\": %q} takes its branch, discard_run {\"id\": %q} drops it", info.ID, info.ID, info.ID, info.ID)}
	if !in.Wait {
		return nil, out, nil
	}
	done, err := s.followAgents(ctx, req, info.ID, goalPoll, lunad.GoalProgress)
	if ctx.Err() != nil {
		// The call was cancelled; the goal goes on, on its own branch.
		return nil, goalOut{}, &toolError{msg: fmt.Sprintf("goal %s goes on without this call (it works on its own branch %s); follow it with run_status {\"id\": %q}", info.ID, info.Branch, info.ID), err: ctx.Err()}
	}
	if err != nil {
		return nil, goalOut{}, s.explainRun(fmt.Errorf("goal %s was started and goes on, but following it failed: %w; see run_status {\"id\": %q}", info.ID, err, info.ID), "")
	}
	res, err := lunad.GoalResultOf(done)
	if err != nil {
		return nil, goalOut{}, &toolError{msg: fmt.Sprintf("goal %s %s without a result: %s; see run_status {\"id\": %q}", info.ID, done.Status, firstOf(done.Error, err.Error()), info.ID), err: errors.Join(lunad.ErrInvalid, err)}
	}
	res.Commits = nonNil(res.Commits)
	out.RunStatus, out.Result = done.Status, &res
	return nil, out, nil
}

// goalFlags names the command line's flags as the tool's arguments.
var goalFlags = strings.NewReplacer("--max-steps", "max_steps", "--test", "tests", "--dry-run", "dry_run", "--plan", "plan")

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// goalPoll is how often a goal's run is read while waiting.
const goalPoll = 250 * time.Millisecond
