package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lunad/lunad"
)

// ErrNoDaemon: no usable daemon serves the workspace (none is listening, or
// the one listening speaks another protocol version or serves another
// root). Callers can fall back to opening the workspace in-process (Open).
// A daemon that runs with another configuration is a *DiffersError.
var ErrNoDaemon = errors.New("no lunad daemon serves this workspace")

// errNotListening marks the ErrNoDaemon errors that starting a daemon
// can cure: nothing listens on the socket (yet).
var errNotListening = errors.New("nothing listens on the daemon socket")

// ConnectOptions configure Connect.
type ConnectOptions struct {
	// AutoStart starts a daemon when none answers (like gopls
	// -remote=auto): Executable --dir ROOT serve --auto, detached, in its
	// own session, its standard error appended to LogFile.
	AutoStart bool
	// Executable is the lunad binary to start (default os.Executable()).
	Executable string
	// LogFile receives the started daemon's standard error (default
	// <git dir>/luna/lunad.log, where an auto-started daemon also logs).
	LogFile string
	// StartTimeout bounds the wait for a started daemon to listen
	// (default 10s).
	StartTimeout time.Duration
	// Config, when set, must equal the daemon's ServeOptions.Config, or
	// the daemon is not used (*DiffersError, naming the setting): a
	// client configured otherwise (another author, say) works in-process
	// instead, or says what to do.
	Config *Settings
	// Reconfig, when set, is called at each connection (the first and
	// every reconnection) for the Settings to compare, in place of
	// Config: a long-lived client whose configuration file changed — and
	// whose daemon restarted for it — asks for the new ones. Its error
	// is the connection's.
	Reconfig func() (*Settings, error)
	// StartArgs are more arguments to the `serve --auto` of AutoStart
	// (a restarting daemon passes why, --restarted WHY).
	StartArgs []string
	// Reconnect restores a lost connection — a daemon killed or restarted
	// — for a long-lived client (the language server, the MCP server): see
	// Client. Without it, calls fail once the daemon is gone and
	// Subscribe's channels close.
	Reconnect bool
}

// helloTimeout bounds the greeting of a daemon that accepted a connection.
const helloTimeout = 5 * time.Second

// Connect returns a Client of the daemon serving the workspace at or above
// dir. If none answers it starts one with opts.AutoStart and waits for it;
// two clients starting one at once end up with one daemon (the daemon
// lock decides, the loser exits and both connect to the winner). Without
// AutoStart, or when the daemon found is not usable, the error wraps
// ErrNoDaemon.
func Connect(ctx context.Context, dir string, opts ConnectOptions) (lunad.Workspace, error) {
	state, root, err := StateDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoDaemon, err)
	}
	c := newClient()
	reach := func(ctx context.Context) error {
		err := connect(ctx, c, state, root, opts)
		if err != nil && opts.AutoStart && errors.Is(err, errNotListening) {
			err = start(ctx, c, state, root, opts)
		}
		return err
	}
	if err := reach(ctx); err != nil {
		c.cancel()
		return nil, err // not a nil *Client in a non-nil lunad.Workspace
	}
	if opts.Reconnect {
		c.redial = reach
	}
	c.follow()
	return c, nil
}

// connect dials the workspace's socket once, checks the daemon and makes
// the connection c's.
func connect(ctx context.Context, c *Client, state, root string, opts ConnectOptions) error {
	path := clientSocket(state)
	hctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	err := c.attach(hctx, path, func(st Hello) error {
		switch {
		case st.Protocol != protocolVersion:
			return fmt.Errorf("%w: the daemon at %s (pid %d) speaks protocol %d, this lunad %d; stop it (kill %d) to use this lunad's",
				ErrNoDaemon, path, st.PID, st.Protocol, protocolVersion, st.PID)
		case st.Root != root:
			return fmt.Errorf("%w: the daemon at %s serves %s, not %s", ErrNoDaemon, path, st.Root, root)
		case opts.Config != nil || opts.Reconfig != nil:
			want := opts.Config
			if opts.Reconfig != nil {
				var err error
				if want, err = opts.Reconfig(); err != nil {
					return err
				}
			}
			return differs(st.PID, st.Config, want)
		}
		return nil
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, errNotListening):
		return fmt.Errorf("%w: %w", ErrNoDaemon, err)
	case errors.Is(err, ErrNoDaemon), errors.As(err, new(*DiffersError)):
		return err
	default:
		return fmt.Errorf("%w: the daemon at %s does not answer: %v", ErrNoDaemon, path, err)
	}
}

// start starts a daemon for root and connects c to it (or to the daemon
// that won a race to start).
func start(ctx context.Context, c *Client, state, root string, opts ConnectOptions) error {
	exe := opts.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("start lunad daemon: %w", err)
		}
	}
	logPath := opts.LogFile
	if logPath == "" {
		logPath = filepath.Join(state, LogName)
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return fmt.Errorf("start lunad daemon: %w", err)
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("start lunad daemon: %w", err)
	}
	offset, _ := logf.Seek(0, io.SeekEnd)
	cmd := exec.Command(exe, append([]string{"--dir", root, "serve", "--auto"}, opts.StartArgs...)...)
	cmd.Dir = root
	cmd.Stderr = logf // stdin and stdout are /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	logf.Close()
	if err != nil {
		return fmt.Errorf("start lunad daemon: %w", err)
	}
	// Reap the daemon whenever it exits, so that it never lingers as a
	// zombie of a long-lived client.
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for delay := 2 * time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		err := connect(ctx, c, state, root, opts)
		if err == nil || !errors.Is(err, errNotListening) {
			return err
		}
		select {
		case werr := <-exited:
			if werr != nil {
				return fmt.Errorf("the lunad daemon started for %s failed: %v%s", root, werr, logTail(logPath, offset))
			}
			// It exited cleanly: another daemon won the race; connect to it.
			exited = nil
		case <-time.After(delay):
		case <-deadline.C:
			return fmt.Errorf("%w: the daemon started for %s (pid %d) did not listen within %v (see %s)",
				ErrNoDaemon, root, cmd.Process.Pid, timeout, logPath)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// logTail is what the log gained from offset on (at most its last lines),
// to explain a daemon that failed to start.
func logTail(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.NewSectionReader(f, offset, 64<<10))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	if s := strings.Join(lines, "\n"); s != "" {
		return ":\n" + s
	}
	return fmt.Sprintf(" (see %s)", path)
}
