package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lunad/lunad/sandbox/shim"
)

// Capabilities is what this host offers for sandboxing commands, as Probe
// found it; `lunad doctor` prints it (String) and New decides with it.
type Capabilities struct {
	// Bwrap is bwrap's path ("" when it is not installed) and
	// BwrapVersion what `bwrap --version` says ("0.8.0").
	Bwrap        string `json:"bwrap,omitempty"`
	BwrapVersion string `json:"bwrap_version,omitempty"`
	// BwrapUntrusted is why the bwrap found is not run at all: someone
	// other than root or lunad's user could replace or change it (see
	// trustedExecutable).
	BwrapUntrusted string `json:"bwrap_untrusted,omitempty"`
	// Namespaces: bwrap ran a command in new mount, pid, ipc and uts
	// namespaces (and a user namespace where it needs one);
	// NamespacesError is why not (bwrap missing, or its message).
	Namespaces      bool   `json:"namespaces"`
	NamespacesError string `json:"namespaces_error,omitempty"`
	// Network: bwrap also made a network namespace, so a command can be
	// cut from the network; NetworkError is why not.
	Network      bool   `json:"network_namespace"`
	NetworkError string `json:"network_namespace_error,omitempty"`
	// Landlock is the kernel's Landlock ABI version, 0 when it has none
	// (LandlockError says why; bwrap alone is then the sandbox).
	Landlock      int    `json:"landlock_abi"`
	LandlockError string `json:"landlock_error,omitempty"`
	// LandlockApplied is what Run restricts with Landlock beneath bwrap
	// (see the package doc): "files, tcp, scopes" at ABI 6 and later
	// ("tcp" for commands without Spec.Network), "files, tcp" at ABI 4
	// and 5, "files" at 2 and 3; "" when Landlock is not applied (no
	// Landlock, ABI 1, or no usable sandbox).
	LandlockApplied string `json:"landlock_applied"`
	// ProcessLimit is how Limits.Processes is enforced: LimitCgroupV1 or
	// LimitCgroupV2 (a pids cgroup per command, made under CgroupDir),
	// LimitRlimit (RLIMIT_NPROC), or LimitNone (root, where RLIMIT_NPROC
	// does not apply, without a writable pids cgroup);
	// ProcessLimitNote says why no cgroup is used.
	ProcessLimit     string `json:"process_limit"`
	ProcessLimitNote string `json:"process_limit_note,omitempty"`
	CgroupDir        string `json:"cgroup_dir,omitempty"`
	// Hardened: bwrap ran a command in a user namespace of its own,
	// every capability dropped (--cap-drop ALL), unable to make another
	// user namespace (--disable-userns), no_new_privs set, under the
	// seccomp filter where there is one, and with a uid that is not 0
	// when lunad is root; HardenedError is why not (bwrap before 0.8.0
	// lacks --disable-userns; root needs user namespaces to change uid).
	Hardened      bool   `json:"hardened"`
	HardenedError string `json:"hardened_error,omitempty"`
	// Root: lunad runs as root. Its commands then run as uid and gid
	// 1000 in their user namespace (mapped to root outside, so the
	// workspace stays theirs to write).
	Root bool `json:"root"`
	// Seccomp: the seccomp filter (see the package doc) compiled for
	// this architecture; SeccompError is why not.
	Seccomp      bool   `json:"seccomp"`
	SeccompError string `json:"seccomp_error,omitempty"`
	// MemoryLimit is how Limits.Memory is enforced besides RLIMIT_AS:
	// LimitCgroupV1 or LimitCgroupV2 (a memory cgroup per command under
	// MemoryCgroupDir, which counts its tmpfs), or LimitRlimit (RLIMIT_AS
	// alone, which does not count tmpfs: those are bounded by their size
	// alone); MemoryLimitNote says why no cgroup is used.
	MemoryLimit     string `json:"memory_limit"`
	MemoryLimitNote string `json:"memory_limit_note,omitempty"`
	MemoryCgroupDir string `json:"memory_cgroup_dir,omitempty"`
	// Measured is what a probe command held in a sandbox made as Run
	// makes one (its /proc/self/status and mountinfo); nil when none ran
	// or its status could not be read. Hardened requires it to hold no
	// capability, the uid and gid Run asks for, no_new_privs, the
	// seccomp filter where there is one, and a /tmp of the size asked.
	Measured *Privileges `json:"measured,omitempty"`
}

// Usable reports whether commands can run sandboxed: bwrap is installed
// and can make every namespace a command needs, the network's included.
func (c Capabilities) Usable() bool {
	return c.Bwrap != "" && c.Namespaces && c.Network && c.Hardened
}

// unusable says why commands cannot run sandboxed ("" when they can).
func (c Capabilities) unusable() string {
	switch {
	case c.Bwrap == "":
		return "bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
	case c.BwrapUntrusted != "":
		return untrustedBwrap(c.Bwrap, c.BwrapUntrusted)
	case !c.Namespaces:
		return "bwrap cannot create namespaces: " + c.NamespacesError
	case !c.Network:
		return "bwrap cannot create a network namespace: " + c.NetworkError
	case !c.Hardened:
		return "bwrap cannot drop a command's privileges: " + c.HardenedError
	}
	return ""
}

// String is the report `lunad doctor` prints, one line per facility.
func (c Capabilities) String() string {
	var b strings.Builder
	if c.Bwrap == "" {
		b.WriteString("bwrap: not installed (Debian and Ubuntu: apt-get install bubblewrap)\n")
	} else if c.BwrapUntrusted != "" {
		fmt.Fprintf(&b, "bwrap: WARNING: %s\n", untrustedBwrap(c.Bwrap, c.BwrapUntrusted))
	} else {
		fmt.Fprintf(&b, "bwrap: %s %s\n", c.Bwrap, c.BwrapVersion)
	}
	b.WriteString("namespaces: " + okOr(c.Namespaces, c.NamespacesError) + "\n")
	b.WriteString("network namespace: " + okOr(c.Network, c.NetworkError) + "\n")
	b.WriteString("landlock: " + c.LandlockStatus() + "\n")
	for _, m := range c.Mitigations() {
		if m.Missing {
			b.WriteString(m.Name + ": WARNING: " + m.State + "\n")
		} else {
			b.WriteString(m.Name + ": " + m.State + "\n")
		}
	}
	if c.Usable() {
		b.WriteString("sandbox: usable\n")
	} else {
		b.WriteString("sandbox: unusable: " + c.unusable() + "\n")
	}
	return b.String()
}

// LandlockStatus says whether commands get Landlock beneath bwrap and
// why not: "ABI 7 (applied: files, tcp, scopes)", "unavailable: … (bwrap
// alone is the sandbox)".
func (c Capabilities) LandlockStatus() string {
	switch applied := c.landlockApplied(); {
	case applied != "":
		return fmt.Sprintf("ABI %d (applied: %s)", c.Landlock, applied)
	case c.Landlock >= shim.MinABI:
		return fmt.Sprintf("ABI %d (not applied: no usable sandbox)", c.Landlock)
	case c.Landlock > 0:
		return fmt.Sprintf("ABI %d (not applied: ABI %d cannot let commands rename between directories; bwrap alone is the sandbox)", c.Landlock, c.Landlock)
	}
	return "unavailable: " + c.LandlockError + " (bwrap alone is the sandbox)"
}

// landlockApplied is what Landlock restricts beneath a usable sandbox
// ("" for nothing), from the ABI.
func (c Capabilities) landlockApplied() string {
	if !c.Usable() {
		return ""
	}
	return shim.Describe(shim.Handled(c.Landlock, false))
}

func okOr(ok bool, why string) string {
	if ok {
		return "ok"
	}
	return "unavailable: " + why
}

// Probe finds what this host offers: bwrap (on PATH, else
// /usr/bin/bwrap) and whether it can make its namespaces — it runs
// `true` in a sandbox as Run would, with and without a network
// namespace —, the Landlock ABI, and how processes can be limited. It
// takes a few milliseconds; the daemon calls it once when it starts.
func Probe(ctx context.Context) Capabilities {
	var c Capabilities
	c.Landlock, c.LandlockError = landlockABI()
	c.ProcessLimit, c.CgroupDir, c.ProcessLimitNote = processLimit()
	c.MemoryLimit, c.MemoryCgroupDir, c.MemoryLimitNote = memoryLimit()
	c.Root = os.Geteuid() == 0
	filter, err := seccompProgram()
	if err != nil {
		c.SeccompError = err.Error()
	} else {
		c.Seccomp = true
	}
	c.Bwrap = findBwrap()
	if c.Bwrap == "" {
		c.NamespacesError = "bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
		c.NetworkError = c.NamespacesError
		return c
	}
	if err := trustedExecutable(c.Bwrap); err != nil {
		c.BwrapUntrusted = err.Error()
		c.NamespacesError = untrustedBwrap(c.Bwrap, c.BwrapUntrusted)
		c.NetworkError = c.NamespacesError
		return c
	}
	c.BwrapVersion = bwrapVersion(ctx, c.Bwrap)
	mounts := systemMounts()
	shared := []string{"--unshare-user-try", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"}
	if _, err := tryBwrap(ctx, c.Bwrap, mounts, shared, nil); err != nil {
		c.NamespacesError = err.Error()
		c.NetworkError = "namespaces are unavailable"
		return c
	}
	c.Namespaces = true
	if _, err := tryBwrap(ctx, c.Bwrap, mounts, []string{"--unshare-all"}, nil); err != nil {
		c.NetworkError = err.Error()
		return c
	}
	c.Network = true
	hardened := bwrapArgs(&plan{}, bwrapConfig{uid: c.commandUID()})
	hardened = hardened[:slices.Index(hardened, "--info-fd")]
	if filter != nil {
		hardened = append(hardened, "--seccomp", strconv.Itoa(tryBwrapSeccompFD))
	}
	hardened = append(hardened, "--size", strconv.Itoa(probeTmpSize), "--tmpfs", "/tmp")
	status, err := tryBwrap(ctx, c.Bwrap, mounts, hardened, filter, "cat", "/proc/self/status", "/proc/self/mountinfo")
	if err != nil {
		c.HardenedError = err.Error() + " (this needs bwrap 0.8.0 or later, and user namespaces)"
		return c
	}
	if err := c.measure(status, filter != nil); err != nil {
		c.HardenedError = fmt.Sprintf("a command in the sandbox %v: %s does not apply the options lunad gives it; use the distribution's bubblewrap (0.8.0 or later)", err, c.Bwrap)
		return c
	}
	c.Hardened = true
	c.LandlockApplied = c.landlockApplied()
	return c
}

// untrustedBwrap says why the bwrap at path is not run, and what to do.
func untrustedBwrap(path, why string) string {
	return fmt.Sprintf("the bwrap at %s is not run: %s; put one only root can change first on lunad's PATH (the distribution's /usr/bin/bwrap)", path, why)
}

func findBwrap() string {
	if p, err := exec.LookPath("bwrap"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/bwrap"); err == nil {
		return "/usr/bin/bwrap"
	}
	return ""
}

// bwrapVersion is the version `bwrap --version` prints ("bubblewrap 0.8.0").
func bwrapVersion(ctx context.Context, bwrap string) string {
	out, err := exec.CommandContext(ctx, bwrap, "--version").Output()
	if err != nil {
		return "unknown"
	}
	return parseBwrapVersion(string(out))
}

func parseBwrapVersion(out string) string {
	f := strings.Fields(out)
	if len(f) == 0 {
		return "unknown"
	}
	return f[len(f)-1]
}

// tryBwrapSeccompFD is the descriptor tryBwrap hands a seccomp filter on.
const tryBwrapSeccompFD = 3

// probeTmpSize is the size the probe asks bwrap to give its /tmp.
const probeTmpSize = 1 << 20

// measure reads what a probe command held out of its /proc/self/status
// and /proc/self/mountinfo, printed one after the other (each parser
// takes only its own lines), into c.Measured and checks it against what
// Run asks bwrap for (seccomp: a filter was handed to it); the error is
// the first shortfall.
func (c *Capabilities) measure(out []byte, seccomp bool) error {
	p, err := parseProcStatus(string(out))
	if err != nil {
		return fmt.Errorf("could not be measured: %w", err)
	}
	p.TmpSize, err = parseTmpfsSize(string(out), "/tmp")
	c.Measured = &p
	uid, gid := os.Getuid(), os.Getgid()
	if c.Root {
		uid, gid = sandboxUID, sandboxUID
	}
	if err != nil { // the privileges first: they say more
		if perr := p.check(uid, gid, seccomp, p.TmpSize); perr != nil {
			return perr
		}
		return fmt.Errorf("has no /tmp of its own: %w", err)
	}
	return p.check(uid, gid, seccomp, probeTmpSize)
}

// tryBwrap runs argv (`true` when empty) in a sandbox with the given
// namespace and privilege options — the seccomp filter, when there is
// one, is handed to bwrap on tryBwrapSeccompFD — and returns its
// standard output, at most maxStatusSize bytes; the error is bwrap's
// message.
func tryBwrap(ctx context.Context, bwrap string, mounts, options []string, seccomp []byte, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if len(argv) == 0 {
		argv = []string{"true"}
	}
	args := append(append([]string{"--die-with-parent", "--new-session"}, options...), mounts...)
	args = append(append(args, "--dev", "/dev", "--proc", "/proc", "--"), argv...)
	cmd := exec.CommandContext(ctx, bwrap, args...)
	cmd.Env = []string{"PATH=" + defaultPath}
	if seccomp != nil {
		f, err := filterFile(seccomp)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		cmd.ExtraFiles = []*os.File{f}
	}
	stdout, stderr := &cappedBuffer{max: maxStatusSize}, &cappedBuffer{max: maxStatusSize}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.b.String()); msg != "" {
			return nil, errors.New(msg)
		}
		return nil, err
	}
	return stdout.b.Bytes(), nil
}

// cappedBuffer keeps what is written to it, refusing to hold more than
// max bytes.
type cappedBuffer struct {
	b   bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.b.Len()+len(p) > c.max {
		return 0, fmt.Errorf("more than %d bytes of output", c.max)
	}
	return c.b.Write(p)
}

// processLimit says how Limits.Processes will be enforced on Linux.
func processLimitLinux() (mechanism, dir, note string) {
	mechanism, dir, err := probeCgroup("pids")
	if err == nil {
		sweepCgroups(dir)
		return mechanism, dir, ""
	}
	if os.Geteuid() == 0 {
		return LimitNone, "", "running as root, where RLIMIT_NPROC does not apply, and no pids cgroup can be made (" + err.Error() + ")"
	}
	return LimitRlimit, "", "RLIMIT_NPROC, which counts all of this user's processes (no pids cgroup can be made: " + err.Error() + ")"
}

// memoryLimitLinux says how Limits.Memory will be enforced on Linux
// besides RLIMIT_AS.
func memoryLimitLinux() (mechanism, dir, note string) {
	mechanism, dir, err := probeCgroup("memory")
	if err == nil {
		sweepCgroups(dir)
		return mechanism, dir, ""
	}
	return LimitRlimit, "", "RLIMIT_AS alone, which does not count what a command keeps in its tmpfs (/tmp, /dev/shm, its home: each is bounded by its size, the memory limit); no memory cgroup can be made: " + err.Error()
}

// commandUID is the uid a command runs as inside its user namespace:
// sandboxUID when lunad is root, else lunad's own (0: unchanged).
func (c Capabilities) commandUID() int {
	if c.Root {
		return sandboxUID
	}
	return 0
}
