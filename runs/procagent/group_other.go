//go:build unix && !linux

package procagent

import "os/exec"

// exitThenReap waits for the started cmd to exit and be reaped, then calls
// sweep. (Without Linux's waitid, the group is signalled after its leader
// is reaped: its ID could in principle have been reused in between.)
func exitThenReap(cmd *exec.Cmd, sweep func()) error {
	err := cmd.Wait()
	sweep()
	return err
}
