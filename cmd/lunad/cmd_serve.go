package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/daemon/exemem"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/daemon/watch"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/runs/natsqueue"
	"github.com/lunad/lunad/workspace"
)

var cmdServe = &command{
	name:    "serve",
	args:    "[--auto] [--idle-timeout D] [--log FILE]",
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
serves a workspace; a second serve fails (exit 1) naming the first.`,
	minArgs: 0, maxArgs: 0,
	run: runServe,
}

// indexSyncDelay is the daemon's gitstore.Options.IndexSyncDelay: the git
// index follows its commits at most this long after them, so that `git
// status` is clean while the daemon runs (a one-shot command syncs it when
// it closes the store).
const indexSyncDelay = 50 * time.Millisecond

// watcherStart bounds how long the daemon waits for its watcher before it
// serves (see runServe).
const watcherStart = 3 * time.Second

// never maps a configured timeout of 0 (never) to Serve's "never", a
// negative duration.
func never(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

func runServe(m *Main, ctx context.Context, fs *flagSet, args []string) (err error) {
	auto := fs.Bool("auto", false, "started by a client: exit when idle, log to the log file, give way to a running daemon")
	idle := fs.Duration("idle-timeout", 0, "exit when no client has been connected for `duration` D (0: never; default for --auto: daemon.idle_timeout)")
	logFile := fs.String("log", "", "log to `file` (default: standard error, or the configured daemon.log_file)")
	if _, err := fs.parse(args); err != nil {
		return err
	}
	idleSet := false
	fs.Visit(func(f *flag.Flag) { idleSet = idleSet || f.Name == "idle-timeout" })
	if *idle < 0 {
		return fs.usageError("--idle-timeout %v is negative", *idle)
	}
	root := findRoot(m.workDir())
	cfg, err := m.config()
	if err != nil {
		return err
	}
	if !idleSet && *auto {
		*idle = cfg.Daemon.IdleTimeout
	}
	memLimit, governed, restore := setMemoryLimit(cfg.Daemon.MemoryLimit, m.Getenv)
	defer restore()
	state, _, err := rpc.StateDir(root)
	if err != nil {
		return err
	}
	path := *logFile
	if path == "" {
		path = cfg.Daemon.LogFile
	}
	if path == "" && *auto {
		path = filepath.Join(state, rpc.LogName)
	}
	var out io.Writer = m.Stderr
	if path != "" {
		if !filepath.IsAbs(path) && *logFile == "" {
			path = filepath.Join(root, path) // the configured file is relative to the root
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("daemon log: %w", err)
		}
		defer f.Close()
		out = f
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// The executable's code and read-only data count in the daemon's RSS
	// by what it touches, not by 2 MiB page-cache folios (package exemem).
	if r, err := exemem.Trim(); err != nil {
		log.Warn("executable mappings not trimmed", "err", err)
	} else {
		log.Info("executable mappings trimmed", "mappings", r.Mappings, "released_bytes", r.Released)
	}

	opts, err := m.options()
	if err != nil {
		return err
	}
	id := daemonConfig(opts)
	opts.IndexSyncDelay = indexSyncDelay
	opts.Logger = log
	// The queue closes after the service (and its engine) has.
	var queue *natsqueue.Queue
	if cfg.Queue.URL != "" {
		if queue, err = openQueue(ctx, cfg.Queue, root, roleDaemon, m.Getenv, log); err != nil {
			return err
		}
		defer queue.Close()
	}
	// The agents close after the service (and its engine) has.
	var agents *ask.Agents
	defer func() {
		if agents != nil {
			agents.Close()
		}
	}()
	svc, err := workspace.Open(m.workDir(), opts)
	if err != nil {
		return err
	}
	defer closeService(svc, &err)
	if err := svc.SetSlugRule(cfg.Refs.Slugs); err != nil {
		return err
	}
	ln, err := rpc.Listen(svc)
	if errors.Is(err, rpc.ErrDaemonRunning) && *auto {
		log.Info("not serving: " + err.Error())
		return nil // a client started two; the other one serves
	}
	if err != nil {
		return err
	}
	defer ln.Close() // Serve closes it too; this covers a stop before serving
	snapshot, err := cfg.Snapshot()
	if err != nil {
		return err
	}
	ro := runs.Options{Config: snapshot, Slots: cfg.Runs.Slots, Logger: log}
	if queue != nil {
		ro.NewProcess = queue.NewAgent // stages run on `lunad worker` processes
	}
	var goals *goalHost
	if agents, goals, err = withAgents(&ro, svc, cfg, m.Getenv, log, nil); err != nil {
		return err
	}
	goals.capabilities(ctx) // probed and logged now, not at the first goal

	svc.ConfigureRuns(ro)
	if err := svc.DriveRuns(ctx); err != nil {
		return fmt.Errorf("resuming runs: %w", err)
	}
	log.Info("daemon serving", "root", svc.Root(), "socket", socketOf(ln), "pid", os.Getpid(),
		"idle_timeout", idle.String(), "auto", *auto, "memory_limit", memLimit)

	// The server runs until ctx is done (a signal) or it stops (idle, or
	// its listener failed); the watcher follows changes made outside lunad
	// for as long as the server runs.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		serveErr error
	)
	if governed { // the limit follows the live heap upward while serving
		wg.Go(func() { governMemory(ctx, memLimit, log, nil) })
	}
	// Clients are served once the watcher watches (or has failed to), so
	// that a change a client makes by hand after its first call is seen —
	// or after watcherStart at most, within a client's hello timeout.
	watching := make(chan struct{})
	var once sync.Once
	ready := func() { once.Do(func() { close(watching) }) }
	wg.Go(func() {
		defer ready()
		err := watch.Watch(ctx, svc, watch.Options{RecordSaves: cfg.Daemon.RecordSaves, Logger: log, Ready: ready})
		if err != nil {
			// Serving goes on; what changes outside lunad is seen at the
			// next operation on it instead of right away.
			log.Error("watcher stopped: changes made outside lunad are no longer followed", "err", err)
		}
	})
	wg.Go(func() {
		defer cancel()
		select {
		case <-watching:
		case <-time.After(watcherStart):
			log.Warn("serving before the watcher is ready: it is still setting up its watches", "waited", watcherStart)
		case <-ctx.Done():
			return
		}
		serveErr = rpc.Serve(ctx, svc, ln, rpc.ServeOptions{IdleTimeout: *idle, Busy: func() bool { return svc.RunsInFlight() > 0 }, Logger: log, MaxFrame: maxFrame(opts), Config: id,
			MaxConns: cfg.Daemon.MaxConnections, ConnIdleTimeout: never(cfg.Daemon.ConnIdleTimeout)})
	})
	wg.Wait()
	writeHeapProfile(m.Getenv, log)
	if serveErr != nil {
		log.Error("daemon failed", "err", serveErr)
	}
	return serveErr
}

// daemonConfig is the configuration that a daemon's answers depend on; a
// command configured otherwise does not use the daemon.
func daemonConfig(o gitstore.Options) *rpc.Settings {
	return &rpc.Settings{Author: o.Human.Name, Email: o.Human.Email, LockTimeout: o.LockTimeout, MaxContent: o.MaxContent}
}

// maxFrame is the largest message the daemon reads: the default (64 MiB),
// or 10 × max_content if that is more, so that every edit the command line
// accepts fits (SEARCH and REPLACE files may hold 4 × max_content each,
// and JSON escapes some bytes).
func maxFrame(o gitstore.Options) int {
	return max(rpc.DefaultMaxFrame, 10*o.MaxContent)
}

func socketOf(ln any) string {
	if p, ok := ln.(interface{ Path() string }); ok {
		return p.Path()
	}
	return ""
}
