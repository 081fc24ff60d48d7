package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// TestNewPlanRefuses checks every Spec that Run refuses: each is
// ErrInvalid with a message naming the field and what to do.
func TestNewPlanRefuses(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	root := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{home, root, filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ok := Spec{Argv: []string{"true"}, Root: root}
	tests := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"no argv", func(s *Spec) { s.Argv = nil }, "Spec.Argv is empty"},
		{"an empty program", func(s *Spec) { s.Argv = []string{""} }, "Spec.Argv is empty"},
		{"a NUL in an argument", func(s *Spec) { s.Argv = []string{"echo", "a\x00b"} }, "NUL byte"},
		{"a relative root", func(s *Spec) { s.Root = "ws" }, `Spec.Root "ws" is not an absolute path`},
		{"a missing root", func(s *Spec) { s.Root = filepath.Join(base, "nope") }, "no such file"},
		{"root is a file", func(s *Spec) { s.Root = filepath.Join(root, "file") }, "is not a directory"},
		{"root is /", func(s *Spec) { s.Root = "/" }, "holds /usr: a command would be let write the system"},
		{"root is /tmp", func(s *Spec) { s.Root = "/tmp" }, "holds /tmp"},
		{"root holds the user's home", func(s *Spec) { s.Root = base }, "holds the user's home"},
		{"root is the user's home", func(s *Spec) { s.Root = home }, "holds the user's home"},
		{"dir outside root", func(s *Spec) { s.Dir = outside }, "Spec.Dir " + outside + " is outside the workspace"},
		{"dir climbing out", func(s *Spec) { s.Dir = root + "/../outside" }, "is outside the workspace"},
		{"dir escaping through a symlink", func(s *Spec) { s.Dir = filepath.Join(root, "escape") }, "leads outside the workspace"},
		{"dir relative", func(s *Spec) { s.Dir = "sub" }, `Spec.Dir "sub" is not an absolute path`},
		{"dir is a file", func(s *Spec) { s.Dir = filepath.Join(root, "file") }, "is not a directory"},
		{"read-only path outside root", func(s *Spec) { s.ReadOnly = []string{outside} }, "Spec.ReadOnly " + outside + " is outside the workspace"},
		{"home is the user's home", func(s *Spec) { s.Home = home }, "Spec.Home " + home + " holds the user's home"},
		{"home missing", func(s *Spec) { s.Home = filepath.Join(base, "nohome") }, "is not a directory: make it first"},
		{"bind of the user's home", func(s *Spec) { s.Binds = []Bind{{Path: base}} }, "Spec.Binds " + base + " holds the user's home"},
		{"bind of /", func(s *Spec) { s.Binds = []Bind{{Path: "/"}} }, "Spec.Binds / holds the user's home"},
		{"bind inside root", func(s *Spec) { s.Binds = []Bind{{Path: filepath.Join(root, "sub")}} }, "overlaps the workspace"},
		{"bind missing", func(s *Spec) { s.Binds = []Bind{{Path: filepath.Join(base, "nobind")}} }, "no such file"},
		{"a bad variable name", func(s *Spec) { s.Env = map[string]string{"A=B": "x"} }, `variable name "A=B"`},
		{"a NUL in a variable", func(s *Spec) { s.Env = map[string]string{"A": "x\x00"} }, "Spec.Env[A] contains a NUL byte"},
		{"a negative timeout", func(s *Spec) { s.Timeout = -time.Second }, "negative timeout or limit"},
		{"a negative limit", func(s *Spec) { s.Limits.Output = -1 }, "negative timeout or limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			tt.edit(&s)
			p, err := newPlan(s, home)
			if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("newPlan = %+v, %v; want ErrInvalid saying %q", p, err, tt.want)
			}
		})
	}
	if _, err := newPlan(ok, home); err != nil {
		t.Fatalf("the base spec: %v", err)
	}
}

// TestNewPlanResolves checks defaults, a symlinked root, and the paths
// kept read-only that do not exist.
func TestNewPlanResolves(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.MkdirAll(filepath.Join(real, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	p, err := newPlan(Spec{
		Argv:     []string{"true"},
		Root:     link + "/",
		ReadOnly: []string{link + "/.git", link + "/.luna", link + "/a/b/c"},
		Limits:   Limits{CPU: time.Second},
	}, "/home/someone")
	if err != nil {
		t.Fatal(err)
	}
	if p.root != link || p.rootSrc != real || p.dir != link {
		t.Errorf("root %q src %q dir %q; want %q, %q, %q", p.root, p.rootSrc, p.dir, link, real, link)
	}
	if want := []string{link + "/.git"}; strings.Join(p.readOnly, ",") != strings.Join(want, ",") {
		t.Errorf("readOnly %q, want %q", p.readOnly, want)
	}
	if want := []string{link + "/.luna", link + "/a/b/c"}; strings.Join(p.missing, ",") != strings.Join(want, ",") {
		t.Errorf("missing %q, want %q", p.missing, want)
	}
	if want := []string{link + "/a/b/c", link + "/a/b", link + "/.luna", link + "/a"}; strings.Join(p.created, ",") != strings.Join(want, ",") {
		t.Errorf("created %q, want deepest first %q", p.created, want)
	}
	want := DefaultLimits
	want.CPU = time.Second
	if p.limits != want || p.timeout != DefaultTimeout || p.grace != DefaultGrace {
		t.Errorf("limits %+v timeout %v grace %v; want %+v, %v, %v", p.limits, p.timeout, p.grace, want, DefaultTimeout, DefaultGrace)
	}
	if p.userHome != "/home/someone" {
		t.Errorf("userHome %q", p.userHome)
	}
}
