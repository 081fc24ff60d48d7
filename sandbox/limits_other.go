//go:build !linux

package sandbox

import (
	"os"
	"runtime"
)

// rlimitsEnforced: only Linux has prlimit(2), which sets a started
// process's limits; elsewhere a Runner's Results say the limits were not
// enforced.
const rlimitsEnforced = false

func setRlimit(pid, res int, soft, hard uint64) error { return nil }

func growPipe(f *os.File) {}

func landlockABI() (int, string) { return 0, "Landlock is Linux's" }

func processLimit() (mechanism, dir, note string) {
	return LimitNone, "", "not enforced on " + runtime.GOOS + ": only Linux has prlimit and pids cgroups"
}

func memoryLimit() (mechanism, dir, note string) {
	return LimitNone, "", "not enforced on " + runtime.GOOS + ": only Linux has prlimit and memory cgroups"
}
