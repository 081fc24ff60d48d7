package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/runs/workflow"
)

var cmdWorkflow = &command{
	name:    "workflow",
	args:    "list | show NAME | check FILE",
	summary: "list, show or check the workspace's workflows (.luna/workflows/NAME.toml)",
	help: `check validates a workflow file without a workspace: every problem is
printed as FILE:LINE:COL: message, and the exit code is 1 if there is any.
docs/runs.md describes the file format.`,
	minArgs: 1, maxArgs: 2,
	run: runWorkflow,
}

func runWorkflow(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	switch {
	case pos[0] == "check" && len(pos) == 2:
		data, err := os.ReadFile(pos[1])
		if err != nil {
			return fmt.Errorf("%w: %v", lunad.ErrInvalid, err)
		}
		if err := workflow.Check(pos[1], data); err != nil {
			return err
		}
		_, err = fmt.Fprintf(m.Stdout, "%s: ok\n", pos[1])
		return err
	case pos[0] == "list" && len(pos) == 1:
		return m.withRunner(ctx, false, func(ws lunad.Workspace) error {
			list, err := ws.Workflows(ctx)
			if err != nil || m.json {
				return orJSON(m, list, err)
			}
			t := newTable(m.Stdout, "NAME", "VERSION", "STAGES", "PROBLEM")
			for _, w := range list {
				t.row(w.Name, w.Version, strings.Join(w.Stages, ","), lunad.FirstLine(w.Error))
			}
			return t.flush()
		})
	case pos[0] == "show" && len(pos) == 2:
		return m.withRunner(ctx, false, func(ws lunad.Workspace) error {
			w, err := ws.Workflow(ctx, pos[1])
			if err != nil || m.json {
				return orJSON(m, w, err)
			}
			fmt.Fprintf(m.Stdout, "workflow %s\nversion  %s\nfile     %s\nstart    %s\nstages   %s\n", w.Name, w.Version, w.File, w.Start, strings.Join(w.Stages, ", "))
			if w.Error != "" {
				fmt.Fprintf(m.Stdout, "problems:\n%s\n", w.Error)
			}
			return nil
		})
	}
	return fs.usageError("unknown form: workflow %s", strings.Join(pos, " "))
}

var cmdRun = &command{
	name:    "run",
	args:    "start WORKFLOW [--input ID]... [--param K=V]... [--key K] [--wait] | list | show RUN | log RUN | replay RUN [--live] | cancel RUN | retry RUN | prune --older-than D",
	summary: "start, follow, replay, cancel, retry and prune runs of workflows",
	help: `A run drives a workflow's stages; the engine, in the workspace's daemon
(started if none runs), chooses every next stage. start prints the run's ID
(with --wait, once it has finished; the exit code is then 1 unless it
completed or ended with an outcome its workflow names, like question), or with --json the run as run show --json has it, without
its events. --key makes start idempotent: the same key returns the same run.
show prints the run's status, path and stages; log its events, which are
also the commits of git log refs/luna/runs/RUN. replay re-drives the run
from its log and exits 1 if the path or the tree it wrote differ; --live
runs the agents again. retry resumes an aborted or dead-lettered run.
prune replaces the logs of runs finished more than D ago by summaries.`,
	minArgs: 1, maxArgs: 2,
	run: runRun,
}

// multi is a repeatable string flag.
type multi []string

func (v *multi) String() string     { return strings.Join(*v, ",") }
func (v *multi) Set(s string) error { *v = append(*v, s); return nil }

func runRun(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	var inputs, params multi
	fs.Var(&inputs, "input", "an artifact `ID` or path the run reads (repeatable)")
	fs.Var(&params, "param", "a run parameter `K=V` (repeatable)")
	key := fs.String("key", "", "idempotency `key`: a start with the same key returns the same run")
	wait := fs.Bool("wait", false, "wait for the run to finish")
	live := fs.Bool("live", false, "replay: run the agents again instead of using their recorded outputs")
	olderThan := fs.Duration("older-than", 0, "prune: runs finished more than `D` ago (e.g. 720h)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	sub, id := pos[0], ""
	if len(pos) == 2 {
		id = pos[1]
	}
	needID, known := map[string]bool{"start": true, "show": true, "log": true, "replay": true, "cancel": true, "retry": true}[sub]
	if !known && sub != "list" && sub != "prune" || needID != (id != "") {
		return fs.usageError("unknown form: run %s", strings.Join(pos, " "))
	}
	drives := sub == "start" || sub == "retry"
	return m.withRunner(ctx, drives, func(ws lunad.Workspace) error {
		switch sub {
		case "start":
			req := lunad.RunRequest{Workflow: id, Inputs: inputs, Key: *key}
			if len(params) > 0 {
				req.Params = map[string]string{}
			}
			for _, p := range params {
				k, v, ok := strings.Cut(p, "=")
				if !ok || k == "" {
					return fs.usageError("--param %q is not K=V", p)
				}
				req.Params[k] = v
			}
			info, err := ws.StartRun(ctx, req)
			if err != nil {
				return err
			}
			if *wait {
				if info, err = ws.WaitRun(ctx, info.ID); err != nil {
					return err
				}
				fmt.Fprintf(m.Stderr, "run %s %s: %s\n", info.ID, info.Status, strings.Join(info.Path, " → "))
			}
			if m.json {
				info.Events = nil
				if err := m.printJSON(info); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(m.Stdout, info.ID)
			}
			if *wait && !info.Status.Ended() { // completed, or an outcome its workflow names
				return fmt.Errorf("run %s is %s: %s (see lunad run show %s)", info.ID, info.Status, info.Error, info.ID)
			}
			return nil
		case "list":
			list, err := ws.Runs(ctx)
			if err != nil || m.json {
				return orJSON(m, list, err)
			}
			return m.printRuns(list)
		case "show":
			info, err := ws.Run(ctx, id)
			if err != nil {
				return err
			}
			if m.json {
				return m.printJSON(info)
			}
			return m.printRun(info)
		case "log":
			info, err := ws.Run(ctx, id)
			if err != nil || m.json {
				return orJSON(m, info.Events, err)
			}
			return m.printEvents(info.Events)
		case "replay":
			rep, err := ws.ReplayRun(ctx, id, *live)
			if err != nil {
				return err
			}
			if m.json {
				if err := m.printJSON(rep); err != nil {
					return err
				}
			} else {
				m.printReplay(rep)
			}
			if !rep.Identical {
				return fmt.Errorf("the replay of run %s differs (see lunad run log %s)", id, id)
			}
			return nil
		case "cancel", "retry":
			f := ws.CancelRun
			if sub == "retry" {
				f = ws.RetryRun
			}
			info, err := f(ctx, id)
			if err != nil || m.json {
				return orJSON(m, info, err)
			}
			_, err = fmt.Fprintf(m.Stdout, "run %s %s\n", info.ID, info.Status)
			return err
		case "prune":
			if *olderThan <= 0 {
				return fs.usageError("prune needs --older-than D, a positive duration (e.g. 720h)")
			}
			ids, err := ws.PruneRuns(ctx, *olderThan)
			if err != nil || m.json {
				return orJSON(m, ids, err)
			}
			_, err = fmt.Fprintf(m.Stdout, "pruned %d runs\n", len(ids))
			return err
		}
		return fs.usageError("unknown form: run %s", strings.Join(pos, " "))
	})
}

var cmdDLQ = &command{
	name:    "dlq",
	args:    "list",
	summary: "list the dead-lettered runs (lunad run retry RUN resumes one)",
	minArgs: 1, maxArgs: 1,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		pos, err := fs.parse(args)
		if err != nil {
			return err
		}
		if pos[0] != "list" {
			return fs.usageError("unknown form: dlq %s", pos[0])
		}
		return m.withRunner(ctx, false, func(ws lunad.Workspace) error {
			list, err := ws.DeadLetters(ctx)
			if err != nil || m.json {
				return orJSON(m, list, err)
			}
			return m.printRuns(list)
		})
	},
}

// withRunner runs f with the workspace for run commands. A command that
// starts or resumes a run goes through the workspace's daemon, started if
// none runs, since the daemon drives runs (ErrInvalid if none can be
// used); the others use withWorkspace. In-process (tests set Options), the
// engine drives runs in this process while f runs.
func (m *Main) withRunner(ctx context.Context, drives bool, f func(ws lunad.Workspace) error) error {
	if !drives || m.Options != nil {
		return m.withWorkspace(ctx, f)
	}
	opts, err := m.options()
	if err != nil {
		return err
	}
	ws, err := rpc.Connect(ctx, m.workDir(), rpc.ConnectOptions{AutoStart: true, Config: daemon.Settings(opts)})
	if errors.Is(err, rpc.ErrNoDaemon) {
		// Driven by this process, the run would stop with it, and a daemon
		// serving with another configuration would not take it up.
		return fmt.Errorf("%w: runs are driven by the workspace's daemon, which cannot be used: %v", lunad.ErrInvalid, err)
	}
	if err != nil {
		return err
	}
	defer ws.Close()
	m.noteDaemon(ws)
	return f(ws)
}

func orJSON(m *Main, v any, err error) error {
	if err != nil {
		return err
	}
	return m.printJSON(v)
}

func (m *Main) printRuns(list []lunad.RunInfo) error {
	t := newTable(m.Stdout, "RUN", "WORKFLOW", "STATUS", "PATH", "UPDATED")
	for _, r := range list {
		t.row(r.ID, r.Workflow, string(r.Status), strings.Join(r.Path, "→"), r.Updated.Format(time.DateTime))
	}
	return t.flush()
}

func (m *Main) printRun(r lunad.RunInfo) error {
	fmt.Fprintf(m.Stdout, "run      %s\nworkflow %s (version %s)\nstatus   %s\npath     %s\n", r.ID, r.Workflow, r.WorkflowVersion, r.Status, strings.Join(r.Path, " → "))
	if r.Error != "" {
		fmt.Fprintf(m.Stdout, "error    %s\n", r.Error)
	}
	t := newTable(m.Stdout, "STAGE", "VISIT", "ATTEMPTS", "STATUS", "OUTPUT")
	for _, s := range r.Stages {
		t.row(s.Stage, fmt.Sprint(s.Visit), fmt.Sprint(s.Attempts), s.Status, string(s.Output))
	}
	return t.flush()
}

func (m *Main) printEvents(events []lunad.RunEvent) error {
	t := newTable(m.Stdout, "SEQ", "TIME", "EVENT", "STAGE", "ATTEMPT", "DETAIL")
	for _, e := range events {
		detail := e.Error
		if e.Next != "" {
			detail = "next: " + e.Next
		}
		att := ""
		if e.Attempt > 0 {
			att = fmt.Sprint(e.Attempt)
		}
		t.row(fmt.Sprint(e.Seq), e.Time.Format(time.RFC3339), string(e.Type), e.Stage, att, lunad.FirstLine(detail))
	}
	return t.flush()
}

func (m *Main) printReplay(r lunad.ReplayReport) {
	verdict := "identical"
	if !r.Identical {
		verdict = "DIFFERENT"
	}
	fmt.Fprintf(m.Stdout, "replay of %s: %s\npath     %s\nreplayed %s\ntree     %s\nreplayed %s\ndivergence %.2f\n", r.Run, verdict,
		strings.Join(r.Path, " → "), strings.Join(r.ReplayPath, " → "), r.Tree, r.ReplayTree, r.Divergence)
	for _, d := range r.Differences {
		fmt.Fprintf(m.Stdout, "  %s\n", d)
	}
}
