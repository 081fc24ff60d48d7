package sandbox

import "golang.org/x/sys/unix"

// landlockABI asks the kernel for its Landlock ABI version
// (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION).
func landlockABI() (int, string) {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == 0:
		return int(abi), ""
	case errno == unix.ENOSYS:
		return 0, "the kernel has no Landlock (Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK)"
	case errno == unix.EOPNOTSUPP:
		return 0, "Landlock is built in but disabled (add landlock to the kernel's lsm= boot parameter)"
	}
	return 0, "landlock_create_ruleset: " + errno.Error()
}
