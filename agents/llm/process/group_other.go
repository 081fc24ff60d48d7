//go:build !unix

package process

import "os/exec"

// inGroup leaves cmd as it is: without process groups, the timeout kills
// the command only.
func inGroup(cmd *exec.Cmd) {}
