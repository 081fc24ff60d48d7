package main

import (
	"context"
	"errors"
	"flag"

	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/daemon/rpc"
)

var cmdServe = &command{
	name:    "serve",
	args:    "[--auto] [--idle-timeout D] [--log FILE] [--restarted REASON]",
	summary: "run the workspace daemon, through which the other commands and clients reach the workspace",
	help: `
Serves the workspace on a unix socket in the git directory (mode 0600;
<git dir>/luna/daemon.sock) until SIGINT or SIGTERM, then finishes the
requests in flight (their commits land and are answered) and exits 0. Other
lunad commands run through it while it runs. Logs go to standard error
(never stdout), or to --log FILE, or to daemon.log_file from the
configuration.

--auto is how a client starts a daemon: it exits when no client has been
connected for daemon.idle_timeout (default 5m), logs to
<git dir>/luna/lunad.log unless daemon.log_file says otherwise, and exits 0
without serving if another daemon already serves the workspace. One daemon
serves a workspace; a second serve fails (exit 1) naming the first.

The daemon follows .luna/config.toml: a change of [llm] is in force for
the next model call; a change it cannot take live (the author, the limits,
[daemon], [runs], [queue], ...: see docs/cli.md) makes a daemon started
with --auto restart once idle — it exits and starts its successor with
--restarted WHY, which ` + "`lunad daemon status`" + ` shows —, and is shown
by ` + "`lunad daemon status`" + ` of a daemon started without --auto. A file
that does not load keeps the configuration in force.`,
	minArgs: 0, maxArgs: 0,
	run: runServe,
}

func runServe(m *Main, ctx context.Context, fs *flagSet, args []string) (err error) {
	auto := fs.Bool("auto", false, "started by a client: exit when idle, log to the log file, give way to a running daemon")
	idle := fs.Duration("idle-timeout", 0, "exit when no client has been connected for `duration` D (0: never; default for --auto: daemon.idle_timeout)")
	logFile := fs.String("log", "", "log to `file` (default: standard error, or the configured daemon.log_file)")
	restarted := fs.String("restarted", "", "why the daemon before this one restarted into it (`reason`, set by that daemon)")
	if _, err := fs.parse(args); err != nil {
		return err
	}
	idleSet := false
	fs.Visit(func(f *flag.Flag) { idleSet = idleSet || f.Name == "idle-timeout" })
	if *idle < 0 {
		return fs.usageError("--idle-timeout %v is negative", *idle)
	}
	cfg, err := m.config()
	if err != nil {
		return err
	}
	if !idleSet && *auto {
		*idle = cfg.Daemon.IdleTimeout
	}
	opts, err := m.options()
	if err != nil {
		return err
	}
	s, err := daemon.New(ctx, daemon.Options{Dir: m.workDir(), Root: findRoot(m.workDir()), Config: cfg, Store: opts,
		Auto: *auto, IdleTimeout: *idle, LogFile: *logFile, Stderr: m.Stderr, Getenv: m.Getenv, Restarted: *restarted})
	if err != nil {
		return err
	}
	err = s.Run(ctx)
	if cerr := s.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if errors.Is(err, rpc.ErrRestart) {
		// Closed, it has let go of the workspace: its successor reads the
		// configuration afresh.
		return daemon.Successor(ctx, findRoot(m.workDir()), s.RestartReason())
	}
	return err
}
