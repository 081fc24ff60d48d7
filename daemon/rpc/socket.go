package rpc

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/lunad/lunad/internal/gitdir"
	"github.com/lunad/lunad/internal/unixsock"
)

// Where a workspace's daemon lives, all in the store's state directory
// <git dir>/luna (beside the store's own lock and caches, outside the
// working tree; in a linked worktree the git dir is its own,
// <main>/.git/worktrees/NAME, so each worktree has its own daemon):
//
//	daemon.sock  the unix socket (mode 0600) clients connect to
//	daemon.addr  the socket's path when daemon.sock would be longer than
//	             a unix socket path may be (see socketPath)
//	daemon.lock  flocked by the daemon for as long as it serves: the arbiter
//	             that makes one daemon per workspace
//	lunad.log    the log of an auto-started daemon
const (
	sockName = "daemon.sock"
	addrName = "daemon.addr"
	lockName = "daemon.lock"
	// LogName is the log file of an auto-started daemon, in the state
	// directory.
	LogName = "lunad.log"
)

// maxSockPath bounds a socket path: sun_path is 108 bytes on Linux and 104
// on macOS and the BSDs, including the terminating NUL.
const maxSockPath = 103

// ErrDaemonRunning: another daemon already serves the workspace.
var ErrDaemonRunning = errors.New("another lunad daemon serves this workspace")

// Located is what Listen needs of the served workspace: where it is
// (workspace.Service has it).
type Located interface {
	Root() string
	// StateDir is the directory where the store keeps its lock and caches
	// and the daemon its socket and log: <git dir>/luna.
	StateDir() string
}

// StateDir returns the state directory of the workspace at or above dir
// (see Located.StateDir) and the workspace root, without opening it: the
// checkout's own git dir (gitdir.Find), so that each linked
// worktree has its own daemon. Returns lunad.ErrNotWorkspace if there is
// no git checkout there.
func StateDir(dir string) (state, root string, err error) {
	co, err := gitdir.Find(dir)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(co.GitDir, "luna"), co.Root, nil
}

// socketPath is where the daemon of the workspace at root listens:
// <state>/daemon.sock, or, when that path is too long for a unix socket
// (the bind goes through a temporary directory beside it, see Listen),
// <dir>/<sha256(root)[:16]>.sock in a private directory: $XDG_RUNTIME_DIR/lunad
// or else <tmp>/lunad-<uid>. The second form is recorded in daemon.addr
// for clients.
func socketPath(state, root string) (path string, fallback bool, err error) {
	if p := filepath.Join(state, sockName); len(bindPath(state)) <= maxSockPath {
		return p, false, nil
	}
	dir := filepath.Join(os.TempDir(), "lunad-"+strconv.Itoa(os.Getuid()))
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		dir = filepath.Join(x, "lunad")
	}
	sum := sha256.Sum256([]byte(root))
	p := filepath.Join(dir, hex.EncodeToString(sum[:])[:16]+".sock")
	if len(bindPath(dir)) > maxSockPath {
		return "", false, fmt.Errorf("socket path %s is longer than a unix socket path may be; set XDG_RUNTIME_DIR to a shorter directory", p)
	}
	return p, true, nil
}

// bindPath is the longest path Listen binds in dir (unixsock.Listen).
func bindPath(dir string) string { return unixsock.BindPath(dir) }

// clientSocket is the socket clients of the workspace dial: daemon.addr's
// content if that file exists, else <state>/daemon.sock.
func clientSocket(state string) string {
	if b, err := os.ReadFile(filepath.Join(state, addrName)); err == nil {
		if p := strings.TrimSpace(string(b)); filepath.IsAbs(p) {
			return p
		}
	}
	return filepath.Join(state, sockName)
}

// socketListener is the daemon's listener. Close stops accepting, removes
// the socket (and daemon.addr) and releases the daemon lock.
type socketListener struct {
	*net.UnixListener
	path, addrFile string
	lock           *os.File
	once           sync.Once
	err            error
}

// Path is the socket's path.
func (l *socketListener) Path() string { return l.path }

func (l *socketListener) Close() error {
	l.once.Do(func() {
		l.err = l.UnixListener.Close()
		os.Remove(l.path)
		if l.addrFile != "" {
			os.Remove(l.addrFile)
		}
		l.lock.Close() // releases the flock
	})
	return l.err
}

// Listen makes the listening socket of svc's workspace (see socketPath),
// mode 0600. It holds the workspace's daemon lock until the listener is
// closed, so there is one daemon per workspace: if another daemon holds
// it, or answers on the socket, Listen returns an error wrapping
// ErrDaemonRunning that names it. A socket file left by a daemon that died
// (connecting is refused) is replaced.
func Listen(svc Located) (net.Listener, error) {
	state, root := svc.StateDir(), svc.Root()
	path, fallback, err := socketPath(state, root)
	if err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(state, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder := readPID(lock)
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (pid %s, socket %s); use it, or stop it first", ErrDaemonRunning, holder, clientSocket(state))
		}
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	lock.Truncate(0)
	lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	ln, err := listenAt(path, fallback)
	if err != nil {
		lock.Close()
		return nil, err
	}
	l := &socketListener{UnixListener: ln, path: path, lock: lock}
	addrFile := filepath.Join(state, addrName)
	if fallback {
		l.addrFile = addrFile
		if err := os.WriteFile(addrFile, []byte(path+"\n"), 0o600); err != nil {
			l.Close()
			return nil, fmt.Errorf("daemon address: %w", err)
		}
	} else {
		os.Remove(addrFile) // left by an earlier daemon that used another path
	}
	return l, nil
}

// listenAt binds a unix socket at path with mode 0600 (unixsock.Listen),
// in a private directory when it is the fallback.
func listenAt(path string, fallback bool) (*net.UnixListener, error) {
	if fallback {
		if err := unixsock.PrivateDir(filepath.Dir(path)); err != nil {
			return nil, err
		}
	}
	ln, err := unixsock.Listen(path)
	if errors.Is(err, unixsock.ErrInUse) {
		return nil, fmt.Errorf("%w: something answers on %s", ErrDaemonRunning, path)
	}
	if err != nil {
		return nil, fmt.Errorf("daemon socket: %w", err)
	}
	return ln, nil
}

func readPID(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if s := strings.TrimSpace(string(b[:n])); s != "" {
		return s
	}
	return "unknown"
}
