package rpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/internal/unixsock"
	"github.com/lunad/lunad/workspace"
)

// TestOneDaemonPerWorkspace checks the socket's mode, that a second daemon
// is refused with a clear error, and that the socket and the lock go with
// the daemon.
func TestOneDaemonPerWorkspace(t *testing.T) {
	svc := newService(t)
	stop := serveTest(t, svc, ServeOptions{})
	path := clientSocket(svc.StateDir())
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: %v %v", path, fi.Mode(), err)
	}
	_, err = Listen(svc)
	if !errors.Is(err, ErrDaemonRunning) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second daemon: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
	ln, err := Listen(svc)
	if err != nil {
		t.Fatalf("listen after the first daemon stopped: %v", err)
	}
	ln.Close()
}

// TestStaleSocketReplaced checks that a socket left by a daemon that died
// is replaced.
func TestStaleSocketReplaced(t *testing.T) {
	svc := newService(t)
	path, fallback, err := socketPath(svc.StateDir(), svc.Root())
	if err != nil {
		t.Fatal(err)
	}
	if fallback {
		if err := unixsock.PrivateDir(filepath.Dir(path)); err != nil {
			t.Fatal(err)
		}
	}
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close()
	if _, err := net.Dial("unix", path); err == nil {
		t.Fatal("the dead socket answers")
	}
	serveTest(t, svc, ServeOptions{})
	if _, err := clientTest(t, svc.Root()).List(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestLongPathSocket checks the socket of a workspace whose state
// directory is too deep for a unix socket path.
func TestLongPathSocket(t *testing.T) {
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(runtime)
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	svc, _, err := workspace.Init(deep, gitstore.Options{Human: gitstore.Signature{Name: "Ada", Email: "ada@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	stop := serveTest(t, svc, ServeOptions{})
	path := clientSocket(svc.StateDir())
	if !strings.HasPrefix(path, filepath.Join(runtime, "lunad")+"/") || len(path) > maxSockPath {
		t.Fatalf("socket %s", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory: %v %v", fi.Mode(), err)
	}
	c := clientTest(t, deep)
	if c.Root() != svc.Root() {
		t.Fatalf("root %s", c.Root())
	}
	c.Close()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Join(svc.StateDir(), addrName)} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s left behind: %v", p, err)
		}
	}
}
