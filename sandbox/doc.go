// Package sandbox runs one command the way an agent's commands must run:
// argv only, in a directory inside the workspace, in a bubblewrap (bwrap)
// sandbox — the system read-only, the workspace writable except the
// paths kept read-only (.git, .luna), a private /tmp and a private home,
// no network unless the spec allows it, and Landlock beneath it where
// the kernel has it — with a timeout on the whole
// process group (TERM, then KILL after a grace period), resource limits
// (CPU time, memory, processes, file size), a scrubbed environment and
// its output capped (head and tail kept, the cut said).
//
// Probe tells what this host offers (bwrap, user and network namespaces,
// Landlock, how processes are limited); New refuses to make a Runner that
// would run commands without a sandbox unless told so (the policy's
// choice), and such a Runner says so loudly in every Result. It is the
// only package that starts bwrap.
//
// # What a sandboxed command sees
//
// bwrap makes new user, mount, pid, ipc, uts, cgroup and network
// namespaces (--unshare-all --unshare-user; --share-net only for
// Spec.Network) and shows: /usr, /etc, /opt and the /bin, /sbin and
// /lib* directories or symlinks, read-only, with /etc's secrets covered
// (shadow files, ssh host keys, /etc/ssl/private: the command's uid maps
// to lunad's, which may own them); a new /dev and /proc; an empty /tmp
// and /dev/shm and the user's home as an empty tmpfs, each sized to
// Limits.Memory; Spec.Binds; Spec.Home, writable; Root, writable;
// Spec.ReadOnly over it; Spec.Hidden covered (a file by /dev/null,
// which bwrap mounts nodev so opening it fails, a directory by an empty
// read-only tmpfs). Nothing else of the host — not /, not /home, /root,
// /var or /run — is there. --die-with-parent ties the
// sandbox to lunad, --new-session keeps it off lunad's terminal. The
// environment is only the scrubbed one (PATH cut to directories the
// command can see, HOME, LANG, TERM=dumb, TMPDIR, then Spec.Env), handed
// to bwrap as its own environment rather than as --setenv arguments,
// which would show in the world-readable /proc/PID/cmdline.
//
// # Privileges
//
// Whoever runs lunad — root included — a command holds no capability
// (--cap-drop ALL, in a user namespace of its own, over mounts that
// namespace cannot unlock), cannot make another user namespace
// (--disable-userns), has no_new_privs (bwrap sets it), and, when lunad
// is root, is uid and gid 1000 in its namespace (mapped to root outside,
// so the workspace stays writable): never uid 0. bwrap installs a
// seccomp filter (--seccomp, read from a pipe; compiled by
// go-seccomp-bpf for this architecture) just before it execs the
// command — or the Landlock shim, which needs none of the calls it
// refuses with EPERM: the mount family (mount, umount2, mount_setattr,
// move_mount, open_tree, fsopen, fsconfig, fsmount, fspick, pivot_root,
// chroot), unshare, setns and clone with a namespace flag (clone3 gets
// ENOSYS, so the C library and Go fall back to clone), ptrace,
// process_vm_readv/writev, kcmp, pidfd_getfd, bpf, perf_event_open,
// keyctl, add_key, request_key, userfaultfd, kernel modules, kexec,
// open_by_handle_at, reboot, swap, accounting, quotas and the clock.
// Every call made through another architecture's ABI (i386's int 0x80
// on amd64, x32) gets ENOSYS, so 32-bit programs do not run. Probe runs
// a command so — `cat /proc/self/status /proc/self/mountinfo` — before
// it calls the sandbox usable (Capabilities.Hardened: bwrap 0.8.0 or
// later), and measures what it held (Capabilities.Measured): no
// capability in any set, the uid and gid asked for, no_new_privs,
// seccomp mode 2 where there is a filter, a /tmp tmpfs of the size asked
// for; a bwrap that does not apply its options leaves the sandbox
// unusable rather than reported as hardened. A bwrap someone other than
// root or lunad's user could replace or change (trustedExecutable) is
// not run at all. Where go-seccomp-bpf does not know the
// architecture there is no filter, and every Result says so. As root
// without Landlock, New refuses unless Options.AllowRootWithoutLandlock
// (the policy's root_without_landlock = "warn"), and every Result then
// says so. Capabilities.Mitigations lists what is in force.
//
// # Limits
//
// A command is started through a gate: `/bin/sh -c 'read <&3; exec
// "$@"'`, which waits until lunad has moved it into a pids cgroup of its
// own (lunad-sandbox-PID-N, made under lunad's own cgroup when Probe
// found one it may write; cgroup v1 cannot start a process inside a
// cgroup, and a process must be in it before it forks) and into a
// memory cgroup of its own limited to Limits.Memory — its pages and the
// pages it keeps in its tmpfs, which RLIMIT_AS does not count; beyond
// it the kernel's OOM killer ends it (Ended "memory") — and set its
// rlimits with prlimit(2): RLIMIT_CPU (SIGXCPU, SIGKILL a second later),
// RLIMIT_AS (set by the Landlock shim instead where there is one) and
// RLIMIT_FSIZE (SIGXFSZ). Without a memory cgroup
// (Capabilities.MemoryLimit), the tmpfs sizes alone bound what a command
// keeps there (ENOSPC). Then it execs bwrap (or the
// command, unsandboxed), and everything started after inherits both.
// Without a writable pids cgroup, processes are limited by RLIMIT_NPROC,
// which counts all of the user's processes and does not apply to root:
// Probe says which is in force, and a Runner on a root host without a
// cgroup warns in every Result. The cgroup is removed after the command,
// whatever way it ended; cgroups a killed daemon left are removed by the
// next Probe.
//
// # Ending a command
//
// At its timeout, or when ctx ends, a command is sent SIGTERM — sandboxed,
// every process of its pid namespace but bwrap's own (found through its
// cgroup or /proc and bwrap's --info-fd), so each can clean up; and
// unsandboxed, its process group and cgroup — and, if it has not ended
// after the grace period, SIGKILL: bwrap's monitor, whose death takes its
// init and with it, by the kernel, every process of the namespace, and
// whatever is in the cgroup. When a sandboxed command's own process
// exits, the rest of its namespace dies with it: nothing it started in
// the background outlives it. Its stdout and stderr are read as they are
// written, through 1 MiB pipes, keeping the first and the last
// Limits.Output/2 bytes (a flood costs lunad two buffers, not memory).
//
// # Landlock
//
// Where the kernel has Landlock (ABI 2 or later; Capabilities.Landlock,
// LandlockApplied), Run adds it beneath bwrap. Landlock forbids mount(2)
// to a restricted process, so lunad cannot restrict itself before bwrap
// mounts; instead bwrap's command is a shim: lunad-shim (cmd/lunad-shim,
// package sandbox/shim), a small static program bound read-only at
// shim.Path (/run/lunad/landlock) and run with the command's argv. It
// reads its spec from a pipe (descriptor 5: the ruleset, kept off the
// world-readable /proc/PID/cmdline), locks its OS thread, creates the
// ruleset, sets PR_SET_NO_NEW_PRIVS and calls landlock_restrict_self on
// that thread, sets RLIMIT_AS, and execs the command on the same thread:
// the command inherits the domain, and so does everything it starts. The
// process tree is bwrap's as before (the shim becomes the command).
//
// New finds the shim next to lunad's own executable (`make build` puts
// bin/lunad-shim beside bin/lunad), else in PATH's absolute directories
// (Options.Shim names another). Where Landlock is applied and there is
// no shim, or one that someone other than root or lunad's user could
// replace, New refuses with an error saying where it looked and how to
// build it — never a sandbox without Landlock in silence; `lunad doctor`
// shows that error. The shim links the standard library and
// golang.org/x/sys alone, so it starts in about a millisecond
// (BenchmarkSandboxStart), where lunad re-executed as its own shim paid
// every package initialisation of its binary for every command.
//
// The rules: read and execute on what bwrap shows read-only (the system
// directories, /etc/resolv.conf's target, the read-only Spec.Binds); read
// on /proc and /dev (so a command cannot write /proc/self/oom_score_adj
// or the like); read and write on the device nodes bwrap's --dev
// makes (null, zero, full, random, urandom, tty), /dev/pts and /dev/shm;
// every right on /tmp, the command's home, the writable Spec.Binds and
// Root. Nothing else — not /, not /run, not the tmpfs over the user's
// home when Spec.Home is the command's home — though bwrap's mounts would
// let a command write the sandbox's / and that tmpfs. Landlock cannot take
// back beneath a path what it grants the path: Spec.ReadOnly (.git,
// .luna) under the writable Root stays read-only through bwrap's
// read-only binds alone. TCP (ABI 4): without Spec.Network, bind and
// connect are handled with no rule granting them, so every TCP bind and
// connect fails with EACCES, even on the sandbox's own loopback; with
// it, TCP is left alone (UDP is not Landlock's before ABI 8, which lunad
// does not ask for). Scopes (ABI 6): the command cannot connect to an
// abstract unix socket, nor signal a process, made outside its domain.
// Each ABI gets only the rights it knows: refer from 2 (ABI 1, which
// refuses every rename between directories, is not applied), truncate
// from 3, TCP from 4, ioctl on devices from 5, scopes from 6; a newer
// kernel is asked for ABI 7's. Result.Landlock says what was applied.
//
// The shim is a Go program, which cannot start under a small RLIMIT_AS
// (the runtime reserves address space up front): with the shim, lunad
// leaves RLIMIT_AS to it, and it sets the limit just before its exec,
// having allocated what the exec needs. A shim that fails — no spec, a
// spec it does not understand whole (lunad and lunad-shim of different
// builds), its ruleset refused, its program missing or not executable —
// runs nothing: it writes why on its status pipe (descriptor 6, closed
// on exec) and exits 126 or 127, and Run returns a *StartError. Without
// Landlock (no kernel support, disabled, ABI 1) bwrap alone is the
// sandbox, as Capabilities.String (`lunad doctor`) says; unsandboxed
// Runners do not use the shim. Whatever the path, a command starts with stdin, stdout
// and stderr only: Init marks what lunad inherited close-on-exec, and the
// shim marks what reached it.
//
// The seccomp filter is compiled by go-seccomp-bpf (seccomp.go); a bwrap
// another user could replace or change is not run (trust.go).
package sandbox
