package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/sandbox"
)

// GoalHost is what a goal needs of this process, handed to the goal's
// agents as small interfaces: it runs their commands (goal.Commands) in
// the sandbox the policy asks for, with the policy's limits, network and
// read-only paths; checks their actions with the policy (goal.Policy);
// runs their tests through the harness (goal.Tests). The policy is
// .luna/policy.toml as it is when each stage runs: read again when the
// file changes, so an edit applies to the next action without a restart.
// The sandbox is probed once (Capabilities, at the daemon's start or at the
// first goal of an in-process command).
type GoalHost struct {
	root string
	// home is lunad's directory for the commands' homes:
	// LUNAD_SANDBOX_HOME, else <git common dir>/luna/sandbox/home. Each
	// goal's commands get a home of their own under it (goalHome).
	home    string
	homeErr error
	getenv  func(string) string
	log     *slog.Logger

	probeOnce sync.Once
	caps      sandbox.Capabilities

	mu  sync.Mutex
	cur *goalSetup
}

// goalSetup is the policy as read from its file (data) and the runner it
// asks for. polErr is a policy file that does not check; sbErr a sandbox
// the policy refuses to run without.
type goalSetup struct {
	data   []byte
	exists bool
	pol    *policy.Policy
	polErr error
	runner *sandbox.Runner
	sbErr  error
}

// NewGoalHost is the goal host of the workspace at root; getenv gives
// LUNAD_SANDBOX_HOME and the sandbox's environment. It removes the homes
// of finished goals, logging what it could not.
func NewGoalHost(root string, getenv func(string) string, log *slog.Logger) *GoalHost {
	h := &GoalHost{root: root, getenv: getenv, log: log}
	h.home, h.homeErr = SandboxHome(root, getenv)
	if h.homeErr == nil {
		if err := sweepGoalHomes(h.home); err != nil {
			log.Warn("sandbox: homes of finished goals are left behind", "err", err)
		}
	}
	return h
}

// Capabilities probes the sandbox once, and logs what it found.
func (h *GoalHost) Capabilities(ctx context.Context) sandbox.Capabilities {
	h.probeOnce.Do(func() {
		h.caps = sandbox.Probe(ctx)
		c := h.caps
		args := []any{"bwrap", c.Bwrap, "version", c.BwrapVersion, "namespaces", c.Namespaces, "network_namespace", c.Network,
			"landlock_abi", c.Landlock, "landlock_applied", c.LandlockApplied, "process_limit", c.ProcessLimit}
		if c.Usable() {
			h.log.Info("sandbox: goals' commands run in bwrap", args...)
		} else {
			h.log.Warn("sandbox: bwrap cannot isolate goals' commands here; .luna/policy.toml's unsandboxed decides (refuse, the default, or warn)",
				append(args, "namespaces_error", c.NamespacesError, "network_namespace_error", c.NetworkError, "hardened_error", c.HardenedError)...)
		}
	})
	return h.caps
}

// setup is the policy and runner of now: the file read again, and the
// runner made again when it changed.
func (h *GoalHost) setup(ctx context.Context) *goalSetup {
	path := filepath.Join(h.root, filepath.FromSlash(policy.File))
	data, err := os.ReadFile(path)
	exists := err == nil
	h.mu.Lock()
	defer h.mu.Unlock()
	readable := err == nil || errors.Is(err, fs.ErrNotExist)
	if cur := h.cur; cur != nil && readable && cur.exists == exists && bytes.Equal(cur.data, data) {
		return cur
	}
	s := &goalSetup{data: data, exists: exists}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.pol = policy.Default()
	case err != nil:
		s.polErr = fmt.Errorf("%w: %w", errPolicyRead, err)
	default:
		s.pol, s.polErr = policy.Parse(path, data)
	}
	if s.polErr == nil {
		set := s.pol.Sandbox()
		s.runner, s.sbErr = sandbox.New(h.Capabilities(ctx), sandbox.Options{AllowUnsandboxed: set.Unsandboxed == policy.Warn,
			AllowRootWithoutLandlock: set.RootWithoutLandlock == policy.Warn, Getenv: h.getenv, Logger: h.log})
	}
	h.cur = s
	return s
}

var errPolicyRead = errors.New("reading the policy")

// disk is the goal's disk budget under the policy of now
// (goal.Options.DiskNow): 0, goal.Options.Disk, when the policy file does
// not check — its commands do not run then.
func (h *GoalHost) disk() int64 {
	st := h.setup(context.Background())
	if st.polErr != nil {
		return 0
	}
	return st.pol.Sandbox().Limits.Disk
}

// Run runs one of a goal's commands (goal.Commands, harness.Runner): the
// policy's limits, timeout and network, its read-only paths under the
// command's root (none of them a symbolic link: goal.CheckReadOnly), the
// paths its [[deny]] rules forbid reading hidden, and the goal's own home
// (goalHome: the command's root is the goal's worktree).
func (h *GoalHost) Run(ctx context.Context, s sandbox.Spec) (sandbox.Result, error) {
	st := h.setup(ctx)
	switch {
	case st.polErr != nil:
		return sandbox.Result{}, PolicyFileError(st.polErr)
	case st.sbErr != nil:
		return sandbox.Result{}, st.sbErr
	}
	set := st.pol.Sandbox()
	base := goal.BaseSpec(set, "")
	s.Network, s.Timeout, s.Limits = base.Network, base.Timeout, base.Limits
	ro := slices.Clone(s.ReadOnly)
	for _, p := range set.ReadOnlyUnder(s.Root) {
		// The goal keeps its worktree's .git and .luna read-only where
		// they exist; the policy's own paths are covered even when they
		// do not (so they cannot be made).
		if rel, _ := filepath.Rel(s.Root, p); rel != ".git" && rel != ".luna" {
			ro = append(ro, p)
		}
	}
	slices.Sort(ro)
	s.ReadOnly = slices.Compact(ro)
	if err := goal.CheckReadOnly(s); err != nil {
		return sandbox.Result{}, err
	}
	hidden, err := set.HiddenUnder(s.Root)
	if err != nil {
		return sandbox.Result{}, err
	}
	s.Hidden = append(slices.Clone(s.Hidden), hidden...)
	if s.Home == "" {
		if h.homeErr != nil {
			return sandbox.Result{}, h.homeErr
		}
		if s.Home, err = goalHome(h.home, s.Root); err != nil {
			return sandbox.Result{}, err
		}
	}
	return st.runner.Run(ctx, s)
}

// Check decides an action with the policy of now (goal.Policy); a policy
// file that does not check denies everything, saying so.
func (h *GoalHost) Check(root string, a policy.Action) policy.Decision {
	st := h.setup(context.Background())
	if st.polErr != nil {
		return policy.Decision{Verdict: policy.Deny, Rule: "policy-file", Reason: PolicyFileError(st.polErr).Error() + "; stop and tell the user"}
	}
	return st.pol.Check(root, a)
}

// reads is the asks' ask.Options.Reads: the artifacts the policy of now
// lets the agents be shown (policy.CheckRead); a policy file that does
// not check withholds every one, saying so.
func (h *GoalHost) reads() func(path string) error {
	st := h.setup(context.Background())
	return func(path string) error {
		if st.polErr != nil {
			return PolicyFileError(st.polErr)
		}
		if d := st.pol.CheckRead(path); d.Verdict != policy.Allow {
			return errors.New(d.Message())
		}
		return nil
	}
}

// writes is the asks' ask.Options.Writes: a write of a path passes the
// policy of now as write_file would (a rule that wants a person's
// confirmation refuses it: an ask has no one to ask); a policy file that
// does not check refuses every write, saying so.
func (h *GoalHost) writes() func(path string) error {
	st := h.setup(context.Background())
	return func(path string) error {
		if st.polErr != nil {
			return PolicyFileError(st.polErr)
		}
		d := st.pol.Check(h.root, policy.Action{Tool: policy.ToolWriteFile, Paths: []string{path}, Writes: true})
		switch d.Verdict {
		case policy.Allow:
			return nil
		case policy.Confirm:
			return errors.New(d.Message() + "; an ask cannot ask for it: make the change in a goal, or by hand")
		}
		return errors.New(d.Message())
	}
}

// PolicyFileError says which file to fix: err is why the policy file does
// not check.
func PolicyFileError(err error) error {
	return fmt.Errorf("%s does not check, so no goal runs until it is fixed (lunad doctor shows its problems): %w", policy.File, err)
}

// describe says how commands run, for a goal's result and report.
func (h *GoalHost) describe(ctx context.Context) string {
	c := h.Capabilities(ctx)
	if !c.Usable() {
		return "no sandbox here: " + lunad.FirstLine(c.String()) + " (lunad doctor); commands run only if .luna/policy.toml says unsandboxed = \"warn\", each result saying so"
	}
	landlock := "no Landlock beneath it: " + c.LandlockStatus()
	if c.LandlockApplied != "" {
		landlock = "Landlock beneath it: " + c.LandlockApplied
	} else if c.Root {
		landlock = "ROOT WITHOUT LANDLOCK: lunad runs as root with no Landlock beneath bwrap (" + c.LandlockStatus() + "), run only because .luna/policy.toml says root_without_landlock = \"warn\""
	}
	filter := "a seccomp filter"
	if !c.Seccomp {
		filter = "NO seccomp filter (" + c.SeccompError + ")"
	}
	return fmt.Sprintf("bwrap %s: the system read-only, the user's home hidden, the workspace writable but .git and .luna, a private /tmp, no network unless .luna/policy.toml allows it; no capabilities, not uid 0, %s; processes limited by %s, memory by %s; %s",
		c.BwrapVersion, filter, c.ProcessLimit, c.MemoryLimit, landlock)
}

// preflight is why a goal's stage must not run now: the policy file does
// not check, or (for a goal that runs commands) the sandbox is refused.
func (h *GoalHost) preflight(ctx context.Context, req lunad.StageRequest) error {
	st := h.setup(ctx)
	if st.polErr != nil {
		return fmt.Errorf("%w; then resume the goal with lunad run retry %s", PolicyFileError(st.polErr), req.RunID)
	}
	p := req.Params
	if st.sbErr != nil && p[lunad.GoalParamDryRun] != "true" && p[lunad.GoalParamPlan] != "true" {
		return fmt.Errorf("%w; then resume the goal with lunad run retry %s", st.sbErr, req.RunID)
	}
	return nil
}
