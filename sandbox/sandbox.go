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
	// Root/.git and Root/.luna.
	ReadOnly []string
	// Home is a directory (absolute, lunad's own) bound as the command's
	// $HOME, writable, so caches (GOCACHE, pip's) persist between
	// commands; "" gives an empty private home.
	Home string
	// Env are variables set for the command on top of the scrubbed
	// base (PATH, LANG, TERM, HOME, TMPDIR); no variable of lunad's own
	// environment passes through otherwise.
	Env map[string]string
	// Binds are host paths made visible inside the sandbox besides Root
	// and Home, such as the directory where the test harness has pytest
	// write its JUnit report. They are applied after Root, ReadOnly, Home
	// and the private /tmp, so a bind may lie under /tmp. A Runner that
	// runs without a sandbox cannot move a path: it refuses a Bind whose
	// Dst differs from its Src (ErrInvalid); binding a path at its own
	// place (Dst == Src) works either way, which is what the harness does.
	Binds []Bind
	// Network lets the command reach the network (the policy allowed it).
	Network bool
	// Timeout ends the process group (TERM, then KILL after Grace).
	Timeout time.Duration
	Grace   time.Duration
	Limits  Limits
	// Stdin is the command's standard input (empty: /dev/null).
	Stdin []byte
}

// Bind makes the host path Src (absolute, existing) visible at Dst
// (absolute) inside the sandbox, read-only unless Writable.
type Bind struct {
	Src      string
	Dst      string
	Writable bool
}

// Limits bound a command's resources; zero means the default.
type Limits struct {
	CPU       time.Duration // CPU time (RLIMIT_CPU)
	Memory    int64         // address space, bytes (RLIMIT_AS)
	Processes int           // processes and threads at once
	FileSize  int64         // the largest file it may write, bytes (RLIMIT_FSIZE)
	// Output is the bytes kept of each of stdout and stderr (head and
	// tail halves).
	Output int
}

// Result is how a command ended. A command that exits non-zero, is
// killed or hits a limit is a Result, not an error.
type Result struct {
	ExitCode int    // -1 when killed by a signal
	Signal   string // "SIGKILL", … when killed
	// Ended says why lunad stopped it, if it did: "timeout", "cpu",
	// "memory", "processes", "file_size", "cancelled"; "" when it exited.
	Ended    string
	Stdout   Output
	Stderr   Output
	Duration time.Duration
	// Sandboxed is false only for a Runner the policy let run without a
	// sandbox; Warning then says so.
	Sandboxed bool
	Warning   string
}

// Output is one captured stream: Text holds its head and tail when it
// was longer than the cap, with a line saying how much was cut between
// them.
type Output struct {
	Text  string
	Total int64 // bytes the command wrote
	Cut   int64 // bytes left out of Text
}
