package unixsock

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestListen: the socket is mode 0600 even under umask 0; a live socket
// is not taken over (ErrInUse), nor a file that is not a socket; a socket
// left by a dead server is replaced; no temporary directory is left.
func TestListen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.sock")
	old := syscall.Umask(0)
	ln, err := Listen(path)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("%s: %v, want a socket of mode 0600", path, err)
	}
	if _, err := Listen(path); !errors.Is(err, ErrInUse) {
		t.Errorf("Listen on a live socket = %v, want ErrInUse", err)
	}
	ln.Close() // leaves the file: a dead server's socket
	ln2, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen over a dead socket: %v", err)
	}
	ln2.Close()
	c, err := net.Dial("unix", path)
	if err == nil {
		c.Close()
		t.Error("a closed listener still answers")
	}

	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("mine\n"), 0o644)
	if _, err := Listen(file); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("Listen over a regular file = %v, want it refused", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "mine\n" {
		t.Errorf("the file was replaced: %q", b)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".s*"))
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestPrivateDir: a missing directory is made 0700; one that others can
// enter, a symbolic link to a directory, or another user's directory is
// refused with a message saying what to do.
func TestPrivateDir(t *testing.T) {
	base := t.TempDir()
	mine := filepath.Join(base, "mine")
	if err := PrivateDir(mine); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(mine); fi.Mode().Perm() != 0o700 {
		t.Errorf("made with mode %v, want 0700", fi.Mode())
	}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	link := filepath.Join(base, "link")
	os.Symlink(mine, link)
	cases := map[string]string{"readable by others": open, "a symbolic link": link}
	if os.Getuid() == 0 {
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases["another user's"] = other
	}
	for name, dir := range cases {
		t.Run(name, func(t *testing.T) {
			if err := PrivateDir(dir); err == nil || !strings.Contains(err.Error(), "mode 0700") {
				t.Errorf("PrivateDir(%s) = %v, want it refused", dir, err)
			}
		})
	}
}
