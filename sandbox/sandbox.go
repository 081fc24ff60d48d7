package sandbox

import "time"

// Spec is one command to run.
type Spec struct {
	// Argv is the program and its arguments; there is no shell.
	Argv []string
	// Root is the workspace (absolute): writable inside the sandbox.
	Root string
	// Dir is the working directory (absolute); it must be Root or inside
	// it (ErrInvalid otherwise).
	Dir string
	// ReadOnly are paths under Root kept read-only (absolute), such as
	// Root/.git and Root/.luna. One that does not exist is covered by an
	// empty read-only directory, so the command cannot create it either
	// (the empty mount point bwrap makes for it is removed afterwards).
	ReadOnly []string
	// Home is a directory (absolute, lunad's own) bound as the command's
	// $HOME, writable, so caches (GOCACHE, pip's) persist between the
	// commands given it: whatever one command plants there (a
	// usercustomize.py, a .bashrc) the next one runs, so a Home must
	// never be shared by commands of different trust (two goals). ""
	// gives a fresh, empty home for this command alone. It is bound at
	// its own path, and the user's home (Options.UserHome) is an empty
	// tmpfs.
	Home string
	// Hidden are paths under Root the command must not read (the
	// policy's denied paths): each existing file is covered by /dev/null
	// (opening it fails), each directory by an empty read-only tmpfs.
	// One that does not exist is skipped.
	Hidden []string
	// Binds are host paths outside Root mounted at the same path inside,
	// read-only unless Writable: a toolchain outside the system
	// directories, a module cache, a directory for a test report. None
	// may be /, the user's home or contain it.
	Binds []Bind
	// Env are variables set for the command on top of the scrubbed
	// base (PATH, LANG, TERM, HOME, TMPDIR); no variable of lunad's own
	// environment passes through otherwise.
	Env map[string]string
	// Network lets the command reach the network (the policy allowed it).
	Network bool
	// Timeout ends the process group (TERM, then KILL after Grace);
	// zero means DefaultTimeout and DefaultGrace.
	Timeout time.Duration
	Grace   time.Duration
	Limits  Limits
	// Stdin is the command's standard input (empty: /dev/null).
	Stdin []byte
}

// Bind is a host path mounted into the sandbox at the same path.
type Bind struct {
	Path     string // absolute
	Writable bool
}

// Limits bound a command's resources; zero means the field of
// DefaultLimits. CPU, Memory and FileSize are rlimits of every process of
// the command (each process has its own CPU time and address space);
// Processes bounds the command's processes and threads together, with a
// pids cgroup of its own where the host lets lunad make one, else with
// RLIMIT_NPROC, which counts all of the user's processes and does not
// apply to root (Capabilities.ProcessLimit says which is in force).
type Limits struct {
	CPU time.Duration // CPU time (RLIMIT_CPU; SIGXCPU, then SIGKILL a second later)
	// Memory is each process's address space (RLIMIT_AS: an allocation
	// beyond it fails), the whole command's memory with its tmpfs pages
	// where a memory cgroup is made (the OOM killer ends it beyond), and
	// the size of each of its tmpfs (/tmp, /dev/shm, the empty home).
	Memory    int64
	Processes int   // processes and threads at once
	FileSize  int64 // the largest file it may write, bytes (RLIMIT_FSIZE; SIGXFSZ)
	// Output is the bytes kept of each of stdout and stderr (head and
	// tail halves).
	Output int
}

// Result is how a command ended. A command that exits non-zero, is
// killed or hits a limit is a Result, not an error.
type Result struct {
	// ExitCode is the command's exit status, -1 when a signal killed it
	// (bwrap reports a signal N as the status 128+N, read back as the
	// signal).
	ExitCode int
	Signal   string // "SIGKILL", … when killed
	// Ended says why it was stopped, if it was: "timeout", "cancelled"
	// (lunad ended it: TERM, then KILL), "cpu" or "file_size" (the
	// kernel's SIGXCPU or SIGXFSZ for the limit), "memory" (its memory
	// cgroup's OOM killer); "" when it exited. An allocation beyond
	// RLIMIT_AS or a fork beyond Limits.Processes fails instead and the
	// command goes on: "processes" is never Ended.
	Ended string
	// Hit are the limits the command ran into, sorted, even when it went
	// on: "cpu" and "file_size" as Ended, "processes" when its pids
	// cgroup refused a fork, "memory" when its memory cgroup's OOM killer
	// killed one of its processes.
	Hit      []string
	Stdout   Output
	Stderr   Output
	Duration time.Duration
	// Sandboxed is false only for a Runner the policy let run without a
	// sandbox; Warning then says so.
	Sandboxed bool
	Warning   string
	// Landlock is what Landlock restricted beneath bwrap: "files, tcp,
	// scopes" ("tcp" only without Spec.Network; fewer at older ABIs),
	// "" when it was not applied (the kernel has none, or the command
	// ran unsandboxed): bwrap alone was the sandbox.
	Landlock string
}

// Output is one captured stream: Text holds its head and tail when it
// was longer than the cap, with a line saying how much was cut between
// them.
type Output struct {
	Text  string
	Total int64 // bytes the command wrote
	Cut   int64 // bytes left out of Text
}
