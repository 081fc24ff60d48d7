package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"sync"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompDenied are the system calls a sandboxed command is refused
// (EPERM), whatever its capabilities: those that would let it undo the
// sandbox's mounts (the mount family: mount_setattr clears a read-only
// flag that Landlock does not guard), make namespaces of its own (where
// it would hold every capability again), watch or steer other processes
// (ptrace, process_vm_*), reach the kernel's attack surface that
// containers keep closed (bpf, perf_event_open, keyring calls,
// userfaultfd, kernel modules and kexec) or change the host (reboot,
// swap, accounting, the clock). The choice follows Flatpak's and Codex's
// Linux sandboxes. A name this architecture lacks (umount on amd64) is
// left out.
var seccompDenied = []string{
	// Mounts.
	"mount", "umount", "umount2", "mount_setattr", "move_mount", "open_tree",
	"fsopen", "fsconfig", "fsmount", "fspick", "pivot_root", "chroot",
	// Namespaces (clone's namespace flags are refused below).
	"unshare", "setns",
	// Other processes.
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	// Kernel attack surface.
	"bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "fanotify_init",
	"iopl", "ioperm", "syslog", "vhangup",
	// The host.
	"reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"sethostname", "setdomainname",
}

// cloneNewNamespaces are clone(2)'s flags that make a namespace.
const cloneNewNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWTIME

// seccompErrno is the filter's answer to a refused call: EPERM, as
// without the privilege.
const seccompErrno = seccomp.Action(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))

// seccompENOSYS is the answer to clone3, whose flags are behind a
// pointer the filter cannot read: "not implemented" makes the C library
// and Go's runtime fall back to clone, whose flags it can.
const seccompENOSYS = seccomp.Action(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))

// seccompPolicy is the filter as go-seccomp-bpf's policy for the
// architecture a: every call allowed but seccompDenied, clone with a
// namespace flag, and clone3.
func seccompPolicy(a *arch.Info) seccomp.Policy {
	var denied []string
	for _, name := range seccompDenied {
		if _, ok := a.SyscallNames[name]; ok {
			denied = append(denied, name)
		}
	}
	// clone's flags are its first argument, but on s390x (its second).
	flagsArg := uint32(0)
	if a.Name == "s390x" {
		flagsArg = 1
	}
	groups := []seccomp.SyscallGroup{
		{Names: denied, Action: seccompErrno},
		{NamesWithCondtions: []seccomp.NameWithConditions{{Name: "clone", Conditions: seccomp.ArgumentConditions{
			{Argument: flagsArg, Operation: seccomp.BitsSet, Value: cloneNewNamespaces},
		}}}, Action: seccompErrno},
	}
	if _, ok := a.SyscallNames["clone3"]; ok {
		groups = append(groups, seccomp.SyscallGroup{Names: []string{"clone3"}, Action: seccompENOSYS})
	}
	return seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: groups}
}

// seccompProgram is the compiled filter bwrap installs (--seccomp) just
// before it execs the command, as struct sock_filter in this machine's
// byte order. A call made with another architecture's numbers (the i386
// ABI through int 0x80 on amd64, the x32 ABI) would dodge a filter
// written for the native one: such calls are refused with ENOSYS before
// the native filter is reached, so 32-bit programs cannot run in the
// sandbox.
var seccompProgram = sync.OnceValues(func() ([]byte, error) {
	a, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("no seccomp filter for %s: %w", runtime.GOARCH, err)
	}
	p := seccompPolicy(a)
	native, err := p.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp filter for %s: %w", a.Name, err)
	}
	prog := append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(a.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccompENOSYS)},
	}, native...)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("seccomp filter for %s: %w", a.Name, err)
	}
	out := make([]byte, 0, 8*len(raw))
	for _, in := range raw {
		out = binary.NativeEndian.AppendUint16(out, in.Op)
		out = append(out, in.Jt, in.Jf)
		out = binary.NativeEndian.AppendUint32(out, in.K)
	}
	return out, nil
})

// seccompSummary says what the filter refuses, for `lunad doctor`.
const seccompSummary = "the mount family, namespaces (unshare, setns, clone's namespace flags, clone3), ptrace and process_vm_*, bpf, perf_event_open, keyrings, userfaultfd, modules, kexec, reboot, swap and the clock; other architectures' calls"

// filterFile is a pipe's read end holding the compiled filter, for bwrap
// to read (--seccomp) and close; the filter is far smaller than a
// pipe's buffer, so the write end is written and closed at once.
func filterFile(filter []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: a pipe for the seccomp filter: %w", err)
	}
	defer w.Close()
	if _, err := w.Write(filter); err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: write the seccomp filter: %w", err)
	}
	return r, nil
}
