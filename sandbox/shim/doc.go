// Package shim is the Landlock shim: the small program bwrap runs as a
// sandboxed command's first process (cmd/lunad-shim, built with no cgo),
// and what lunad and it agree on — the ruleset it is handed (Spec, with
// Landlock's rights numbered as the kernel's uapi numbers them), the
// descriptors it reads the spec from and writes a failure to (SpecFD,
// StatusFD), and where a sandbox shows it (Path).
//
// Landlock forbids mount(2) to a restricted process, so lunad cannot
// restrict itself before bwrap mounts; bwrap's command is the shim
// instead, run with the command's argv. Run reads its spec from SpecFD
// (kept off the world-readable /proc/PID/cmdline), refuses a spec that
// does not decode or that it does not fully understand (an unknown field,
// an ABI or a right it does not know: a shim older than lunad never
// applies less than lunad asked for), locks its OS thread, creates the
// ruleset, sets PR_SET_NO_NEW_PRIVS and calls landlock_restrict_self on
// that thread, sets RLIMIT_AS, and execs the command on the same thread:
// the command inherits the domain, and so does everything it starts. A
// shim that fails runs nothing: it writes "CODE REASON" on StatusFD
// (closed on exec) and exits 126, or 127 when the program is not there.
//
// The shim is its own executable, not lunad's re-executed: a process
// that starts for every sandboxed command pays every package
// initialisation of the binary it is, and lunad's links cel-go, protobuf,
// the model SDKs, NATS and tree-sitter. This package links the standard
// library and golang.org/x/sys alone (TestArchitecture), so the shim
// starts in about a millisecond. go-landlock is not used: its
// restriction covers every thread through libpsx, C code under cgo,
// where the shim needs one thread and three system calls.
package shim
