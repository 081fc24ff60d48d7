package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/follow"
)

// Asking lunad's agents from the editor: luna.ask {request, artifact?,
// dryRun?} (or "REQUEST", URI?) starts a run of the ask workflow with the
// buffer as the active artifact and answers with the run at once; the run
// is reported as $/progress (lunad-ask-RUN) and ends with a message saying
// what was done or the question asked back. The artifacts it writes reach
// open buffers through the workspace's events, as any write does. The code
// action "lunad: ask the agents…" runs luna.askPrompt, a command of the
// editor client, which asks for the request and sends luna.ask.

// askArgs are luna.ask's arguments in object form.
type askArgs struct {
	Request  string `json:"request"`
	Artifact string `json:"artifact"`
	DryRun   bool   `json:"dryRun"`
}

const askUsage = `{request, artifact?: ID, path or URI, dryRun?: boolean} (or "REQUEST", artifact?)`

// askCommand answers luna.ask: the run as started.
func (s *Server) askCommand(ctx context.Context, ws lunad.Workspace, a *argList) (any, error) {
	var in askArgs
	if len(a.args) > 0 && strings.HasPrefix(strings.TrimSpace(string(a.args[0])), "{") {
		a.object(0, &in)
	} else {
		in.Request = a.string(0)
		in.Artifact = a.optString(1)
	}
	if a.err == nil && strings.TrimSpace(in.Request) == "" {
		a.fail(0, "a request saying what to do")
	}
	if a.err == nil && in.Artifact != "" {
		in.Artifact = a.ref(in.Artifact)
	}
	if a.err != nil {
		a.err = fmt.Errorf("%w (luna.ask takes %s)", a.err, askUsage)
		return nil, a.err
	}
	params := map[string]string{lunad.AskParamRequest: in.Request}
	if in.Artifact != "" {
		if _, err := ws.Artifact(ctx, in.Artifact); err != nil {
			return nil, fmt.Errorf("luna.ask: the active artifact: %w", err)
		}
		params[lunad.AskParamArtifact] = in.Artifact
	}
	if in.DryRun {
		params[lunad.AskParamDryRun] = "true"
	}
	info, err := ws.StartRun(ctx, lunad.RunRequest{Workflow: lunad.AskWorkflow, Params: params})
	if err != nil {
		return nil, err
	}
	s.goOwned(func(done <-chan struct{}) { s.followAsk(ws, info, done) })
	return info, nil
}

// followAsk reports an ask as work-done progress, a report per stage
// transition, until it finishes, then says what it did.
func (s *Server) followAsk(ws lunad.Workspace, info lunad.RunInfo, done <-chan struct{}) {
	r, token, ok := s.followAgents(ws, info, done, "ask", info.ID+": started", follow.Progress)
	if !ok {
		return
	}
	typ, msg := askSummary(r)
	s.progress(token, protocol.WorkDoneProgressEnd{Kind: "end", Message: ptr(info.ID + ": " + string(askStatus(r)))})
	s.notify(typ, msg)
}

// followAgents reports a run of lunad's agents (an ask, a goal) as
// work-done progress — token lunad-KIND-RUN, a report for each event
// words gives a line — until it finishes, and returns it with the token
// for the caller's end. ok is false when the run is no longer followed
// (the session or the server ending, a read failing): the progress has
// then ended, saying so where someone is there to read it.
func (s *Server) followAgents(ws lunad.Workspace, info lunad.RunInfo, done <-chan struct{}, kind, begin string, words func(lunad.RunEvent) string) (r lunad.RunInfo, token protocol.String, ok bool) {
	token = protocol.String("lunad-" + kind + "-" + info.ID)
	if err := s.peer().WorkDoneProgressCreate(s.ctx, &protocol.WorkDoneProgressCreateParams{Token: token}); err != nil {
		s.log.Debug(kind+" progress refused by the client", "run", info.ID, "err", err)
		token = "" // no progress; the final message still comes
	}
	s.progress(token, protocol.WorkDoneProgressBegin{Kind: "begin", Title: "lunad: " + kind, Message: ptr(begin)})
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	go func() { // ends with followAgents: cancel is deferred above
		select {
		case <-done:
			cancel()
		case <-ctx.Done():
		}
	}()
	r, err := follow.Run(ctx, ws, info.ID, runPoll, func(e lunad.RunEvent) {
		if msg := strings.TrimSpace(words(e)); msg != "" {
			s.progress(token, protocol.WorkDoneProgressReport{Kind: "report", Message: ptr(info.ID + ": " + msg)})
		}
	})
	switch {
	case s.ctx.Err() != nil:
		return r, token, false // the session is over: nobody to tell
	case err != nil && ctx.Err() != nil:
		s.progress(token, protocol.WorkDoneProgressEnd{Kind: "end",
			Message: ptr(fmt.Sprintf("%s: no longer followed (lunad is shutting down); the %s goes on: lunad run show %s", info.ID, kind, info.ID))})
		return r, token, false
	case err != nil:
		s.progress(token, protocol.WorkDoneProgressEnd{Kind: "end", Message: ptr(fmt.Sprintf("%s: no longer followed: %v", info.ID, err))})
		return r, token, false
	}
	return r, token, true
}

// askStatus is how a finished ask ended, or its run's status when it has
// no result.
func askStatus(r lunad.RunInfo) string {
	if res, err := lunad.AskResultOf(r); err == nil {
		return string(res.Status)
	}
	return string(r.Status)
}

// askSummary is the message that ends an ask: what was done, the
// question asked back, or why it stopped.
func askSummary(r lunad.RunInfo) (protocol.MessageType, string) {
	res, err := lunad.AskResultOf(r)
	if err != nil {
		why := r.Error
		if why == "" {
			why = err.Error()
		}
		return protocol.MessageTypeError, fmt.Sprintf("lunad ask %s %s: %s (lunad run show %s)", r.ID, r.Status, why, r.ID)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "lunad ask: %s", res.Status)
	if res.Summary != "" {
		fmt.Fprintf(&b, ": %s", res.Summary)
	}
	for _, c := range res.Changes {
		verb := "edited"
		if c.Created {
			verb = "created"
		}
		fmt.Fprintf(&b, "; %s %s v%d (+%d -%d, %s)", verb, c.Path, c.Version, c.Added, c.Removed, c.Worker)
	}
	if len(res.Stale) > 0 {
		paths := make([]string, len(res.Stale))
		for i, st := range res.Stale {
			paths[i] = st.Path
		}
		fmt.Fprintf(&b, "; stale now: %s (ask \"update the stale docs\")", strings.Join(paths, ", "))
	}
	typ := protocol.MessageTypeInfo
	switch res.Status {
	case lunad.AskDone, lunad.AskDryRun:
	case lunad.AskQuestion:
		typ = protocol.MessageTypeWarning
		fmt.Fprintf(&b, "; nothing was written: %s", res.Question)
	default:
		typ = protocol.MessageTypeWarning
		fmt.Fprintf(&b, "; %s", orReason(res))
	}
	fmt.Fprintf(&b, "; tokens %d in, %d out", res.Usage.InputTokens, res.Usage.OutputTokens)
	return typ, b.String()
}

func orReason(r lunad.AskResult) string {
	if r.Reason != "" {
		return r.Reason
	}
	return "see lunad run log " + r.Run
}
