// Package sandbox runs one command the way an agent's commands must run:
// argv only, in a directory inside the workspace, in a bubblewrap (bwrap)
// sandbox — the system read-only, the workspace writable except the
// paths kept read-only (.git, .luna), a private /tmp and a private home,
// no network unless the spec allows it — with a timeout on the whole
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
// bwrap makes new mount, pid, ipc, uts, cgroup and network namespaces
// (--unshare-all; --share-net only for Spec.Network) and shows: /usr,
// /etc, /opt and the /bin, /sbin and /lib* directories or symlinks,
// read-only, with /etc's secrets covered (shadow files, ssh host keys,
// /etc/ssl/private: bwrap drops capabilities, but uid 0 still owns
// them); a new /dev and /proc; an empty /tmp and /dev/shm; the user's
// home as an empty tmpfs; Spec.Binds; Spec.Home, writable; Root,
// writable; Spec.ReadOnly over it. Nothing else of the host — not /,
// not /home, /root, /var or /run — is there. --die-with-parent ties the
// sandbox to lunad, --new-session keeps it off lunad's terminal. The
// environment is only the scrubbed one (PATH cut to directories the
// command can see, HOME, LANG, TERM=dumb, TMPDIR, then Spec.Env), handed
// to bwrap as its own environment rather than as --setenv arguments,
// which would show in the world-readable /proc/PID/cmdline.
//
// # Limits
//
// A command is started through a gate: `/bin/sh -c 'read <&3; exec
// "$@"'`, which waits until lunad has moved it into a pids cgroup of its
// own (lunad-sandbox-PID-N, made under lunad's own cgroup when Probe
// found one it may write; cgroup v1 cannot start a process inside a
// cgroup, and a process must be in it before it forks) and set its
// rlimits with prlimit(2): RLIMIT_CPU (SIGXCPU, SIGKILL a second later),
// RLIMIT_AS and RLIMIT_FSIZE (SIGXFSZ). Then it execs bwrap (or the
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
// Capabilities reports the kernel's Landlock ABI, but Run does not apply
// Landlock: bwrap's mount namespace already shows a command only what it
// may touch, writable only where it may write, and its network namespace
// cuts it from the network; Landlock would add a second line for the same
// files (and TCP ports, ABI 4, where Spec.Network lets a command out).
// Applying it needs a process of lunad's inside the sandbox, after bwrap's
// mounts and before the exec (a re-exec of lunad as the sandbox's
// command), which the next step may add.
package sandbox
