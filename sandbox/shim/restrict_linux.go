package shim

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// restrict restricts the calling thread — the one that will exec the
// command, which inherits the domain — with s's ruleset:
// landlock_create_ruleset, a landlock_add_rule per path,
// PR_SET_NO_NEW_PRIVS (which landlock_restrict_self requires of an
// unprivileged thread) and landlock_restrict_self. Only that thread is
// restricted: the caller has locked it (runtime.LockOSThread), and the
// process's other threads end at the exec.
func restrict(s Spec) error {
	attr := unix.LandlockRulesetAttr{Handled_access_fs: s.FS, Handled_access_net: s.Net, Scoped: s.Scoped}
	// The size of the ABI's struct (handled_access_fs; _net from ABI 4;
	// scoped from ABI 6): x/sys's has the fields of later ABIs too.
	size := unsafe.Sizeof(attr.Handled_access_fs)
	switch {
	case s.ABI >= 6:
		size *= 3
	case s.ABI >= 4:
		size *= 2
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset (ABI %d, fs %#x, net %#x, scoped %#x): %w", s.ABI, s.FS, s.Net, s.Scoped, errno)
	}
	ruleset := int(fd)
	defer unix.Close(ruleset)
	for _, r := range s.Paths {
		if err := addPathRule(ruleset, r); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// addPathRule grants r.Access beneath r.Path (only the file rights when
// it is not a directory); a path the sandbox lacks is skipped.
func addPathRule(ruleset int, r PathRule) error {
	fd, err := unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s for a Landlock rule: %w", r.Path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s for a Landlock rule: %w", r.Path, err)
	}
	access := r.Access
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= FileRights
	}
	if access == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule %s (access %#x): %w", r.Path, access, errno)
	}
	return nil
}
