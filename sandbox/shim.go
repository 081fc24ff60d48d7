package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/sandbox/shim"
)

// ShimName is the Landlock shim's executable (cmd/lunad-shim): New
// looks for it next to lunad's own executable, then on PATH.
const ShimName = "lunad-shim"

// Init marks every descriptor this process inherited beyond stdin,
// stdout and stderr close-on-exec: a terminal's or a parent's open
// directory must not reach a sandboxed command, which could open files
// through it beneath bwrap's mounts. It should be the first thing the
// main of a program that makes Runners does:
//
//	func main() {
//		sandbox.Init()
//		…
//	}
func Init() {
	shim.CloseInheritedOnExec()
}

// shimDirs are where New looks for ShimName, in order: the directory of
// this process's executable (symlinks resolved), then PATH's absolute
// directories.
func shimDirs(getenv func(string) string) []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dirs = append(dirs, filepath.Dir(exe))
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if filepath.IsAbs(dir) {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// findShim is the Landlock shim's executable, symlinks resolved: given
// when set (Options.Shim), else the first ShimName in dirs. It must be a
// file no one but root or lunad's user could replace or change: lunad
// trusts it to restrict every command, as it trusts bwrap.
func findShim(given string, dirs []string) (string, error) {
	path := given
	if path == "" {
		for _, dir := range dirs {
			if p := filepath.Join(dir, ShimName); isExecutable(p) {
				path = p
				break
			}
		}
		if path == "" {
			return "", fmt.Errorf("sandbox: Landlock is applied through the shim %s, which is neither next to lunad's executable nor on PATH (%s): build it with `make build` (bin/%s beside bin/lunad), or `CGO_ENABLED=0 go build -o DIR/%s ./cmd/lunad-shim` into lunad's directory: %w",
				ShimName, strings.Join(dirs, ":"), ShimName, ShimName, lunad.ErrNotFound)
		}
	}
	real, err := filepath.EvalSymlinks(path)
	if err == nil && !isExecutable(real) {
		err = errors.New("not an executable file")
	}
	if err != nil {
		return "", fmt.Errorf("sandbox: the Landlock shim %s (Options.Shim, else %s next to lunad or on PATH): %v: %w", path, ShimName, err, lunad.ErrNotFound)
	}
	if err := trustedExecutable(path); err != nil {
		return "", fmt.Errorf("sandbox: the Landlock shim %s is not run: %v; lunad trusts it to restrict every command, so it and the directories above it must be owned by root or lunad's user and writable by no one else: %w", path, err, lunad.ErrInvalid)
	}
	return real, nil
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
