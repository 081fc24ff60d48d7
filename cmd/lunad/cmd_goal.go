package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/follow"
)

var cmdGoal = &command{
	name:    "goal",
	args:    `"GOAL" [--max-steps N] [--test CMD]... [--dry-run] [--plan] | show RUN | accept RUN | discard RUN | list`,
	summary: "let an agent work toward a goal on a branch of its own: edit, run, test, repeat — under the policy, in a sandbox, with a report",
	help: `A goal is a run of the built-in workflow goal in the workspace's daemon
(started if none runs). It works on a branch of its own, luna/goal/RUN, made
from the current branch (which must have no uncommitted changes: they are
named if it has), in a worktree of its own: each step the model proposes one
action (read, search, edit, patch, write, run a command, run the tests,
finish), .luna/policy.toml decides whether it may, it is done — commands in
a bubblewrap sandbox, without network — and what came of it is shown to the
model next step. Each step that changes files is one commit on the goal's
branch; the tests run after it. Your branch is untouched until you accept.

Progress goes to standard error, a line per step (the action, how it went,
exit codes, the tests); then the result: the outcome, the branch and its
commits, the tests before and after, where the report is, what to do next.
--json prints the result (the GoalResult of docs/goals.md). The exit code is
0 when the goal finished with its tests passing (or none configured), or
with --plan or --dry-run; 1 otherwise (the message says why).

--max-steps N bounds the actions (default 30). --test CMD is one test
command, given as one command line split on spaces as a shell would, quotes
honoured, nothing expanded (--test 'go test ./...'); repeat it for several;
it replaces [tests] commands of .luna/config.toml. Without either, no tests
run (the report says so). --plan asks the model for a plan and prints it,
doing nothing; --dry-run lets the model propose actions, checks each with
the policy and does none of them. Interrupting (Ctrl-C) cancels the goal.

show RUN prints a finished goal's report (Markdown; of a running goal, its
steps so far); with --json {"result": GoalResult, "trace": [GoalStep…]},
every action and observation. accept RUN fast-forwards the branch the goal
started from to the goal's branch (refused if that branch moved since: merge
luna/goal/RUN yourself then, or discard it) and removes the goal's branch;
discard RUN deletes the goal's branch and worktree. list shows the goals.
lunad doctor says whether goals can run here. See docs/goals.md.`,
	minArgs: 1, maxArgs: 2,
	run: runGoal,
}

// goalPoll is how often a goal's run is read for its progress.
const goalPoll = 200 * time.Millisecond

func runGoal(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	var tests multi
	maxSteps := fs.Int("max-steps", 0, "the most actions the goal may take (`N`; default 30)")
	fs.Var(&tests, "test", "a test `CMD` as one command line, e.g. 'go test ./...' (repeatable; replaces [tests] commands)")
	dry := fs.Bool("dry-run", false, "let the model propose actions; check each with the policy; do none")
	plan := fs.Bool("plan", false, "ask the model for a plan, print it, do nothing")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	sub := ""
	switch pos[0] {
	case "list", "show", "accept", "discard":
		sub = pos[0]
	}
	switch {
	case sub == "":
		if len(pos) != 1 {
			return fs.usageError("unknown form: goal %s", strings.Join(pos, " "))
		}
		return m.startGoal(ctx, pos[0], *maxSteps, tests, *dry, *plan)
	case sub == "list" && len(pos) == 1:
		return m.withRunner(ctx, false, func(ws lunad.Workspace) error { return m.listGoals(ctx, ws) })
	case len(pos) == 2 && (sub == "show" || sub == "accept" || sub == "discard"):
		if *maxSteps != 0 || len(tests) > 0 || *dry || *plan {
			return fs.usageError("goal %s takes no --max-steps, --test, --dry-run or --plan", sub)
		}
		return m.withRunner(ctx, false, func(ws lunad.Workspace) error { return m.settleGoal(ctx, ws, sub, pos[1]) })
	}
	return fs.usageError("unknown form: goal %s (goal show, accept and discard take a RUN; a goal is one argument: quote it)", strings.Join(pos, " "))
}

// startGoal checks the goal can run, starts it, follows it and prints its
// result.
func (m *Main) startGoal(ctx context.Context, text string, maxSteps int, tests []string, dry, plan bool) error {
	cfg, err := m.config()
	if err != nil {
		return err
	}
	spec := lunad.GoalSpec{Goal: text, MaxSteps: maxSteps, Tests: cfg.Tests.Commands, DryRun: dry, Plan: plan}
	if len(tests) > 0 {
		spec.Tests = nil
		for _, line := range tests {
			argv, err := splitCommandLine(line)
			if err != nil {
				return err
			}
			spec.Tests = append(spec.Tests, argv)
		}
	}
	req, err := spec.Request()
	if err != nil {
		return err
	}
	// Refused here, before a run starts, with what to fix.
	root := findRoot(m.workDir())
	if err := checkGoals(ctx, root, cfg, m.Getenv).refusal(!dry && !plan); err != nil {
		return err
	}
	return m.withRunner(ctx, true, func(ws lunad.Workspace) error {
		info, err := goalAndWait(ctx, ws, req, m.Stderr)
		if err != nil {
			return err
		}
		doc, files, err := keepGoal(ctx, ws, root, info)
		if err != nil {
			return err
		}
		res := doc.Result
		if m.json {
			if err := m.printJSON(res); err != nil {
				return err
			}
		} else if err := printGoal(m.Stdout, res, files); err != nil {
			return err
		}
		return goalOutcome(res)
	})
}

// goalAndWait starts the goal, reports its steps on progress as its run's
// events arrive, and returns its run once it has finished. If ctx ends
// first, the run is cancelled.
func goalAndWait(ctx context.Context, ws lunad.Workspace, req lunad.RunRequest, progress io.Writer) (lunad.RunInfo, error) {
	info, err := ws.StartRun(ctx, req)
	if err != nil {
		var nf *lunad.RunNotFoundError
		switch {
		case errors.As(err, &nf) && nf.Kind == "workflow":
			return lunad.RunInfo{}, fmt.Errorf("%w: this lunad has no goal workflow: the daemon serving the workspace is older than lunad goal (restart it: stop its `lunad serve`, the next command starts a new one)", err)
		case errors.Is(err, lunad.ErrDirty):
			return lunad.RunInfo{}, fmt.Errorf("no goal was started: a goal's branch starts from your last commit, and the workspace has uncommitted changes it would not see: %w", err)
		}
		return lunad.RunInfo{}, err
	}
	fmt.Fprintf(progress, "goal %s: started on %s (from %s at %s)\n", info.ID, info.Branch, orWhat(info.BaseBranch, "a detached HEAD"), shortHash(info.Base))
	r, err := follow.Run(ctx, ws, info.ID, goalPoll, func(e lunad.RunEvent) {
		if line := follow.GoalProgress(e); line != "" {
			fmt.Fprintf(progress, "  %s\n", line)
		}
	})
	switch {
	case ctx.Err() != nil:
		return r, cancelGoal(ws, info.ID, ctx.Err())
	case err != nil:
		return r, fmt.Errorf("following goal %s: %w (it goes on: lunad goal show %s)", info.ID, err, info.ID)
	}
	return r, nil
}

// keepGoal reads a finished goal's result, trace and report from its run
// and keeps them as files (follow.GoalFiles), where editors open them.
func keepGoal(ctx context.Context, ws lunad.Workspace, root string, info lunad.RunInfo) (lunad.GoalTrace, follow.GoalFiles, error) {
	doc, report, err := follow.ReadGoal(ctx, ws, info)
	if err != nil {
		return doc, follow.GoalFiles{}, fmt.Errorf("goal %s %s without a result: %s (see lunad run show %s)", info.ID, info.Status, orWhat(info.Error, err.Error()), info.ID)
	}
	files, err := follow.GoalFilesOf(root, info.ID)
	if err == nil {
		err = files.Keep(doc, report)
	}
	if err != nil {
		return doc, files, fmt.Errorf("goal %s %s, but its report could not be kept as a file: %w (lunad goal show %s prints it)", info.ID, doc.Result.Outcome, err, info.ID)
	}
	if report == "" {
		files.Report = ""
	}
	return doc, files, nil
}

// cancelGoal cancels a goal whose caller stopped waiting.
func cancelGoal(ws lunad.Workspace, id string, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := ws.CancelRun(ctx, id); err != nil {
		return fmt.Errorf("goal %s interrupted (%v), and cancelling it failed: %v (see lunad goal show %s)", id, cause, err, id)
	}
	return fmt.Errorf("goal %s interrupted (%v): cancelled; its branch luna/goal/%s keeps what it committed (lunad goal discard %s removes it)", id, cause, id, id)
}

// printGoal writes a goal's result for a person.
func printGoal(w io.Writer, r lunad.GoalResult, files follow.GoalFiles) error {
	p := &errWriter{w: w}
	p.printf("goal %s: %s\n", r.Run, r.Outcome)
	if r.Summary != "" {
		p.printf("summary:  %s\n", r.Summary)
	}
	if r.Reason != "" {
		p.printf("reason:   %s\n", r.Reason)
	}
	if r.Plan != "" {
		p.printf("plan:\n%s\n", indent(strings.TrimRight(r.Plan, "\n"), "  "))
	}
	p.printf("branch:   %s (from %s), %d commits", r.Branch, shortHash(r.Base), len(r.Commits))
	if len(r.Commits) > 0 {
		short := make([]string, len(r.Commits))
		for i, c := range r.Commits {
			short[i] = shortHash(c)
		}
		p.printf(": %s", strings.Join(short, " "))
	}
	p.printf("\n")
	p.printf("tests:    %s → %s\n", testsLine(r.TestsBefore), testsLine(r.TestsAfter))
	p.printf("steps:    %d; %d tokens in %d model calls; %s\n", r.Steps, r.Tokens, r.Calls, r.Duration.Round(time.Millisecond))
	if len(r.Denials) > 0 {
		p.printf("denied:   %d actions (see the report)\n", len(r.Denials))
	}
	if r.Sandbox != "" {
		p.printf("sandbox:  %s\n", r.Sandbox)
	}
	if files.Report != "" {
		p.printf("report:   %s (lunad goal show %s)\n", files.Report, r.Run)
	}
	switch {
	case r.Outcome == lunad.GoalPlanned || r.Outcome == lunad.GoalDryRun:
		p.printf("next:     lunad goal \"...\" to act on it; lunad goal discard %s removes its branch\n", r.Run)
	case len(r.Commits) > 0:
		p.printf("next:     lunad goal accept %s  (your branch takes the goal's commits)\n          lunad goal discard %s (deletes %s)\n", r.Run, r.Run, r.Branch)
	default:
		p.printf("next:     nothing was committed; lunad goal discard %s removes its branch\n", r.Run)
	}
	return p.err
}

// testsLine is a test result in a few words ("none" when no tests ran).
func testsLine(s *lunad.TestSummary) string {
	if s == nil {
		return "none (no tests configured)"
	}
	verdict := "FAIL"
	if s.OK {
		verdict = "ok"
	}
	return fmt.Sprintf("%s (%d passed, %d failed, %d errored)", verdict, s.Passed, s.Failed, s.Errored)
}

// goalOutcome is the error a goal that did not succeed exits with.
func goalOutcome(r lunad.GoalResult) error {
	keep := fmt.Sprintf("its branch %s keeps its %d commits: lunad goal show %s, then accept or discard it", r.Branch, len(r.Commits), r.Run)
	switch r.Outcome {
	case lunad.GoalPlanned, lunad.GoalDryRun:
		return nil
	case lunad.GoalFinished:
		if r.TestsAfter == nil || r.TestsAfter.OK {
			return nil
		}
		return fmt.Errorf("goal %s finished but its tests fail: %s (%s)", r.Run, follow.TestVerdict(*r.TestsAfter), keep)
	case lunad.GoalBudgetExhausted:
		return fmt.Errorf("goal %s spent its budget: %s (raise [agents.goal.budget] in .luna/config.toml; %s)", r.Run, orWhat(r.Reason, r.Summary), keep)
	case lunad.GoalMaxSteps:
		return fmt.Errorf("goal %s took its %d steps without finishing (--max-steps; %s)", r.Run, r.Steps, keep)
	}
	return fmt.Errorf("goal %s ended %s: %s (%s)", r.Run, r.Outcome, orWhat(r.Reason, r.Summary), keep)
}

// settleGoal is goal show, accept and discard.
func (m *Main) settleGoal(ctx context.Context, ws lunad.Workspace, sub, id string) error {
	info, err := ws.Run(ctx, id)
	if err != nil {
		return err
	}
	if info.Workflow != lunad.GoalWorkflow {
		return fmt.Errorf("%w: run %s is a run of workflow %s, not a goal (see lunad goal list)", lunad.ErrInvalid, id, info.Workflow)
	}
	switch sub {
	case "show":
		return m.showGoal(ctx, ws, info)
	case "accept":
		done, err := ws.AcceptRun(ctx, id)
		if err != nil || m.json {
			return orJSON(m, done, err)
		}
		n := 0
		if res, err := lunad.GoalResultOf(done); err == nil {
			n = len(res.Commits)
		}
		_, err = fmt.Fprintf(m.Stdout, "accepted goal %s: %s is at %s now (%d commits from %s); %s removed\n",
			id, done.BaseBranch, shortHash(done.Accepted), n, done.Branch, done.Branch)
		return err
	}
	done, err := ws.DiscardRun(ctx, id)
	if err != nil || m.json {
		return orJSON(m, done, err)
	}
	_, err = fmt.Fprintf(m.Stdout, "discarded goal %s: %s and its worktree removed (the report stays: lunad goal show %s)\n", id, done.Branch, id)
	return err
}

// showGoal prints a goal's report, or its steps so far.
func (m *Main) showGoal(ctx context.Context, ws lunad.Workspace, info lunad.RunInfo) error {
	if !info.Status.Finished() {
		if m.json {
			return fmt.Errorf("%w: goal %s is still running: its result and trace come when it ends (lunad run show %s shows where it is)", lunad.ErrInvalid, info.ID, info.ID)
		}
		p := &errWriter{w: m.Stdout}
		p.printf("goal %s: running on %s (the report comes when it ends)\n", info.ID, info.Branch)
		for _, e := range info.Events {
			if line := follow.GoalProgress(e); line != "" {
				p.printf("  %s\n", line)
			}
		}
		return p.err
	}
	doc, report, err := follow.ReadGoal(ctx, ws, info)
	if err != nil {
		return err
	}
	if m.json {
		return m.printJSON(doc)
	}
	if report == "" {
		return fmt.Errorf("%w: goal %s ended %s before its report: %s (lunad goal show %s --json shows its steps)", lunad.ErrNotFound, info.ID, doc.Result.Outcome, orWhat(doc.Result.Reason, info.Error), info.ID)
	}
	_, err = io.WriteString(m.Stdout, report)
	return err
}

// listGoals prints the workspace's goals, newest first.
func (m *Main) listGoals(ctx context.Context, ws lunad.Workspace) error {
	all, err := ws.Runs(ctx)
	if err != nil {
		return err
	}
	type goalRow struct {
		Run     string          `json:"run"`
		Status  lunad.RunStatus `json:"status"`
		Branch  string          `json:"branch"`
		State   string          `json:"state"` // open, accepted or discarded
		Goal    string          `json:"goal"`
		Created time.Time       `json:"created"`
		Updated time.Time       `json:"updated"`
	}
	rows := []goalRow{}
	for _, r := range all {
		if r.Workflow != lunad.GoalWorkflow {
			continue
		}
		state := "open"
		switch {
		case r.Accepted != "":
			state = "accepted"
		case r.Discarded:
			state = "discarded"
		}
		rows = append(rows, goalRow{Run: r.ID, Status: r.Status, Branch: r.Branch, State: state, Goal: r.Params[lunad.GoalParamGoal], Created: r.Created, Updated: r.Updated})
	}
	slices.SortStableFunc(rows, func(a, b goalRow) int {
		return cmp.Or(b.Created.Compare(a.Created), strings.Compare(b.Run, a.Run))
	})
	if m.json {
		return m.printJSON(rows)
	}
	t := newTable(m.Stdout, "RUN", "STATUS", "BRANCH", "STATE", "UPDATED", "GOAL")
	for _, r := range rows {
		t.row(r.Run, string(r.Status), r.Branch, r.State, r.Updated.Format(time.DateTime), oneLineOf(r.Goal, 60))
	}
	return t.flush()
}

// shortHash is a commit's first 8 hex digits.
func shortHash(c string) string {
	if len(c) > 8 {
		return c[:8]
	}
	return c
}

// oneLineOf is s's first line, cut at n bytes with "…".
func oneLineOf(s string, n int) string {
	s = lunad.FirstLine(s)
	if len(s) > n {
		for n > 0 && s[n]&0xc0 == 0x80 {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// indent prefixes each line of s.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
