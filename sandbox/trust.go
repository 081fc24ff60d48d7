package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// trustedExecutable says how the executable at path (bwrap: lunad runs it
// with its own privileges and trusts it to confine commands) could be
// replaced or changed by someone other than root or lunad's own user; nil
// when it cannot. The file, every symlink on the way to it and every
// directory above each must be owned by root or lunad's user, and none
// writable by group or others — but for a sticky directory (/tmp), where
// others cannot rename or remove what is not theirs. A symlink's own mode
// means nothing, so only its owner and directory count.
func trustedExecutable(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	for _, p := range []string{filepath.Clean(path), real} {
		for {
			if err := trustedEntry(p); err != nil {
				return err
			}
			if p == "/" || p == "." {
				break
			}
			p = filepath.Dir(p)
		}
	}
	return nil
}

// trustedEntry says how the file at p itself (not what a symlink points
// to) could be changed by someone other than root or lunad's user.
func trustedEntry(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, neither root nor lunad's user", p, st.Uid)
	}
	switch mode := fi.Mode(); {
	case mode&os.ModeSymlink != 0:
	case mode.Perm()&0o022 == 0:
	case mode.IsDir() && mode&os.ModeSticky != 0:
	default:
		return fmt.Errorf("%s is writable by others than its owner (mode %04o)", p, mode.Perm())
	}
	return nil
}
