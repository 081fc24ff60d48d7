package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/daemon/exemem"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/daemon/watch"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/runs/natsqueue"
	"github.com/lunad/lunad/workspace"
)

// Options are what a Server is built from.
type Options struct {
	// Dir is a directory in the workspace to serve; Root is the
	// workspace's root (where the configuration was read).
	Dir, Root string
	// Config is the workspace's configuration, loaded and validated once
	// by the caller.
	Config config.Config
	// Store are the store's options: those Config makes, as the caller
	// may have adjusted them. The daemon sets its own index sync delay
	// and logger.
	Store gitstore.Options
	// Auto: started by a client. The daemon logs to its log file even if
	// none is configured, and gives way (Run returns nil at once) if
	// another daemon already serves the workspace.
	Auto bool
	// IdleTimeout: Run returns when no client has been connected for this
	// long; 0 never.
	IdleTimeout time.Duration
	// LogFile is where to log, relative to the current directory (a
	// command-line flag): it takes precedence over daemon.log_file.
	LogFile string
	// Stderr is where the daemon logs when no log file is set.
	Stderr io.Writer
	// Getenv reads the environment (the API keys, the sandbox's home,
	// GOMEMLIMIT, the heap profile's file).
	Getenv func(string) string
	// Restarted is why the daemon before this one restarted into it
	// (serve --restarted), shown in the status.
	Restarted string
}

// Server is the assembled daemon. New opens what it serves, Run serves
// it, Close closes it; a Server is run once.
type Server struct {
	o        Options
	log      *slog.Logger
	logFile  io.Closer // nil: logging to o.Stderr
	memLimit int64     // the runtime's limit in effect
	governed bool      // lunad set the limit, and governs it while serving
	restore  func()    // restores the runtime's memory limit of before
	queue    *natsqueue.Queue
	agents   *ask.Agents
	svc      *workspace.Service
	ln       net.Listener // nil: another daemon serves (Auto)
	live     *liveConfig  // the configuration in force (reload.go)
}

// New opens the workspace at o.Dir for serving: the log, the memory
// limit, the queue if configured, the service with its runs engine and
// agents, and the socket (rpc.Listen). It fails with rpc.ErrDaemonRunning
// if another daemon serves the workspace, unless o.Auto. What New opened
// is closed by Close, or by New itself when it fails.
func New(ctx context.Context, o Options) (srv *Server, err error) {
	s := &Server{o: o, restore: func() {}, live: &liveConfig{cfg: o.Config, loaded: time.Now()}}
	if o.Restarted != "" {
		s.live.notice = "the daemon restarted: " + o.Restarted
	}
	defer func() {
		if err != nil {
			s.Close() // err says why New failed; a failure to close is secondary
			srv = nil
		}
	}()
	s.memLimit, s.governed, s.restore = setMemoryLimit(o.Config.Daemon.MemoryLimit, o.Getenv)
	if err := s.openLog(); err != nil {
		return s, err
	}
	// The executable's code and read-only data count in the daemon's RSS
	// by what it touches, not by 2 MiB page-cache folios (package exemem).
	if r, err := exemem.Trim(); err != nil {
		s.log.Warn("executable mappings not trimmed", "err", err)
	} else {
		s.log.Info("executable mappings trimmed", "mappings", r.Mappings, "released_bytes", r.Released)
	}
	cfg := o.Config
	if cfg.Queue.URL != "" {
		if s.queue, err = OpenQueue(ctx, cfg.Queue, o.Root, RoleDaemon, o.Getenv, s.log); err != nil {
			return s, err
		}
	}
	opts := o.Store
	opts.IndexSyncDelay = indexSyncDelay
	opts.Logger = s.log
	if s.svc, err = OpenService(o.Dir, cfg, opts); err != nil {
		return s, err
	}
	ln, err := rpc.Listen(s.svc)
	if errors.Is(err, rpc.ErrDaemonRunning) && o.Auto {
		s.log.Info("not serving: " + err.Error())
		return s, nil // a client started two; the other one serves
	}
	if err != nil {
		return s, err
	}
	s.ln = ln
	return s, s.configureRuns(ctx)
}

// configureRuns gives the service's runs engine the configuration, the
// queue and lunad's agents.
func (s *Server) configureRuns(ctx context.Context) error {
	ro := runs.Options{Logger: s.log}
	if s.queue != nil {
		ro.NewProcess = s.queue.NewAgent // stages run on `lunad worker` processes
	}
	agents, goals, err := configureRuns(s.svc, ro, s.o.Config, s.live.current, s.o.Getenv, s.log, nil)
	if err != nil {
		return err
	}
	s.agents = agents
	goals.Capabilities(ctx) // probed and logged now, not at the first goal
	return nil
}

// Run resumes the runs and serves the workspace until ctx is done, the
// daemon has been idle for Options.IdleTimeout, a client stopped it, its
// listener fails (the error) or, for a daemon started by a client
// (Auto), its configuration file changed in a way it cannot take live
// and it is idle (rpc.ErrRestart: the caller starts its successor,
// Successor). While it serves it follows the configuration file
// (reload.go). The requests in flight are finished first: their commits
// land and are answered. The watcher follows changes made outside lunad
// for as long as Run serves; every goroutine Run starts has ended when it
// returns. Run returns nil at once if the daemon gave way to another.
func (s *Server) Run(ctx context.Context) error {
	if s.ln == nil {
		return nil
	}
	if err := s.svc.DriveRuns(ctx); err != nil {
		return fmt.Errorf("resuming runs: %w", err)
	}
	cfg := s.o.Config
	s.log.Info("daemon serving", "root", s.svc.Root(), "socket", socketOf(s.ln), "pid", os.Getpid(),
		"idle_timeout", s.o.IdleTimeout.String(), "auto", s.o.Auto, "memory_limit", s.memLimit)

	// The server runs until ctx is done (a signal) or it stops (idle, or
	// its listener failed); the watcher follows changes made outside lunad
	// for as long as the server runs.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		serveErr error
	)
	if s.governed { // the limit follows the live heap upward while serving
		wg.Go(func() { governMemory(ctx, s.memLimit, s.log, nil) })
	}
	// Clients are served once the watcher watches (or has failed to), so
	// that a change a client makes by hand after its first call is seen —
	// or after watcherStart at most, within a client's hello timeout.
	watching := make(chan struct{})
	var once sync.Once
	ready := func() { once.Do(func() { close(watching) }) }
	wg.Go(func() {
		defer ready()
		err := watch.Watch(ctx, s.svc, watch.Options{RecordSaves: cfg.Daemon.RecordSaves, Logger: s.log, Ready: ready})
		if err != nil {
			// Serving goes on; what changes outside lunad is seen at the
			// next operation on it instead of right away.
			s.log.Error("watcher stopped: changes made outside lunad are no longer followed", "err", err)
		}
	})
	var restart chan string // nil: the daemon does not restart by itself
	if s.o.Auto {
		restart = make(chan string, 1)
	}
	wg.Go(func() { s.followConfig(ctx, restart) })
	wg.Go(func() {
		defer cancel()
		select {
		case <-watching:
		case <-time.After(watcherStart):
			s.log.Warn("serving before the watcher is ready: it is still setting up its watches", "waited", watcherStart)
		case <-ctx.Done():
			return
		}
		o := s.serveOptions()
		o.Restart = restart
		serveErr = rpc.Serve(ctx, s.svc, s.ln, o)
	})
	wg.Wait()
	writeHeapProfile(s.o.Getenv, s.log)
	if errors.Is(serveErr, rpc.ErrRestart) {
		s.log.Info("daemon stopped to restart with the changed configuration", "reason", s.live.restartReason())
		return serveErr
	}
	if serveErr != nil {
		s.log.Error("daemon failed", "err", serveErr)
	}
	return serveErr
}

// serveOptions are the protocol server's settings from the configuration.
func (s *Server) serveOptions() rpc.ServeOptions {
	d := s.o.Config.Daemon
	return rpc.ServeOptions{IdleTimeout: s.o.IdleTimeout, Busy: func() bool { return s.svc.RunsInFlight() > 0 }, Logger: s.log,
		MaxFrame: maxFrame(s.o.Store), Config: Settings(s.o.Store), MaxConns: d.MaxConnections, ConnIdleTimeout: config.Never(d.ConnIdleTimeout),
		Status: s.status, Notice: s.live.takeNotice}
}

// Close closes what New opened, the service (and its runs engine) before
// the agents and the queue they use, and restores the process's memory
// limit. It returns the service's error.
func (s *Server) Close() error {
	var err error
	if s.ln != nil {
		s.ln.Close() // Serve closes it too; this covers a stop before serving
	}
	if s.svc != nil {
		err = s.svc.Close()
	}
	if s.agents != nil {
		s.agents.Close()
	}
	if s.queue != nil {
		s.queue.Close()
	}
	if s.logFile != nil {
		s.logFile.Close()
	}
	s.restore()
	return err
}
