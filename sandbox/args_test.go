package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestBwrapArgsGolden pins bwrap's arguments for a full plan, one per
// line (testdata/bwrap_args.golden; go test -run BwrapArgs -update).
func TestBwrapArgsGolden(t *testing.T) {
	p := &plan{
		argv:     []string{"go", "test", "./..."},
		root:     "/home/u/ws",
		rootSrc:  "/data/ws",
		dir:      "/home/u/ws/pkg",
		readOnly: []string{"/home/u/ws/.git"},
		missing:  []string{"/home/u/ws/.luna"},
		home:     "/home/u/.cache/lunad/home",
		userHome: "/home/u",
		binds:    []Bind{{Path: "/home/u/go/pkg/mod"}, {Path: "/var/lunad/reports", Writable: true}},
		limits:   Limits{Memory: 256 << 20},

		hiddenFiles: []string{"/home/u/ws/key.pem"},
		hiddenDirs:  []string{"/home/u/ws/config/secrets"},
	}
	mounts := []string{"--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--ro-bind", "/dev/null", "/etc/shadow"}
	for _, net := range []bool{false, true} {
		p.network = net
		name := "bwrap_args.golden"
		if net {
			name = "bwrap_args_network.golden"
		}
		golden(t, name, strings.Join(bwrapArgs(p, bwrapConfig{mounts: mounts, seccompFD: 7}), "\n")+"\n")
	}
	p.network = false
	golden(t, "bwrap_args_landlock.golden", strings.Join(bwrapArgs(p, bwrapConfig{mounts: mounts, shim: "/opt/lunad/bin/lunad", seccompFD: 7, uid: sandboxUID}), "\n")+"\n")
}

// golden compares got with testdata/name (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant (%s):\n%s", got, path, want)
	}
}

// TestSystemMounts checks this host's system mounts: the system
// directories read-only, never / nor a home, and the secrets of /etc
// covered.
func TestSystemMounts(t *testing.T) {
	m := systemMounts()
	if !containsSeq(m, "--ro-bind", "/usr", "/usr") {
		t.Errorf("/usr is not bound read-only: %q", m)
	}
	for i, a := range m {
		if a == "--bind" {
			t.Errorf("a writable bind among the system mounts: %q", m[i:min(i+3, len(m))])
		}
		if (a == "--ro-bind" || a == "--bind") && i+1 < len(m) {
			src := m[i+1]
			if src == "/" || src == "/home" || src == "/root" || src == "/tmp" || src == "/var" {
				t.Errorf("the system mounts bind %s: %q", src, m)
			}
		}
	}
	if _, err := os.Stat("/etc/shadow"); err == nil && !containsSeq(m, "--ro-bind", "/dev/null", "/etc/shadow") {
		t.Errorf("/etc/shadow is not covered: %q", m)
	}
}

func containsSeq(list []string, seq ...string) bool {
	for i := range list {
		if i+len(seq) <= len(list) && slices.Equal(list[i:i+len(seq)], seq) {
			return true
		}
	}
	return false
}
