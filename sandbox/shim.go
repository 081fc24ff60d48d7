package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/lunad/lunad"
)

// ShimPath is where a sandbox shows lunad's own executable, read-only,
// when it applies Landlock: bwrap runs it there as the Landlock shim
// (argv[0] ShimPath, then the command's argv), which restricts itself
// and execs the command. It is under /run, never under a workspace.
const ShimPath = "/run/lunad/landlock"

// The shim's descriptors: the spec it reads (lunad writes it, then
// closes its end) and the status pipe it writes only when it fails (the
// exec closes it otherwise: close-on-exec).
const (
	shimSpecFD   = 5
	shimStatusFD = 6
)

// Init runs the Landlock shim and never returns when this process was
// started as one (argv[0] is ShimPath); otherwise it marks every
// descriptor this process inherited beyond stdin, stdout and stderr
// close-on-exec (a terminal's or a parent's open directory must not
// reach a sandboxed command, which could open files through it beneath
// bwrap's mounts) and returns.
// It must be the first thing main does, and TestMain of every test
// binary whose tests run sandboxed commands — like docker's reexec.Init:
//
//	func main() {
//		sandbox.Init()
//		…
//	}
//
// A Runner shows this process's executable as the shim (Options.Shim
// names another), so a program that makes Runners and does not call Init
// would run as itself inside every sandbox. Package initialisation runs
// before Init: the shim's start costs what the binary's inits cost
// (docs/benchmarks.md, BenchmarkSandboxStart).
func Init() {
	if len(os.Args) == 0 || os.Args[0] != ShimPath {
		closeInheritedOnExec()
		return
	}
	os.Exit(runShim(os.Args[1:]))
}

// StartError is Run's error when the command did not start inside its
// sandbox: the Landlock shim could not restrict it (Code 126), or could
// not exec it (126, or 127 when the program or its interpreter is not
// there). The command did not run, restricted or not. It wraps
// lunad.ErrNotFound (127) or lunad.ErrInvalid (126).
type StartError struct {
	Code   int
	Reason string
}

func (e *StartError) Error() string {
	return fmt.Sprintf("sandbox: the command did not start (status %d): %s", e.Code, e.Reason)
}

// Unwrap gives lunad.ErrNotFound for a program that is not there,
// lunad.ErrInvalid otherwise.
func (e *StartError) Unwrap() error {
	if e.Code == 127 {
		return lunad.ErrNotFound
	}
	return lunad.ErrInvalid
}

// shimFailure reads what the shim wrote to its status pipe ("CODE
// REASON"): nil when it wrote nothing (it exec'd the command).
func shimFailure(status string) error {
	if status == "" {
		return nil
	}
	code, reason, _ := strings.Cut(status, " ")
	n, err := strconv.Atoi(code)
	if err != nil || n != 127 {
		n = 126
	}
	return &StartError{Code: n, Reason: reason}
}

// shimStatusLimit bounds what lunad reads of the status pipe.
const shimStatusLimit = 4 << 10
