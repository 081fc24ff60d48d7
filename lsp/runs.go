package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// Runs from the editor: luna.runs lists the workspace's runs (or shows
// one), luna.runWorkflow starts a run and answers with it at once, then
// reports the run as $/progress — a begin, a report per stage entered (and
// per retry), an end with the final status — from a goroutine the server
// owns, until the run finishes or the session ends.

// runPoll is how often a followed run is read again.
const runPoll = 200 * time.Millisecond

// runsCommand answers luna.runs: every run, or with an argument — a run's
// ID or {id} — that run with its events.
func runsCommand(ctx context.Context, ws lunad.Workspace, a *argList) (any, error) {
	if len(a.args) == 0 || string(a.args[0]) == "null" {
		return ws.Runs(ctx)
	}
	id, err := runArg(a, " (no argument lists every run)")
	if err != nil {
		return nil, err
	}
	return ws.Run(ctx, id)
}

// runArg is the run a command's first argument names: its ID or {id};
// more says what else the command takes.
func runArg(a *argList, more string) (string, error) {
	var arg struct {
		ID string `json:"id"`
	}
	if len(a.args) == 0 || json.Unmarshal(a.args[0], &arg) != nil || arg.ID == "" {
		arg.ID = a.string(0)
	}
	if a.err != nil {
		a.err = fmt.Errorf("%w: %s: argument 1 must be a run's ID or {id}%s", lunad.ErrInvalid, a.cmd, more)
		return "", a.err
	}
	return arg.ID, nil
}

// runWorkflowCommand answers luna.runWorkflow {workflow, params?, inputs?,
// key?}: the run as started; its progress follows.
func (s *Server) runWorkflowCommand(ctx context.Context, ws lunad.Workspace, a *argList) (any, error) {
	var req lunad.RunRequest
	a.object(0, &req)
	if a.err != nil {
		a.err = fmt.Errorf("%w: luna.runWorkflow: argument 1 must be {workflow, params?: {name: string}, inputs?: [ID or path], key?}", lunad.ErrInvalid)
		return nil, a.err
	}
	info, err := ws.StartRun(ctx, req)
	if err != nil {
		return nil, err
	}
	s.goOwned(func(done <-chan struct{}) { s.followRun(ws, info, done) })
	return info, nil
}

// goOwned runs f in a goroutine that Serve waits for before it returns;
// done is closed at shutdown. It does nothing once the session is ending.
func (s *Server) goOwned(f func(done <-chan struct{})) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f(s.stopping)
	}()
	return true
}

// followRun reports run info as work-done progress until it finishes, the
// server shuts down (done) or the session ends.
func (s *Server) followRun(ws lunad.Workspace, info lunad.RunInfo, done <-chan struct{}) {
	token := protocol.String("lunad-run-" + info.ID)
	if err := s.peer().WorkDoneProgressCreate(s.ctx, &protocol.WorkDoneProgressCreateParams{Token: token}); err != nil {
		s.log.Debug("run progress refused by the client", "run", info.ID, "err", err)
		return
	}
	s.progress(token, protocol.WorkDoneProgressBegin{Kind: "begin", Title: "lunad: run " + info.Workflow,
		Message: ptr(info.ID + ": started")})
	tick := time.NewTicker(runPoll)
	defer tick.Stop()
	stages, attempts := 0, 1 // reported so far: stages entered, attempts of the last
	for {
		r, err := ws.Run(s.ctx, info.ID)
		if s.ctx.Err() != nil {
			return // the session is over: nobody to tell
		}
		if err != nil {
			s.progress(token, protocol.WorkDoneProgressEnd{Kind: "end", Message: ptr(fmt.Sprintf("%s: no longer followed: %v", info.ID, err))})
			return
		}
		for ; stages < len(r.Path); stages++ {
			attempts = 1
			s.progress(token, protocol.WorkDoneProgressReport{Kind: "report",
				Message: ptr(fmt.Sprintf("%s: stage %d, %s", info.ID, stages+1, r.Path[stages]))})
		}
		if n := len(r.Stages); n > 0 && n == len(r.Path) && r.Stages[n-1].Attempts > attempts {
			attempts = r.Stages[n-1].Attempts
			s.progress(token, protocol.WorkDoneProgressReport{Kind: "report",
				Message: ptr(fmt.Sprintf("%s: stage %d, %s, attempt %d", info.ID, n, r.Stages[n-1].Stage, attempts))})
		}
		if r.Status.Finished() {
			s.progress(token, protocol.WorkDoneProgressEnd{Kind: "end", Message: ptr(runEnd(r))})
			return
		}
		select {
		case <-tick.C:
		case <-done:
			s.progress(token, protocol.WorkDoneProgressEnd{Kind: "end",
				Message: ptr(info.ID + ": no longer followed (lunad is shutting down); the run goes on: lunad run show " + info.ID)})
			return
		case <-s.ctx.Done():
			return
		}
	}
}

// runEnd is the final progress message: "ID: completed: draft → publish",
// with the error of a run that did not complete.
func runEnd(r lunad.RunInfo) string {
	msg := fmt.Sprintf("%s: %s", r.ID, r.Status)
	if len(r.Path) > 0 {
		msg += ": " + strings.Join(r.Path, " → ")
	}
	if r.Error != "" {
		msg += ": " + r.Error
	}
	return msg
}

func ptr[T any](v T) *T { return &v }
