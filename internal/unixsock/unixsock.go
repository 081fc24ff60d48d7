package unixsock

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrInUse: something answers on the socket path Listen was given.
var ErrInUse = errors.New("something answers on the socket")

// Listen makes a listening unix socket at path with mode 0600: it is
// bound in a fresh 0700 directory beside path, chmodded, then renamed into
// place, so it is never reachable with a wider mode. A socket left at path
// by a process that died (connecting is refused) is replaced; a live one
// is not (an error wrapping ErrInUse), nor anything that is not a socket.
// The listener does not remove path when closed: the caller does.
func Listen(path string) (*net.UnixListener, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() != os.ModeSocket {
		return nil, fmt.Errorf("%s exists and is not a socket; choose another path or remove it", path)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("%w %s; stop what serves it or choose another path", ErrInUse, path)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".s")
	if err != nil {
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	defer os.RemoveAll(tmp)
	bound := filepath.Join(tmp, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: bound, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false) // it is renamed; the caller removes it
	if err := os.Chmod(bound, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	if err := os.Rename(bound, path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	return ln, nil
}

// BindPath is the longest path Listen binds for a socket in dir, which
// must fit a unix socket address.
func BindPath(dir string) string { return filepath.Join(dir, ".s0123456789", "s") }

// PrivateDir makes dir (mode 0700) if needed and checks that it is a
// directory, not a symbolic link, owned by the caller's user, that nobody
// else can enter.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return CheckPrivateDir(dir)
}

// CheckPrivateDir is PrivateDir's check without making dir: an error
// wrapping fs.ErrNotExist when dir is missing, else one saying what to
// do when dir is not a directory of the caller's user that nobody else
// can enter.
func CheckPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("directory %s must be a directory owned by uid %d with mode 0700 (chmod 700 it, or remove it)", dir, os.Getuid())
	}
	return nil
}
