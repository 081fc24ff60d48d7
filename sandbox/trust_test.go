package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustedExecutable attacks the bwrap lunad would run with
// executables another user could have planted or could change: each
// must be refused, naming the path that lets them.
func TestTrustedExecutable(t *testing.T) {
	real := hostCaps(t).Bwrap
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // the executable's path
		err   string                                // "" when it is trusted
	}{
		{"the distribution's", func(*testing.T, string) string { return real }, ""},
		{"in a sticky directory", func(t *testing.T, dir string) string {
			return executable(t, mkdir(t, dir, "sticky", 0o777|os.ModeSticky), 0o755)
		}, ""},
		{"in a directory others can write", func(t *testing.T, dir string) string {
			return executable(t, mkdir(t, dir, "open", 0o777), 0o755)
		}, "/open is writable by others than its owner (mode 0777)"},
		{"a file others can write", func(t *testing.T, dir string) string {
			return executable(t, dir, 0o757)
		}, "/bwrap is writable by others than its owner (mode 0757)"},
		{"owned by another user", func(t *testing.T, dir string) string {
			p := executable(t, dir, 0o755)
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return p
		}, "/bwrap is owned by uid 65534, neither root nor lunad's user"},
		{"a directory above owned by another user", func(t *testing.T, dir string) string {
			d := mkdir(t, dir, "theirs", 0o755)
			if err := os.Chown(d, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return executable(t, mkdir(t, d, "bin", 0o755), 0o755)
		}, "/theirs is owned by uid 65534"},
		{"a link in a directory others can write", func(t *testing.T, dir string) string {
			p := filepath.Join(mkdir(t, dir, "open", 0o777), "bwrap")
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
			return p
		}, "/open is writable by others than its owner (mode 0777)"},
		{"a link to a directory others can write", func(t *testing.T, dir string) string {
			target := executable(t, mkdir(t, dir, "open", 0o777), 0o755)
			p := filepath.Join(mkdir(t, dir, "bin", 0o755), "bwrap")
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			return p
		}, "/open is writable by others than its owner (mode 0777)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := trustedExecutable(tt.setup(t, outsideTmp(t)))
			if tt.err == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("= %v; want an error saying %q", err, tt.err)
			}
		})
	}
}

// TestProbeRefusesUntrustedBwrap: a bwrap first on PATH in a directory
// anyone can write is not run at all — not even for its version — and
// the sandbox is unusable, saying why.
func TestProbeRefusesUntrustedBwrap(t *testing.T) {
	hostCaps(t)
	dir := mkdir(t, outsideTmp(t), "open", 0o777)
	ran := filepath.Join(dir, "ran")
	script := "#!/bin/sh\necho \"$@\" >> " + ran + "\nexec " + hostCaps(t).Bwrap + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	c := Probe(context.Background())
	if c.Usable() || c.Bwrap != filepath.Join(dir, "bwrap") || !strings.Contains(c.BwrapUntrusted, "is writable by others than its owner") {
		t.Fatalf("an untrusted bwrap:\n%s", c)
	}
	if b, err := os.ReadFile(ran); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the untrusted bwrap ran: %q, %v", b, err)
	}
	want := "bwrap: WARNING: the bwrap at " + c.Bwrap + " is not run: "
	if !strings.Contains(c.String(), want) || !strings.Contains(c.String(), "sandbox: unusable: the bwrap at ") {
		t.Errorf("String() lacks %q:\n%s", want, c)
	}
	var unavailable *UnavailableError
	if _, err := New(c, Options{}); !errors.As(err, &unavailable) || !strings.Contains(err.Error(), "first on lunad's PATH") {
		t.Errorf("New over an untrusted bwrap: %v", err)
	}
}

// mkdir makes the directory name under parent with mode (set as is,
// whatever the umask).
func mkdir(t *testing.T, parent, name string, mode os.FileMode) string {
	t.Helper()
	d := filepath.Join(parent, name)
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, mode); err != nil {
		t.Fatal(err)
	}
	return d
}

// executable writes a script named bwrap in dir with mode.
func executable(t *testing.T, dir string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, "bwrap")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}
