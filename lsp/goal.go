package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/follow"
)

// Goals from the editor: luna.goal {goal, maxSteps?, tests?, dryRun?,
// plan?} (or "GOAL") starts a goal — a run of the goal workflow on a
// branch of its own — and answers with the run at once. The goal is
// reported as $/progress (lunad-goal-RUN), a report per step; when it
// ends, its report and trace are kept as files (follow.GoalFiles, under
// the repository's git directory) and window/showMessageRequest says how
// it went and offers to open the report, which window/showDocument then
// shows (a client without showDocument is told the file's name), and, when
// the goal made commits, to accept or discard them (settle.go).

// goalArgs are luna.goal's arguments in object form; Tests nil means the
// workspace's [tests] commands (Options.GoalTests).
type goalArgs struct {
	Goal     string     `json:"goal"`
	MaxSteps int        `json:"maxSteps"`
	Tests    [][]string `json:"tests"`
	DryRun   bool       `json:"dryRun"`
	Plan     bool       `json:"plan"`
}

const goalUsage = `{goal, maxSteps?: number, tests?: [[program, args…]…], dryRun?: boolean, plan?: boolean} (or "GOAL")`

// openReport is the action of the message that ends a goal.
const openReport = "Open report"

// goalCommand answers luna.goal: the run as started.
func (s *Server) goalCommand(ctx context.Context, ws lunad.Workspace, a *argList) (any, error) {
	var in goalArgs
	if len(a.args) > 0 && strings.HasPrefix(strings.TrimSpace(string(a.args[0])), "{") {
		a.object(0, &in)
	} else {
		in.Goal = a.string(0)
	}
	if a.err != nil {
		return nil, fmt.Errorf("%w (luna.goal takes %s)", a.err, goalUsage)
	}
	if in.Tests == nil && s.opts.GoalTests != nil {
		tests, err := s.opts.GoalTests(ws.Root())
		if err != nil {
			return nil, fmt.Errorf("luna.goal: the workspace's test commands: %w", err)
		}
		in.Tests = tests
	}
	req, err := lunad.GoalSpec{Goal: in.Goal, MaxSteps: in.MaxSteps, Tests: in.Tests, DryRun: in.DryRun, Plan: in.Plan}.Request()
	if err != nil {
		return nil, fmt.Errorf("luna.goal: %w (it takes %s)", err, goalUsage)
	}
	info, err := ws.StartRun(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("luna.goal: nothing was started: %w", err)
	}
	s.goOwned(func(done <-chan struct{}) { s.followGoal(ws, info, done) })
	return info, nil
}

// followGoal reports a goal as work-done progress, a report per step,
// until it ends, then offers its report.
func (s *Server) followGoal(ws lunad.Workspace, info lunad.RunInfo, done <-chan struct{}) {
	r, token, ok := s.followAgents(ws, info, done, "goal", info.ID+": started on "+info.Branch, follow.GoalProgress)
	if !ok {
		return
	}
	s.progress(token, protocol.WorkDoneProgressEnd{Kind: "end", Message: ptr(info.ID + ": " + string(r.Status))})
	s.goalEnded(s.ctx, ws, r)
}

// goalEnded keeps a finished goal's report as a file and offers to open
// it and, when the goal made commits, to accept or discard them; or says
// why the goal has no report.
func (s *Server) goalEnded(ctx context.Context, ws lunad.Workspace, r lunad.RunInfo) {
	doc, report, err := follow.ReadGoal(ctx, ws, r)
	if err != nil {
		s.notify(protocol.MessageTypeError, fmt.Sprintf("lunad goal %s %s: %s (lunad run show %s)", r.ID, r.Status, firstNonEmpty(r.Error, err.Error()), r.ID))
		return
	}
	typ, msg := goalSummary(doc.Result)
	s.mu.Lock()
	root, showDocument := s.root, s.showDocument
	s.mu.Unlock()
	files, err := follow.GoalFilesOf(root, r.ID)
	if err == nil {
		err = files.Keep(doc, report)
	}
	if err != nil {
		s.notify(typ, fmt.Sprintf("%s; its report could not be kept as a file (%v): lunad goal show %s prints it", msg, err, r.ID))
		return
	}
	var actions []protocol.MessageActionItem
	switch {
	case report != "" && showDocument:
		actions = append(actions, protocol.MessageActionItem{Title: openReport})
	case report != "":
		msg += "; the report: " + files.Report
	}
	if len(doc.Result.Commits) > 0 {
		actions = append(actions, protocol.MessageActionItem{Title: acceptAction}, protocol.MessageActionItem{Title: discardAction})
	}
	if len(actions) == 0 {
		s.notify(typ, msg)
		return
	}
	item, err := s.peer().ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{Type: typ, Message: msg, Actions: actions})
	if err != nil || item == nil {
		s.log.Debug("goal's end: no action chosen", "run", r.ID, "err", err)
		return
	}
	switch item.Title {
	case acceptAction, discardAction:
		s.settleOffered(ctx, ws, r.ID, item.Title == acceptAction)
	case openReport:
		focus := true
		if res, err := s.peer().ShowDocument(ctx, &protocol.ShowDocumentParams{URI: uri.File(files.Report), TakeFocus: &focus}); err != nil || res == nil || !res.Success {
			s.notify(protocol.MessageTypeWarning, fmt.Sprintf("lunad goal %s: the editor did not open the report (%v); it is %s", r.ID, err, files.Report))
		}
	}
}

// goalSummary is the message that ends a goal: how it went, its branch,
// its tests, what to do next.
func goalSummary(res lunad.GoalResult) (protocol.MessageType, string) {
	var b strings.Builder
	fmt.Fprintf(&b, "lunad goal %s: %s", res.Run, res.Outcome)
	if why := firstNonEmpty(res.Summary, res.Reason); why != "" {
		fmt.Fprintf(&b, ": %s", why)
	}
	fmt.Fprintf(&b, "; %d commits on %s", len(res.Commits), res.Branch)
	if res.TestsAfter != nil {
		before := "none"
		if res.TestsBefore != nil {
			before = verdict(res.TestsBefore.OK)
		}
		fmt.Fprintf(&b, "; tests %s → %s", before, verdict(res.TestsAfter.OK))
	} else {
		b.WriteString("; no tests ran")
	}
	typ := protocol.MessageTypeInfo
	ok := res.Outcome == lunad.GoalFinished && (res.TestsAfter == nil || res.TestsAfter.OK)
	if !ok && res.Outcome != lunad.GoalPlanned && res.Outcome != lunad.GoalDryRun {
		typ = protocol.MessageTypeWarning
	}
	if len(res.Commits) > 0 {
		fmt.Fprintf(&b, "; take it with lunad goal accept %s, or drop it with lunad goal discard %s", res.Run, res.Run)
	}
	return typ, b.String()
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
