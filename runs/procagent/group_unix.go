package procagent

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// setGroup makes cmd the leader of a new process group, whose ID is its pid.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends sig to every process of the group pgid. A group that
// is gone already is no error.
func killGroup(pgid int, sig syscall.Signal) {
	unix.Kill(-pgid, sig)
}

// signalOf words the signal that killed a process: "9 (SIGKILL)".
func signalOf(ps *os.ProcessState) (string, bool) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return "", false
	}
	sig := ws.Signal()
	if name := unix.SignalName(sig); name != "" {
		return fmt.Sprintf("%d (%s)", int(sig), name), true
	}
	return fmt.Sprintf("%d", int(sig)), true
}
