package procagent

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// exitThenReap waits for the started cmd to exit, calls sweep, then reaps
// cmd. waitid leaves the exited command unreaped, so its pid — its
// process group's ID — stays taken while sweep signals the group: no
// process that reused the ID can be hit.
func exitThenReap(cmd *exec.Cmd, sweep func()) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EINTR) {
			sweep()
			return errors.Join(err, cmd.Wait())
		}
	}
	sweep()
	return cmd.Wait()
}
