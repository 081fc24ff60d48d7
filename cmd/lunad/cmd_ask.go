package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/follow"
)

var cmdAsk = &command{
	name:    "ask",
	args:    `"REQUEST" [--artifact ID] [--dry-run]`,
	summary: "ask lunad's agents to create, edit, explain or review artifacts",
	help: `An ask is a run of the built-in workflow ask in the workspace's daemon
(started if none runs): the supervisor routes the request to the coder, the
writer or the reviewer, who works on the artifacts through lunad's tools;
every write is a commit authored by that role. Progress goes to standard
error; then what was done — the artifacts created or edited with their
versions and lines added and removed, the artifacts that became stale, the
tokens used — or the question the agents ask back. --json prints the result
(the AskResult of docs/agents.md). --artifact names the artifact the request
is about (the active one, as an editor's buffer is). --dry-run shows the
route and the compiled prompts without calling a worker or writing.
The exit code is 0 when the ask is done (or dry-run), 1 when it ends
otherwise (a question, a budget spent, a guard, a failure): the message says
why and what to do. Interrupting (Ctrl-C) cancels the ask's run. The model
is configured in [llm] of .luna/config.toml or LUNAD_LLM_* (docs/agents.md).`,
	minArgs: 1, maxArgs: 1,
	run: runAsk,
}

// askPoll is how often an ask's run is read for its progress.
const askPoll = 100 * time.Millisecond

func runAsk(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	artifact := fs.String("artifact", "", "the artifact the request is about: an `ID` or path (the active one)")
	dry := fs.Bool("dry-run", false, "route and compile the prompts, show them, call no worker and write nothing")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(pos[0]) == "" {
		return fs.usageError("the request is empty: say what to do, e.g. lunad ask \"write a Python function that parses a TOML config\"")
	}
	cfg, err := m.config()
	if err != nil {
		return err
	}
	// Refused here, before a run starts, with the setting to fix.
	if _, err := cfg.LLMFor("supervisor"); err != nil {
		return err
	}
	return m.withRunner(ctx, true, func(ws lunad.Workspace) error {
		res, err := askAndWait(ctx, ws, askRequest(pos[0], *artifact, *dry), m.Stderr)
		if err != nil {
			return err
		}
		if m.json {
			if err := m.printJSON(res); err != nil {
				return err
			}
		} else if err := printAsk(m.Stdout, res); err != nil {
			return err
		}
		return askOutcome(res)
	})
}

// askRequest is the run request of an ask (lunad.AskWorkflow's params).
func askRequest(request, artifact string, dry bool) lunad.RunRequest {
	p := map[string]string{lunad.AskParamRequest: request}
	if artifact != "" {
		p[lunad.AskParamArtifact] = artifact
	}
	if dry {
		p[lunad.AskParamDryRun] = "true"
	}
	return lunad.RunRequest{Workflow: lunad.AskWorkflow, Params: p}
}

// askAndWait starts the ask, reports its stages on progress as the run's
// events arrive, and returns its result once it has finished. An active
// artifact that does not exist is refused before anything starts. If ctx
// ends first, the run is cancelled.
func askAndWait(ctx context.Context, ws lunad.Workspace, req lunad.RunRequest, progress io.Writer) (lunad.AskResult, error) {
	if ref := req.Params[lunad.AskParamArtifact]; ref != "" {
		if _, err := ws.Artifact(ctx, ref); err != nil {
			return lunad.AskResult{}, fmt.Errorf("--artifact: %w", err)
		}
	}
	info, err := ws.StartRun(ctx, req)
	if err != nil {
		var nf *lunad.RunNotFoundError
		if errors.As(err, &nf) && nf.Kind == "workflow" {
			return lunad.AskResult{}, fmt.Errorf("%w: this lunad has no ask workflow: the daemon serving the workspace is older than lunad ask (restart it: stop its `lunad serve`, the next command starts a new one)", err)
		}
		return lunad.AskResult{}, err
	}
	fmt.Fprintf(progress, "ask %s: started\n", info.ID)
	r, err := follow.Run(ctx, ws, info.ID, askPoll, func(e lunad.RunEvent) {
		if line := follow.Progress(e); line != "" {
			fmt.Fprintf(progress, "  %s\n", line)
		}
	})
	switch {
	case ctx.Err() != nil:
		return lunad.AskResult{}, cancelAsk(ws, info.ID, ctx.Err())
	case err != nil:
		return lunad.AskResult{}, fmt.Errorf("following ask %s: %w (it goes on: lunad run show %s)", info.ID, err, info.ID)
	}
	return askResultOf(r)
}

// cancelAsk cancels an ask whose caller stopped waiting.
func cancelAsk(ws lunad.Workspace, id string, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := ws.CancelRun(ctx, id); err != nil {
		return fmt.Errorf("ask %s interrupted (%v), and cancelling it failed: %v (see lunad run show %s)", id, cause, err, id)
	}
	return fmt.Errorf("ask %s interrupted (%v): its run is cancelled; nothing more is written", id, cause)
}

// askResultOf is the result of a finished ask run; a run that ended
// without one (its agent crashed, the daemon gave up on it) is an error
// naming the command that shows why.
func askResultOf(r lunad.RunInfo) (lunad.AskResult, error) {
	res, err := lunad.AskResultOf(r)
	if err != nil {
		why := r.Error
		if why == "" {
			why = err.Error()
		}
		return res, fmt.Errorf("ask %s %s without a result: %s (see lunad run show %s)", r.ID, r.Status, why, r.ID)
	}
	if res.Run == "" {
		res.Run = r.ID
	}
	return res, nil
}

// printAsk writes what an ask did, for a person.
func printAsk(w io.Writer, r lunad.AskResult) error {
	p := &errWriter{w: w}
	p.printf("ask %s: %s", r.Run, r.Status)
	if len(r.Workers) > 0 {
		p.printf(" (%s)", strings.Join(r.Workers, " → "))
	}
	p.printf("\n")
	if rt := r.Route; rt != nil {
		target := ""
		if rt.Target != nil {
			target = " " + *rt.Target
		}
		if rt.NewArtifact != nil {
			target = fmt.Sprintf(" new %s %q at %s", rt.NewArtifact.Type, rt.NewArtifact.Title, rt.NewArtifact.Path)
		}
		p.printf("route: %s → %s%s", rt.Intent, rt.Worker, target)
		if len(rt.ReadDeps) > 0 {
			p.printf(", reading %s", strings.Join(rt.ReadDeps, ", "))
		}
		if rt.Reason != "" {
			p.printf(": %s", rt.Reason)
		}
		p.printf("\n")
	}
	if r.Question != "" {
		p.printf("question: %s\n", r.Question)
	}
	if r.Reason != "" {
		p.printf("reason: %s\n", r.Reason)
	}
	if r.Summary != "" {
		p.printf("summary: %s\n", r.Summary)
	}
	for _, c := range r.Changes {
		verb := "edited "
		if c.Created {
			verb = "created"
		}
		p.printf("%s %s (%s) v%d +%d -%d by %s\n", verb, c.Path, c.ID, c.Version, c.Added, c.Removed, c.Worker)
	}
	for _, f := range r.Findings {
		at := f.Artifact
		if f.Line > 0 {
			at = fmt.Sprintf("%s:%d", at, f.Line)
		}
		p.printf("%s: %s: %s\n", at, f.Severity, f.Message)
	}
	if len(r.Stale) > 0 {
		p.printf("stale now:\n")
		for _, s := range r.Stale {
			p.printf("  %s (%s): refers to %s\n", s.Path, s.ID, strings.Join(s.Symbols, ", "))
		}
		p.printf("update them with: lunad ask \"update the stale docs\"\n")
	}
	for _, pr := range r.Prompts {
		p.printf("--- prompt of the %s (%s, %d tokens; tools: %s)\n[system]\n%s\n[user]\n%s\n", pr.Role, pr.Prompt, pr.Tokens, strings.Join(pr.Tools, ", "),
			strings.TrimRight(pr.System, "\n"), strings.TrimRight(pr.User, "\n"))
	}
	u := r.Usage
	p.printf("tokens: %d in, %d out, %d model calls\n", u.InputTokens, u.OutputTokens, u.Calls)
	return p.err
}

// askOutcome is the error an ask that is not done exits with.
func askOutcome(r lunad.AskResult) error {
	switch r.Status {
	case lunad.AskDone, lunad.AskDryRun:
		return nil
	case lunad.AskQuestion:
		return fmt.Errorf("the agents need a more precise request, nothing was written: %s (name the artifact with --artifact ID; see lunad list)", r.Question)
	case lunad.AskBudgetExhausted:
		return fmt.Errorf("ask %s spent its budget: %s (raise [agents.budget] in .luna/config.toml, or ask for less)", r.Run, orWhat(r.Reason, r.Summary))
	case lunad.AskStopped:
		return fmt.Errorf("ask %s was stopped: %s (see lunad run log %s)", r.Run, orWhat(r.Reason, r.Summary), r.Run)
	}
	return fmt.Errorf("ask %s %s: %s (see lunad run log %s)", r.Run, r.Status, orWhat(r.Reason, r.Summary), r.Run)
}

func orWhat(a, b string) string {
	if a != "" {
		return a
	}
	if b != "" {
		return b
	}
	return "no reason given"
}

// errWriter writes formatted text, keeping the first error.
type errWriter struct {
	w   io.Writer
	err error
}

func (p *errWriter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
