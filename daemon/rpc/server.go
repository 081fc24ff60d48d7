package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/lunad/lunad"
)

// DefaultMaxConns is how many connections a daemon serves at once unless
// ServeOptions.MaxConns says otherwise.
const DefaultMaxConns = 256

// DefaultConnIdleTimeout is how long a connection may stay idle unless
// ServeOptions.ConnIdleTimeout says otherwise.
const DefaultConnIdleTimeout = 10 * time.Minute

// refuseWait bounds the wait for the first call of a connection over the
// cap, which is answered with the refusal (its id lets a client's call
// return the message).
const refuseWait = time.Second

// ErrRestart is Serve's error when it stopped for ServeOptions.Restart.
var ErrRestart = errors.New("the daemon stopped to restart")

// restartCheck is how often a restart waiting for the daemon to be idle
// looks again.
const restartCheck = 100 * time.Millisecond

// ServeOptions configure Serve.
type ServeOptions struct {
	// IdleTimeout, when > 0, makes Serve return once no client has been
	// connected for that long.
	IdleTimeout time.Duration
	// Busy, when set, is asked before an idle daemon stops: while it
	// reports true (runs in flight), the daemon keeps serving.
	Busy func() bool
	// Logger receives the daemon's log (default slog.Default()).
	Logger *slog.Logger
	// MaxFrame caps the size of a message read from a client (default
	// DefaultMaxFrame).
	MaxFrame int
	// Config is reported to clients in Hello; a client configured
	// otherwise can decline the daemon (ConnectOptions.Config).
	Config *Settings
	// MaxConns caps the connections served at once (default
	// DefaultMaxConns): one more is answered with a JSON-RPC error saying
	// so (its first call, or unasked) and closed.
	MaxConns int
	// ConnIdleTimeout closes a connection that has had no call in flight
	// and no subscription for that long (default DefaultConnIdleTimeout;
	// negative: never), after telling it why. A subscribed client (the
	// language server, the MCP server) waits for events and is never idle.
	// It also bounds the time a client may take to send one message.
	ConnIdleTimeout time.Duration
	// Status, when set, is the assembled daemon's part of its status
	// ("lunad/daemon", DaemonStatus).
	Status func() DaemonInfo
	// Notice, when set, is called at each client's hello: what it returns
	// is told to that client (Hello.Notice).
	Notice func() string
	// Restart, when set, delivers why the daemon must restart: Serve
	// then returns ErrRestart as soon as no call is in flight and Busy
	// reports false (the requests in flight finish first, as at any
	// stop).
	Restart <-chan string
}

// server is one Serve call.
type server struct {
	svc      lunad.Workspace
	opts     ServeOptions
	log      *slog.Logger
	base     context.Context // parent of every request: never canceled, so shutdown lets requests finish
	stopping chan struct{}   // closed when Serve stops
	stopCall chan string     // a "lunad/stop" call's reason
	started  time.Time
	served   atomic.Uint64
	active   atomic.Int64
	clients  atomic.Int64
	nextSub  atomic.Int64
	nextConn atomic.Int64

	conns       openConns      // the connections being served
	goroutines  sync.WaitGroup // the accept loop, each connection's and each refusal's: shutdown waits for them
	lastRefusal time.Time      // of the last refusal logged (at most one a second); Serve's goroutine only
}

// Serve answers the clients that connect to ln (see Listen) with svc until
// ctx is done or, with opts.IdleTimeout, no client has been connected for
// that long. Each connection is served concurrently, and requests on one
// connection run concurrently too. At most opts.MaxConns connections are
// served at once (more are refused with an error) and a connection idle
// for opts.ConnIdleTimeout is closed. On shutdown Serve stops accepting, lets
// the requests in flight finish and answers them, closes every connection
// and ln, and returns once all its goroutines are done. It returns nil
// after ctx is done or the idle timeout, else the listener's error.
func Serve(ctx context.Context, svc lunad.Workspace, ln net.Listener, opts ServeOptions) error {
	srv := newServer(ctx, svc, opts.withDefaults())
	defer ln.Close()
	accepted, acceptErr := srv.accept(ln)
	idle := srv.idleTimer()
	defer idle.Stop()
	restart := srv.opts.Restart
	var (
		restartWhy string
		recheck    <-chan time.Time // while a restart waits for the daemon to be idle
	)
	for {
		select {
		case nc := <-accepted:
			if !srv.conns.add(srv.opts.MaxConns) {
				srv.decline(nc)
				continue
			}
			idle.Stop()
			srv.goroutines.Go(func() {
				srv.serveConn(nc)
				srv.conns.remove()
			})
		case <-srv.conns.left:
			if srv.conns.count() == 0 && srv.opts.IdleTimeout > 0 {
				idle.Reset(srv.opts.IdleTimeout)
			}
		case <-idle.C:
			if srv.conns.count() > 0 {
				continue
			}
			if srv.opts.Busy != nil && srv.opts.Busy() {
				idle.Reset(srv.opts.IdleTimeout) // runs in flight: not idle
				continue
			}
			srv.shutdown(ln, fmt.Sprintf("no client for %v", srv.opts.IdleTimeout))
			return nil
		case why := <-restart:
			restartWhy, restart = why, nil
			srv.log.Info("daemon restarting when idle", "reason", why)
			recheck = time.After(0)
		case <-recheck:
			if srv.active.Load() > 0 || (srv.opts.Busy != nil && srv.opts.Busy()) {
				recheck = time.After(restartCheck)
				continue
			}
			srv.shutdown(ln, "restart: "+restartWhy)
			return ErrRestart
		case why := <-srv.stopCall:
			srv.shutdown(ln, why)
			return nil
		case <-ctx.Done():
			srv.shutdown(ln, context.Cause(ctx).Error())
			return nil
		case err := <-acceptErr:
			srv.shutdown(ln, "accept: "+err.Error())
			return fmt.Errorf("daemon: accept: %w", err)
		}
	}
}

// withDefaults returns opts with the options left unset at their defaults.
func (opts ServeOptions) withDefaults() ServeOptions {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxFrame <= 0 {
		opts.MaxFrame = DefaultMaxFrame
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.ConnIdleTimeout == 0 {
		opts.ConnIdleTimeout = DefaultConnIdleTimeout
	}
	return opts
}

// newServer makes the server of one Serve call; its requests' context is
// ctx's values without its cancellation.
func newServer(ctx context.Context, svc lunad.Workspace, opts ServeOptions) *server {
	return &server{svc: svc, opts: opts, log: opts.Logger, base: context.WithoutCancel(ctx),
		stopping: make(chan struct{}), stopCall: make(chan string, 1), started: time.Now(), conns: openConns{left: make(chan struct{}, 1)}}
}

// accept starts the accept loop, which delivers the connections ln accepts
// on accepted until the server stops, and the listener's error that ends
// it, if any, on failed.
func (srv *server) accept(ln net.Listener) (accepted <-chan net.Conn, failed <-chan error) {
	conns := make(chan net.Conn)
	errc := make(chan error, 1)
	srv.goroutines.Go(func() { srv.acceptLoop(ln, conns, errc) })
	return conns, errc
}

func (srv *server) acceptLoop(ln net.Listener, accepted chan<- net.Conn, failed chan<- error) {
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil && transient(err) {
			// Out of file descriptors, say: wait, and accept again.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			srv.log.Warn("accept failed; retrying", "err", err, "in", backoff)
			select {
			case <-time.After(backoff):
				continue
			case <-srv.stopping:
				return
			}
		}
		if err != nil {
			failed <- err
			return
		}
		backoff = 0
		select {
		case accepted <- nc:
		case <-srv.stopping:
			nc.Close()
			return
		}
	}
}

// idleTimer returns the timer of opts.IdleTimeout: it fires when no client
// has been connected for that long, and never without an IdleTimeout.
func (srv *server) idleTimer() *time.Timer {
	idle := time.NewTimer(srv.opts.IdleTimeout)
	if srv.opts.IdleTimeout <= 0 {
		idle.Stop()
	}
	return idle
}

// shutdown stops accepting, closes ln and returns once every connection
// has answered its calls in flight and closed, and every goroutine of the
// server is done.
func (srv *server) shutdown(ln net.Listener, why string) {
	srv.log.Info("daemon stopping", "reason", why, "clients", srv.conns.count())
	close(srv.stopping)
	ln.Close()
	srv.goroutines.Wait()
	srv.log.Info("daemon stopped", "served", srv.served.Load())
}

// openConns counts the connections being served.
type openConns struct {
	mu   sync.Mutex
	n    int
	left chan struct{} // signalled when n drops to 0
}

// add counts one more connection unless max are open, and reports whether
// it did.
func (o *openConns) add(max int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n >= max {
		return false
	}
	o.n++
	return true
}

// remove counts a connection less, signalling left when none is open.
func (o *openConns) remove() {
	o.mu.Lock()
	o.n--
	none := o.n == 0
	o.mu.Unlock()
	if none {
		select {
		case o.left <- struct{}{}:
		default:
		}
	}
}

func (o *openConns) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// transient reports whether an accept error may go away by itself.
func transient(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.EINTR} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// decline refuses, in a goroutine of its own, a connection over
// opts.MaxConns, logging the refusals at most once a second.
func (srv *server) decline(nc net.Conn) {
	if now := time.Now(); now.Sub(srv.lastRefusal) >= time.Second {
		srv.lastRefusal = now
		srv.log.Warn("connection refused: the daemon serves as many as it may", "max", srv.opts.MaxConns)
	}
	srv.goroutines.Go(func() { srv.refuse(nc) })
}

// refuse answers a connection over opts.MaxConns: its first call (read
// within refuseWait) gets the error, or, if none comes, an answer to no
// call does; then the connection is closed.
func (srv *server) refuse(nc net.Conn) {
	defer nc.Close()
	fs := newFrameStream(nc, srv.opts.MaxFrame, srv.log, 0)
	nc.SetReadDeadline(time.Now().Add(refuseWait))
	var id jsonrpc2.ID
	if body, _, err := fs.ReadFrame(srv.base); err == nil {
		if call, ok := decodeCall(body); ok {
			id = call.ID()
		}
	}
	conns := "connections"
	if srv.opts.MaxConns == 1 {
		conns = "connection"
	}
	fs.Write(srv.base, jsonrpc2.NewResponse(id, nil, jsonrpc2.Errorf(codeBusy,
		"the daemon serves at most %d %s; close clients you do not use, or raise daemon.max_connections in .luna/config.toml, then connect again", srv.opts.MaxConns, conns)))
}

// decodeCall returns the call body holds, if it is one.
func decodeCall(body []byte) (*jsonrpc2.Call, bool) {
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return nil, false
	}
	call, ok := msg.(*jsonrpc2.Call)
	return call, ok
}
