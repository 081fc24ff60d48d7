package policy

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// File is where a workspace keeps its policy, relative to its root.
const File = ".luna/policy.toml"

// Policy is a workspace's rules over lunad's own; Default is the policy
// of a workspace without a policy file. A Policy is immutable and safe
// for concurrent use.
type Policy struct {
	network     bool
	shell       bool
	allowedOnly bool // commands = "allowed"
	unsandboxed Unsandboxed
	// rootWithoutLandlock: whether commands run when lunad is root and
	// the kernel gives no Landlock (Refuse or Warn).
	rootWithoutLandlock Unsandboxed
	readOnly            []string // workspace-relative slash paths, sorted
	limits              Limits
	// The workspace's rules in file order, by kind.
	deny, confirm, allow []*rule
	// home is the user's home directory, for rm-home (captured when the
	// policy is made, so Check does not read the environment).
	home string
}

// Unsandboxed says what a goal does where the sandbox cannot run.
type Unsandboxed string

const (
	// Refuse: a goal's commands do not run without the sandbox (the
	// default).
	Refuse Unsandboxed = "refuse"
	// Warn: they run unsandboxed, with a loud warning recorded in the run.
	Warn Unsandboxed = "warn"
)

// Limits bound each command's resources (the [limits] table).
type Limits struct {
	Timeout   time.Duration // wall time of the whole process group
	CPU       time.Duration // CPU time
	Memory    int64         // address space, bytes
	Processes int           // processes and threads at once
	FileSize  int64         // the largest file a command may write, bytes
	Output    int           // bytes kept of each of stdout and stderr
	// Disk is the bytes a goal's worktree may take on disk, what
	// .gitignore leaves out included, checked after every command and
	// test run (the goal's disk budget).
	Disk int64
}

// DefaultLimits are the limits of a policy that sets none.
func DefaultLimits() Limits {
	return Limits{
		Timeout:   10 * time.Minute,
		CPU:       10 * time.Minute,
		Memory:    8 << 30,
		Processes: 1024,
		FileSize:  1 << 30,
		Output:    1 << 20,
		Disk:      2 << 30,
	}
}

// SandboxSettings are what the goal's command runner takes from the
// policy.
type SandboxSettings struct {
	Unsandboxed Unsandboxed
	// RootWithoutLandlock: Warn lets commands run when lunad is root and
	// Landlock cannot be applied beneath bwrap, every result saying so;
	// Refuse (the default) does not.
	RootWithoutLandlock Unsandboxed
	// Network: commands may reach the network (--share-net).
	Network bool
	// Shell: commands may run sh -c / bash -c scripts.
	Shell  bool
	Limits Limits
	// ReadOnly are the workspace-relative paths (slash-separated) kept
	// read-only inside the sandbox: .git and .luna, then the policy's
	// read_only, sorted.
	ReadOnly []string
	// Denied are the patterns of the [[deny]] rules that forbid reading
	// paths (DeniedReads), which the sandbox hides (HiddenUnder).
	Denied []string
}

// ReadOnlyUnder is ReadOnly as absolute paths under root (sandbox.Spec's
// ReadOnly).
func (s SandboxSettings) ReadOnlyUnder(root string) []string {
	out := make([]string, len(s.ReadOnly))
	for i, p := range s.ReadOnly {
		out[i] = filepath.Join(root, filepath.FromSlash(p))
	}
	return out
}

// Default is the policy of a workspace without .luna/policy.toml: no
// network, no shell scripts, no unsandboxed commands, lunad's rules, the
// default limits.
func Default() *Policy {
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		home = "" // rm-home then knows only ~ and $HOME
	}
	return &Policy{unsandboxed: Refuse, rootWithoutLandlock: Refuse, limits: DefaultLimits(), home: cleanHome(home)}
}

// Load reads the policy of the workspace at root (.luna/policy.toml):
// Default when the file does not exist; a *lunad.CheckError (wrapping
// lunad.ErrInvalid) naming each problem as `file:line:col: message` when
// it is not a valid policy; the read error otherwise.
func Load(root string) (*Policy, error) {
	path := filepath.Join(root, filepath.FromSlash(File))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the policy: %w", err)
	}
	return Parse(path, data)
}

// Sandbox is what the command runner needs from the policy (a nil
// *Policy's is Default's).
func (p *Policy) Sandbox() SandboxSettings {
	if p == nil {
		p = Default()
	}
	ro := append([]string{".git", ".luna"}, p.readOnly...)
	slices.Sort(ro)
	return SandboxSettings{
		Unsandboxed:         cmp.Or(p.unsandboxed, Refuse),
		RootWithoutLandlock: cmp.Or(p.rootWithoutLandlock, Refuse),
		Network:             p.network,
		Shell:               p.shell,
		Limits:              p.limits,
		ReadOnly:            slices.Compact(ro),
		Denied:              p.DeniedReads(),
	}
}

func cleanHome(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Clean(home)
}
