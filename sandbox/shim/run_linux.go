package shim

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// execHint follows a refused exec: where Landlock lets programs run.
const execHint = " (Landlock lets a command run programs only from the system directories, the workspace, /tmp, its home and Spec.Binds)"

// Run is the shim's program: it reads its spec from SpecFD, finds the
// program argv[0], restricts the one thread that will exec (Landlock,
// then RLIMIT_AS) and execs the command on it. It returns only when it
// failed, with the status to exit with (127: no such program, 126:
// anything else, a missing or refused spec among them), having said why
// on the status pipe (on stderr when there is none). Nothing runs
// without the spec: there is no unrestricted way through.
func Run(argv []string) int {
	runtime.LockOSThread() // never unlocked: this thread execs the command
	syscall.CloseOnExec(StatusFD)
	spec, err := readSpec()
	if err != nil {
		return fail(126, "the Landlock shim: "+err.Error())
	}
	if len(argv) == 0 {
		return fail(126, "the Landlock shim was given no command")
	}
	path, err := exec.LookPath(argv[0])
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		return fail(127, fmt.Sprintf("program %q is not in the sandbox (PATH %s)", argv[0], os.Getenv("PATH")))
	case err != nil:
		return fail(126, fmt.Sprintf("program %q: %v", argv[0], err))
	}
	// Everything the exec needs is made now: once RLIMIT_AS is set the
	// Go runtime must not need more memory (it maps more than a small
	// limit at its start).
	pathp, err1 := syscall.BytePtrFromString(path)
	argvp, err2 := syscall.SlicePtrFromStrings(argv)
	envp, err3 := syscall.SlicePtrFromStrings(os.Environ())
	if err := errors.Join(err1, err2, err3); err != nil {
		return fail(126, "the Landlock shim: "+err.Error())
	}
	failed := "exec " + path + ": "
	CloseInheritedOnExec() // what bwrap passed on (lunad's pipes) stays here
	if err := restrict(spec); err != nil {
		return fail(126, "Landlock refused the command's rules, so it was not run: "+err.Error()+" (lunad doctor shows the kernel's Landlock ABI)")
	}
	if spec.Memory > 0 {
		var old unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_AS, &old); err != nil {
			return fail(126, "the Landlock shim: read RLIMIT_AS: "+err.Error())
		}
		lim := unix.Rlimit{Cur: min(spec.Memory, old.Max), Max: min(spec.Memory, old.Max)}
		if err := unix.Setrlimit(unix.RLIMIT_AS, &lim); err != nil {
			return fail(126, "the Landlock shim: set RLIMIT_AS: "+err.Error())
		}
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(pathp)), uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
	// Still here: the exec failed. Said without allocating.
	code := 126
	if errno == syscall.ENOENT {
		code = 127
	}
	writeStatus(code, failed, errno.Error())
	if errno == syscall.EACCES {
		writeRaw(execHint)
	}
	return code
}

// readSpec reads and checks the spec lunad wrote to SpecFD, and closes
// it.
func readSpec() (Spec, error) {
	f := os.NewFile(SpecFD, "lunad-shim-spec")
	if f == nil {
		return Spec{}, fmt.Errorf("no spec on descriptor %d", SpecFD)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, specLimit))
	if err != nil {
		return Spec{}, fmt.Errorf("no spec on descriptor %d (it runs only as lunad's sandbox runs it): %w", SpecFD, err)
	}
	return Decode(b)
}

// fail says why on the status pipe (and on stderr when there is no
// status pipe) and returns code.
func fail(code int, reason string) int {
	if !writeStatus(code, reason) {
		fmt.Fprintf(os.Stderr, "lunad-shim: %s\n", reason)
	}
	return code
}

// writeStatus writes "CODE PARTS…" to the status pipe.
func writeStatus(code int, parts ...string) bool {
	prefix := "126 "
	if code == 127 {
		prefix = "127 "
	}
	ok := writeRaw(prefix)
	for _, p := range parts {
		ok = writeRaw(p) && ok
	}
	return ok
}

// writeRaw writes s to the status pipe without allocating.
func writeRaw(s string) bool {
	_, err := unix.Write(StatusFD, unsafe.Slice(unsafe.StringData(s), len(s)))
	return err == nil
}

// CloseInheritedOnExec marks every descriptor from 3 up close-on-exec: a
// command starts with stdin, stdout and stderr only. close_range(2)
// (Linux 5.11) does it at once; older kernels get each open descriptor
// marked from /proc/self/fd.
func CloseInheritedOnExec() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
