package procagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lunad/lunad"
)

const (
	// DefaultMaxOutput is how much an agent may print on stdout.
	DefaultMaxOutput = 16 << 20
	// DefaultKillGrace is how long a timed-out or cancelled agent's group
	// has between SIGTERM and SIGKILL.
	DefaultKillGrace = 2 * time.Second

	// stderrKeep is how much of the end of stderr is kept; stderrTail how
	// much of it an error message quotes.
	stderrKeep = 64 << 10
	stderrTail = 2 << 10
	// pipeWait is how long Process waits, once the command's group is
	// dead, for pipes still held open by a descendant that left the group.
	pipeWait = time.Second
)

// Options configure a process agent. The zero value is usable.
type Options struct {
	// Timeout bounds one Process call; zero means none. When ctx has an
	// earlier deadline, that one applies.
	Timeout time.Duration
	// MaxOutput is how many bytes the agent may print on stdout;
	// zero means DefaultMaxOutput.
	MaxOutput int64
	// Env adds to the agent's minimal environment: "NAME=value" sets a
	// variable, a bare "NAME" passes the parent's value (if set) through.
	Env []string
	// KillGrace is the time between SIGTERM and SIGKILL when the timeout
	// or ctx ends the agent; zero means DefaultKillGrace.
	KillGrace time.Duration
	// Logger receives the agent's start, end and stderr at debug level;
	// nil discards.
	Logger *slog.Logger
	// Groups, when set, is a directory where each running command's
	// process group is recorded (PGID.json), durably before the command
	// runs, and removed once the group is dead, so that EndLeftovers can
	// end the commands of a lunad that died (Linux: the record needs
	// /proc).
	Groups string
}

// Agent runs a command as a stage's agent. It is safe for concurrent
// use: each Process call runs its own process.
type Agent struct {
	root string // absolute, cleaned
	argv []string
	opts Options
	env  []string // everything but the per-request LUNAD_ variables
	log  *slog.Logger

	mu    sync.Mutex
	files map[string]fileSum // a workspace file named by an argument → its content's hash
}

var _ lunad.Agent = (*Agent)(nil)

// New returns an agent that runs argv with the workspace root as its
// working directory (an isolated run's worktree, StageRequest.Dir, when
// the request names one). argv must not be empty; Options.Env entries must
// name a variable. The errors wrap lunad.ErrInvalid.
func New(root string, argv []string, opts Options) (*Agent, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("%w: a process agent needs a command", lunad.ErrInvalid)
	}
	if root == "" {
		return nil, fmt.Errorf("%w: a process agent needs the workspace root", lunad.ErrInvalid)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("%w: workspace root %q: %v", lunad.ErrInvalid, root, err)
	}
	if opts.Timeout < 0 || opts.MaxOutput < 0 || opts.KillGrace < 0 {
		return nil, fmt.Errorf("%w: negative timeout, output limit or kill grace", lunad.ErrInvalid)
	}
	if opts.MaxOutput == 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.KillGrace == 0 {
		opts.KillGrace = DefaultKillGrace
	}
	env, err := baseEnv(opts.Env)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Agent{
		root:  abs,
		argv:  append([]string(nil), argv...),
		opts:  opts,
		env:   env,
		log:   log.With("agent", "process", "command", argv),
		files: map[string]fileSum{},
	}, nil
}

// baseEnv is the agent's environment without the per-request variables.
func baseEnv(extra []string) ([]string, error) {
	var env []string
	for _, name := range []string{"PATH", "HOME", "LANG", "TMPDIR"} {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	for _, e := range extra {
		name, _, set := strings.Cut(e, "=")
		if name == "" || strings.ContainsAny(name, "\x00") {
			return nil, fmt.Errorf("%w: environment entry %q names no variable", lunad.ErrInvalid, e)
		}
		if strings.HasPrefix(name, "LUNAD_") {
			return nil, fmt.Errorf("%w: environment entry %q: the LUNAD_ variables are lunad's", lunad.ErrInvalid, e)
		}
		if set {
			env = append(env, e)
		} else if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env, nil
}

// Process runs the command once for req. See the package documentation
// for what it returns.
func (a *Agent) Process(ctx context.Context, req lunad.StageRequest) (lunad.StageResponse, error) {
	if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
		return lunad.StageResponse{}, transient(timeoutError{msg: "timed out before it started"})
	} else if err != nil {
		return lunad.StageResponse{}, fmt.Errorf("process agent %s: not started: %w", req.Stage, err)
	}
	// The earlier of Options.Timeout and ctx's deadline; both end in a
	// timeout, where only cancellation ends in ctx.Err().
	timeout, hasTimeout := a.opts.Timeout, a.opts.Timeout > 0
	if dl, ok := ctx.Deadline(); ok {
		if rem := time.Until(dl); !hasTimeout || rem < timeout {
			timeout, hasTimeout = max(rem.Round(time.Millisecond), 0), true
		}
	}
	stdin, err := json.Marshal(normalize(req))
	if err != nil {
		return lunad.StageResponse{}, fmt.Errorf("process agent %s: encoding the request: %w", req.Stage, err)
	}

	r, err := a.start(req, stdin)
	if err != nil {
		return lunad.StageResponse{}, err
	}
	log := a.log.With("run", req.RunID, "stage", req.Stage, "attempt", req.Attempt, "pid", r.cmd.Process.Pid)
	log.Debug("agent started")
	start := time.Now()
	why, waitErr := r.wait(ctx, timeout, hasTimeout, a.opts.KillGrace)
	stdout, stderr, overflow := r.outputs(log)
	log.Debug("agent ended", "after", time.Since(start), "state", r.cmd.ProcessState.String(), "stdout_bytes", len(stdout), "stderr", string(stderr))

	var resp lunad.StageResponse
	switch {
	case overflow:
		err = &lunad.AgentError{Permanent: true, Err: fmt.Errorf("printed more than %s on stdout", size(a.opts.MaxOutput))}
	case why == endTimeout:
		err = transient(timeoutError{msg: withStderr(fmt.Sprintf("timed out after %v", timeout), stderr).Error()})
	case why == endCancel:
		err = fmt.Errorf("process agent %s: cancelled: %w", req.Stage, ctx.Err())
	case waitErr != nil:
		err = transient(withStderr(exitMessage(waitErr), stderr))
	default:
		resp, err = decodeResponse(stdout)
		var ae *lunad.AgentError
		if errors.As(err, &ae) && !ae.Permanent {
			ae.Err = withStderr(ae.Err.Error(), stderr)
		}
	}
	if err != nil {
		log.Debug("agent failed", "err", err)
		return lunad.StageResponse{}, err
	}
	return resp, nil
}

// timeoutError is a timeout's message; errors.Is matches it to
// context.DeadlineExceeded, whichever of Options.Timeout or ctx's
// deadline ran out.
type timeoutError struct{ msg string }

func (e timeoutError) Error() string        { return e.msg }
func (e timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// normalize makes the request's collections empty rather than null on
// the agent's stdin.
func normalize(req lunad.StageRequest) lunad.StageRequest {
	if req.Inputs == nil {
		req.Inputs = []lunad.ArtifactRef{}
	}
	if req.Params == nil {
		req.Params = map[string]string{}
	}
	if req.Outputs == nil {
		req.Outputs = map[string]json.RawMessage{}
	}
	return req
}

// start starts the command for req, its stdin fed with in.
func (a *Agent) start(req lunad.StageRequest, in []byte) (*running, error) {
	cmd := exec.Command(a.argv[0], a.argv[1:]...)
	cmd.Dir = a.root
	if req.Dir != "" {
		cmd.Dir = req.Dir // an isolated run's worktree
	}
	cmd.Env = append(append([]string(nil), a.env...),
		"LUNAD_RUN_ID="+req.RunID,
		"LUNAD_STAGE="+req.Stage,
		"LUNAD_ATTEMPT="+strconv.Itoa(req.Attempt),
		"LUNAD_WORKSPACE="+a.root,
	)
	setGroup(cmd)
	var h hooks
	if a.opts.Groups != "" {
		var err error
		if h, err = a.gated(cmd, req); err != nil {
			return nil, startError(a.argv[0], err)
		}
	}
	r, err := startPiped(cmd, in, a.opts.MaxOutput, h)
	if err != nil {
		return nil, startError(a.argv[0], err)
	}
	return r, nil
}

// startError is the error of a command that did not start: permanent
// when it does not exist or cannot be run.
func startError(argv0 string, err error) error {
	perm := errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)
	return &lunad.AgentError{Permanent: perm, Err: fmt.Errorf("cannot start %q: %w", argv0, err)}
}

// gated makes cmd start through the gate (gateScript) and returns the
// hooks that record its group in Options.Groups before the gate opens,
// and remove the record once the group is dead.
func (a *Agent) gated(cmd *exec.Cmd, req lunad.StageRequest) (hooks, error) {
	prog, err := resolve(a.argv[0], cmd.Dir)
	if err != nil {
		return hooks{}, err
	}
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return hooks{}, err
	}
	cmd.Path = "/bin/sh"
	cmd.Args = append([]string{"sh", "-c", gateScript, "lunad-agent", prog}, a.argv[1:]...)
	cmd.ExtraFiles = []*os.File{gateR}
	var record string
	return hooks{
		started: func(cmd *exec.Cmd) error {
			gateR.Close()
			defer gateW.Close() // unopened, the gate exits and runs nothing
			pid := cmd.Process.Pid
			st, err := readStat(pid)
			if err == nil {
				record, err = group{PGID: pid, Start: st.start, Run: req.RunID, Stage: req.Stage, Attempt: req.Attempt, Command: a.argv[0]}.record(a.opts.Groups)
			}
			if err != nil {
				return fmt.Errorf("recording its process group in %s: %w", a.opts.Groups, err)
			}
			_, err = gateW.Write([]byte("\n"))
			return err
		},
		swept: func() {
			if record != "" {
				os.Remove(record)
			}
		},
	}, nil
}

// exitMessage words how a command that did not exit 0 ended.
func exitMessage(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if sig, ok := signalOf(ee.ProcessState); ok {
			return "killed by signal " + sig
		}
		return ee.Error() // "exit status 3"
	}
	return err.Error()
}

// withStderr appends the end of stderr to a message.
func withStderr(msg string, stderr []byte) error {
	tail := bytes.TrimSpace(stderr)
	if len(tail) == 0 {
		return errors.New(msg)
	}
	cut := len(tail) > stderrTail
	if cut {
		tail = tail[len(tail)-stderrTail:]
		for len(tail) > 0 && tail[0]&0xC0 == 0x80 { // not in the middle of a rune
			tail = tail[1:]
		}
	}
	s := strings.ToValidUTF8(string(tail), "\uFFFD")
	if cut {
		s = "…" + s
	}
	return fmt.Errorf("%s; stderr: %s", msg, s)
}

// size words a byte count: "16 MiB", "64 KiB" or "1000 bytes".
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
