package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// rlimitsEnforced: prlimit(2) sets a started process's limits.
const rlimitsEnforced = true

// setRlimit lowers process pid's limit res to soft and hard, never above
// the hard limit it has (which only a privileged process could raise).
func setRlimit(pid, res int, soft, hard uint64) error {
	var old unix.Rlimit
	if err := unix.Prlimit(pid, res, nil, &old); err != nil {
		return fmt.Errorf("sandbox: read rlimit %d of the command: %w", res, err)
	}
	lim := unix.Rlimit{Cur: min(soft, old.Max), Max: min(hard, old.Max)}
	if err := unix.Prlimit(pid, res, &lim, nil); err != nil {
		return fmt.Errorf("sandbox: set rlimit %d of the command: %w", res, err)
	}
	return nil
}

// growPipe makes a pipe hold 1 MiB (Linux's default is 64 KiB, and an
// unprivileged process may go up to /proc/sys/fs/pipe-max-size), so a
// command writing fast is read in fewer, larger reads. A refusal keeps
// the default.
func growPipe(f *os.File) {
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20) })
	}
}

func processLimit() (mechanism, dir, note string) { return processLimitLinux() }

func memoryLimit() (mechanism, dir, note string) { return memoryLimitLinux() }
