package sandbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/lunad/lunad"
)

// Options configure a Runner.
type Options struct {
	// AllowUnsandboxed lets New make a Runner on a host without a usable
	// sandbox (the policy's unsandboxed = "warn"): its commands run as
	// plain processes — still with the scrubbed environment, the limits,
	// the timeout and the capped output, but able to read and write
	// anything lunad can and to reach the network — and every Result
	// says so (Sandboxed false, Warning).
	AllowUnsandboxed bool
	// UserHome is the user's home, which commands must not see (~/.ssh,
	// credentials): a sandbox covers it with an empty tmpfs, and a Spec
	// whose Root, Home or Binds hold it is refused. "" means $HOME.
	UserHome string
	// Getenv reads lunad's environment, where PATH and LANG come from;
	// nil means os.Getenv.
	Getenv func(string) string
	// AllowRootWithoutLandlock lets New make a sandboxing Runner when
	// lunad runs as root and Landlock is not applied (the policy's
	// root_without_landlock = "warn"): bwrap's mounts, the dropped
	// capabilities, the uid that is not 0 and the seccomp filter alone
	// then keep commands in, and every Result says so (Warning).
	AllowRootWithoutLandlock bool
	// Shim is the executable a sandbox runs as the Landlock shim
	// (cmd/lunad-shim); "" means ShimName next to this process's
	// executable, else on PATH (Getenv's). New refuses to make a Runner
	// that applies Landlock without one (lunad.ErrNotFound), or with one
	// another user could replace (lunad.ErrInvalid): never a weaker
	// sandbox in silence. Unused where Landlock is not applied
	// (Capabilities.LandlockApplied is "").
	Shim string
	// Clock times commands; nil means time.Now.
	Clock  func() time.Time
	Logger *slog.Logger
}

// UnavailableError is New's error when the host cannot sandbox commands
// and Options.AllowUnsandboxed is false. It wraps lunad.ErrInvalid (the
// setting asks for what the host cannot give: fix the host or the
// setting) and errors.ErrUnsupported.
type UnavailableError struct {
	// Reason says what is missing ("bwrap is not installed …",
	// "bwrap cannot create namespaces: …").
	Reason string
}

func (e *UnavailableError) Error() string {
	return "sandbox: commands cannot run in a sandbox: " + e.Reason +
		`; fix that (lunad doctor shows what is available), or let commands run without a sandbox with unsandboxed = "warn" in .luna/policy.toml`
}

// Unwrap gives lunad.ErrInvalid and errors.ErrUnsupported.
func (e *UnavailableError) Unwrap() []error {
	return []error{lunad.ErrInvalid, errors.ErrUnsupported}
}

// Runner runs commands (Run), sandboxed unless it was made without a
// usable sandbox by Options.AllowUnsandboxed. It is safe for concurrent
// use; every command gets its own sandbox, cgroup and pipes.
type Runner struct {
	caps      Capabilities
	sandboxed bool
	mounts    []string // bwrap's system mounts
	shim      string   // the Landlock shim's executable ("" when Landlock is not applied)
	seccomp   []byte   // the compiled seccomp filter (nil where there is none)
	userHome  string
	getenv    func(string) string
	clock     func() time.Time
	log       *slog.Logger
	warning   string // what every Result says
}

// New makes a Runner for a host with caps (Probe's). Without a usable
// sandbox it returns an *UnavailableError unless o.AllowUnsandboxed.
func New(caps Capabilities, o Options) (*Runner, error) {
	r := &Runner{caps: caps, sandboxed: caps.Usable(), getenv: o.Getenv, clock: o.Clock, log: o.Logger}
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	if r.clock == nil {
		r.clock = time.Now
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.userHome = o.UserHome
	if r.userHome == "" {
		r.userHome = r.getenv("HOME")
	}
	if r.userHome != "" {
		h, err := absClean("Options.UserHome", r.userHome)
		if err != nil {
			return nil, err
		}
		r.userHome = h
	}
	var warnings []string
	var err error
	if !r.sandboxed {
		why := caps.unusable()
		if !o.AllowUnsandboxed {
			return nil, &UnavailableError{Reason: why}
		}
		warnings = append(warnings, "UNSANDBOXED: this command ran without a sandbox ("+why+
			"): it could read and write everything lunad can, the user's home included, and reach the network; the policy allowed it (unsandboxed = \"warn\")")
		r.log.Warn("sandbox: commands will run WITHOUT a sandbox", "reason", why)
	} else {
		r.mounts = systemMounts()
		if r.shim, err = shimExecutable(caps, o.Shim, r.getenv); err != nil {
			return nil, err
		}
		if caps.Root && r.shim == "" {
			why := "lunad runs as root and Landlock is not applied (" + caps.LandlockStatus() + ")"
			if !o.AllowRootWithoutLandlock {
				return nil, fmt.Errorf(`sandbox: %s: commands would be kept in by bwrap's mounts, dropped capabilities and seccomp alone; run lunad as another user, use a kernel with Landlock, or accept it with root_without_landlock = "warn" in .luna/policy.toml: %w`, why, lunad.ErrInvalid)
			}
			warnings = append(warnings, "ROOT WITHOUT LANDLOCK: "+why+"; bwrap's mounts, dropped capabilities and seccomp alone kept this command in; the policy allowed it (root_without_landlock = \"warn\")")
			r.log.Warn("sandbox: lunad runs as root without Landlock beneath bwrap", "landlock", caps.LandlockStatus())
		}
		if caps.Seccomp {
			r.seccomp, err = seccompProgram()
		} else {
			err = errors.New(cmp.Or(caps.SeccompError, "Probe found none"))
		}
		if err != nil {
			r.seccomp = nil
			warnings = append(warnings, "NO SECCOMP FILTER ("+err.Error()+"): the command could call ptrace, bpf, keyctl, perf_event_open and the like, and the mount family, refused only by its missing capabilities")
		}
	}
	if !rlimitsEnforced {
		warnings = append(warnings, "its CPU time, memory and file size were not limited: only Linux has prlimit")
	}
	if caps.ProcessLimit == LimitNone {
		warnings = append(warnings, "its processes were not limited: "+caps.ProcessLimitNote)
	}
	for i, w := range warnings {
		if i > 0 {
			r.warning += "; "
		}
		r.warning += w
	}
	return r, nil
}

// shimExecutable is the Landlock shim's executable (findShim); "" when
// caps apply no Landlock.
func shimExecutable(caps Capabilities, shim string, getenv func(string) string) (string, error) {
	if caps.landlockApplied() == "" {
		return "", nil
	}
	return findShim(shim, shimDirs(getenv))
}

// Sandboxed reports whether the Runner's commands run in a sandbox.
func (r *Runner) Sandboxed() bool { return r.sandboxed }

// Capabilities are the host's capabilities the Runner was made with.
func (r *Runner) Capabilities() Capabilities { return r.caps }

// Run runs one command and waits for it to end, its whole process group
// and sandbox with it. The Result says how it ended; an error means it
// could not be started: Spec refused (wrapping lunad.ErrInvalid: the
// message names the field), its program not on its PATH
// (lunad.ErrNotFound), or the host failed (a pipe, a cgroup, fork).
// Cancelling ctx ends the command as its timeout does (Ended
// "cancelled").
func (r *Runner) Run(ctx context.Context, s Spec) (Result, error) {
	p, err := newPlan(s, r.userHome)
	if err != nil {
		return Result{}, err
	}
	if !r.sandboxed {
		p.userHome = ""
	}
	return r.run(ctx, p)
}

// errNotOnPath says a program is not on the command's PATH.
func errNotOnPath(prog, path string) error {
	return fmt.Errorf("sandbox: program %q is not on the command's PATH (%s): give its absolute path, or bind its directory (Spec.Binds): %w", prog, path, lunad.ErrNotFound)
}
