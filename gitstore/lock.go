package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lunad/lunad"
)

// wsLock is the workspace's writer lock: an flock on .git/luna/lock. Every
// lunad process takes it around each batch of commits, so there is one
// writer at a time across processes. The kernel drops it when a process
// dies, so a SIGKILLed writer never leaves the workspace locked. It is the
// checkout's (in a linked worktree, in that worktree's git dir): writers
// of two worktrees, each on its own branch, need not wait for each other
// (docs/architecture.md, "Linked worktrees"). The same type is the runs
// lock, which is the repository's (runlog.go).
type wsLock struct {
	f *os.File
	// inherited is set when the lock was taken over from a holder that
	// died holding it: the lock file still named it. Its batch may have
	// left ref or index locks and pending paths behind.
	inherited bool
	held      bool // between lock and unlock
}

func openLock(path string) (*wsLock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil && (errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES)) {
		// A read-only workspace can still be read; writes fail with a
		// clear error when they try to write objects.
		f, err = os.Open(path)
	}
	if err != nil {
		return nil, fmt.Errorf("open workspace lock: %w", err)
	}
	return &wsLock{f: f}, nil
}

// lock waits up to timeout (and while ctx lives) for the lock. It returns
// ErrLocked, naming the holder's pid, when the wait runs out.
func (l *wsLock) lock(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	delay := 200 * time.Microsecond
	for {
		err := unix.Flock(int(l.f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			if l.holder() != "unknown" {
				l.inherited = true
			}
			// One fixed-width write replaces the dead holder's pid with
			// ours: a process killed at any point leaves one of the two,
			// never an empty file, so the next holder still knows.
			l.f.WriteAt(fmt.Appendf(nil, "%-15d\n", os.Getpid()), 0)
			l.held = true
			return nil
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			return fmt.Errorf("lock workspace: %w", err)
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w (pid %s) for more than %v; wait for it to finish or stop it", lunad.ErrLocked, l.holder(), timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		if delay < 20*time.Millisecond {
			delay *= 2
		}
	}
}

func (l *wsLock) holder() string {
	b := make([]byte, 32)
	n, _ := l.f.ReadAt(b, 0)
	if s := strings.TrimSpace(string(b[:n])); s != "" {
		return s
	}
	return "unknown"
}

// unlock empties the lock file (a clean release) and releases the lock.
func (l *wsLock) unlock() error {
	l.held = false
	l.f.Truncate(0)
	return unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
}

func (l *wsLock) close() error { return l.f.Close() }
