//go:build unix

package process

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd as the leader of its own process group and makes its
// cancellation (the timeout) kill the whole group.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
