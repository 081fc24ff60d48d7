package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/sandbox/shim"
)

// The tests below run each command twice where it matters: in a sandbox
// with Landlock beneath bwrap, and in one without (the same host's
// capabilities with Landlock taken away), so that each shows what
// Landlock itself refuses.

// landlockRunners are a sandboxing Runner with Landlock and one without,
// sharing the user's home.
func landlockRunners(t *testing.T) (with, without *Runner, home string) {
	t.Helper()
	with, home = newRunner(t)
	if filepath.Base(with.shim) != ShimName {
		t.Fatalf("the Landlock tests run commands through %q, not %s", with.shim, ShimName)
	}
	if with.caps.LandlockApplied != "files, tcp, scopes" || with.shim == "" {
		t.Fatalf("this host's Landlock (ABI %d: %q, applied %q) cannot run the Landlock tests: they need ABI 6 or later", with.caps.Landlock, with.caps.LandlockError, with.caps.LandlockApplied)
	}
	caps := with.caps
	caps.Landlock, caps.LandlockError, caps.LandlockApplied = 0, "taken away by the test", ""
	without, err := New(caps, Options{UserHome: home, AllowRootWithoutLandlock: true})
	if err != nil {
		t.Fatal(err)
	}
	if without.shim != "" {
		t.Fatal("a Runner without Landlock uses the shim")
	}
	return with, without, home
}

// tcpScript binds a TCP socket on loopback, listens, and connects to it
// (or, when the bind was refused, to port 9), printing each outcome.
const tcpScript = `
import errno, socket
def name(e): return errno.errorcode.get(e.errno, str(e))
port = 9
try:
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(); port = srv.getsockname()[1]; print("bind ok")
except OSError as e: print("bind", name(e))
try:
    socket.create_connection(("127.0.0.1", port), timeout=5); print("connect ok")
except OSError as e: print("connect", name(e))
`

// TestLandlockTCP: without the network, every TCP bind and connect is
// refused (EACCES) even on the sandbox's own loopback, where bwrap alone
// lets a command listen and connect to itself; with Spec.Network, TCP is
// left to the network namespace.
func TestLandlockTCP(t *testing.T) {
	t.Parallel()
	with, without, _ := landlockRunners(t)
	root := workspace(t, t.TempDir())
	tests := []struct {
		name     string
		r        *Runner
		network  bool
		want     string
		landlock string
	}{
		{"landlock", with, false, "bind EACCES\nconnect EACCES\n", "files, tcp, scopes"},
		{"bwrap alone", without, false, "bind ok\nconnect ok\n", ""},
		{"landlock with the network", with, true, "bind ok\nconnect ok\n", "files, scopes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runWithin(t, tt.r, Spec{Argv: []string{"python3", "-c", tcpScript}, Root: root, Network: tt.network}, 30*time.Second)
			if res.Stdout.Text != tt.want || res.Landlock != tt.landlock {
				t.Errorf("stdout %q, Landlock %q; want %q, %q (stderr %q)", res.Stdout.Text, res.Landlock, tt.want, tt.landlock, res.Stderr.Text)
			}
		})
	}
}

// TestLandlockFiles: what bwrap's mounts allow but the rules leave out
// is refused — writing the sandbox's root (a writable tmpfs under bwrap),
// the tmpfs over the user's home when the command has a home of its own,
// listing / — while what commands need still works: the workspace, /tmp,
// their home, /dev/shm, /dev/null (truncated by >), renaming between
// directories (REFER), and running programs from the system, from /tmp
// and from the workspace (go test builds its binaries in TMPDIR).
func TestLandlockFiles(t *testing.T) {
	t.Parallel()
	with, without, home := landlockRunners(t)
	root := workspace(t, t.TempDir())
	cmdHome := outsideTmp(t)
	refused := []struct{ name, script string }{
		{"the sandbox's root", "mkdir /lunad-escape"},
		{"the user's home tmpfs", "touch " + home + "/lunad-escape"},
		{"listing /", "ls /"},
	}
	for _, tt := range refused {
		t.Run("refused: "+tt.name, func(t *testing.T) {
			t.Parallel()
			spec := Spec{Argv: sh(tt.script), Root: root, Home: cmdHome}
			if res := runWithin(t, without, spec, 20*time.Second); res.ExitCode != 0 {
				t.Fatalf("bwrap alone refused it already (exit %d, stderr %q): the test shows nothing of Landlock", res.ExitCode, res.Stderr.Text)
			}
			res := runWithin(t, with, spec, 20*time.Second)
			if res.ExitCode == 0 || !strings.Contains(res.Stderr.Text, "Permission denied") {
				t.Errorf("with Landlock: exit %d, stderr %q; want Permission denied", res.ExitCode, res.Stderr.Text)
			}
		})
	}
	works := strings.Join([]string{
		"set -e",
		"echo ws > ws-file", "echo tmp > /tmp/f", "echo home > $HOME/f", "echo shm > /dev/shm/f",
		"echo discarded > /dev/null", "head -c 4 /dev/urandom > /dev/null",
		"mkdir -p a b && echo moved > a/f",
		`python3 -c 'import os; os.rename("a/f", "b/f")'`,
		"cp /bin/true /tmp/true && /tmp/true", "cp /bin/echo ./echo && ./echo ran",
	}, "\n")
	res := runWithin(t, with, Spec{Argv: sh(works), Root: root, Home: cmdHome}, 20*time.Second)
	if res.ExitCode != 0 || res.Stdout.Text != "ran\n" || res.Landlock == "" {
		t.Fatalf("with Landlock: exit %d, stdout %q, stderr %q, Landlock %q", res.ExitCode, res.Stdout.Text, res.Stderr.Text, res.Landlock)
	}
	for path, want := range map[string]string{filepath.Join(root, "ws-file"): "ws\n", filepath.Join(cmdHome, "f"): "home\n", filepath.Join(root, "b", "f"): "moved\n"} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", path, b, err, want)
		}
	}
}

// TestLandlockScopes: a command let on the network shares lunad's
// network namespace, and with it its abstract unix sockets; Landlock's
// scope (ABI 6) keeps it from connecting to one made outside the
// sandbox.
func TestLandlockScopes(t *testing.T) {
	t.Parallel()
	with, without, _ := landlockRunners(t)
	name := fmt.Sprintf("lunad-sandbox-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	script := `
import errno, socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0` + name + `"); print("connected")
except OSError as e: print(errno.errorcode.get(e.errno, str(e)))
`
	root := workspace(t, t.TempDir())
	for _, tt := range []struct {
		name string
		r    *Runner
		want string
	}{{"landlock", with, "EPERM\n"}, {"bwrap alone", without, "connected\n"}} {
		t.Run(tt.name, func(t *testing.T) {
			res := runWithin(t, tt.r, Spec{Argv: []string{"python3", "-c", script}, Root: root, Network: true}, 20*time.Second)
			if res.Stdout.Text != tt.want {
				t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout.Text, tt.want, res.Stderr.Text)
			}
		})
	}
}

// TestShimStartErrors: a command the shim cannot start is Run's
// *StartError, saying which program and why, and nothing ran.
func TestShimStartErrors(t *testing.T) {
	t.Parallel()
	with, _, _ := landlockRunners(t)
	root := workspace(t, t.TempDir())
	if err := os.WriteFile(filepath.Join(root, "not-executable"), []byte("#!/bin/sh\ntouch ran\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		argv     []string
		code     int
		sentinel error
		reason   string
	}{
		{"a missing program", []string{"/no/such/program", "arg"}, 127, lunad.ErrNotFound, `program "/no/such/program" is not in the sandbox`},
		{"a file that is not executable", []string{"./not-executable"}, 126, lunad.ErrInvalid, `program "./not-executable": `},
		{"a missing interpreter", []string{"./script"}, 127, lunad.ErrNotFound, "exec ./script: no such file or directory"},
	}
	if err := os.WriteFile(filepath.Join(root, "script"), []byte("#!/no/such/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := with.Run(t.Context(), Spec{Argv: tt.argv, Root: root})
			var se *StartError
			if !errors.As(err, &se) || se.Code != tt.code || !errors.Is(err, tt.sentinel) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("Run = %+v, %v; want a *StartError %d wrapping %v saying %q", res, err, tt.code, tt.sentinel, tt.reason)
			}
			if _, err := os.Stat(filepath.Join(root, "ran")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the command ran: %v", err)
			}
		})
	}
}

// TestCapabilitiesLandlock: what doctor says of Landlock at each ABI,
// and that a Runner uses the shim only where Landlock is applied.
func TestCapabilitiesLandlock(t *testing.T) {
	usable := Capabilities{Bwrap: "/usr/bin/bwrap", Namespaces: true, Network: true, Hardened: true, ProcessLimit: LimitRlimit}
	tests := []struct {
		name    string
		abi     int
		usable  bool
		applied string
		line    string
	}{
		{"ABI 7", 7, true, "files, tcp, scopes", "landlock: ABI 7 (applied: files, tcp, scopes)"},
		{"a newer kernel", 9, true, "files, tcp, scopes", "landlock: ABI 9 (applied: files, tcp, scopes)"},
		{"ABI 5", 5, true, "files, tcp", "landlock: ABI 5 (applied: files, tcp)"},
		{"ABI 3", 3, true, "files", "landlock: ABI 3 (applied: files)"},
		{"ABI 1", 1, true, "", "landlock: ABI 1 (not applied: ABI 1 cannot let commands rename between directories; bwrap alone is the sandbox)"},
		{"no Landlock", 0, true, "", "landlock: unavailable: the kernel has none (bwrap alone is the sandbox)"},
		{"no sandbox", 7, false, "", "landlock: ABI 7 (not applied: no usable sandbox)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Capabilities{ProcessLimit: LimitRlimit}
			if tt.usable {
				c = usable
			}
			c.Landlock = tt.abi
			if tt.abi == 0 {
				c.LandlockError = "the kernel has none"
			}
			if got := c.landlockApplied(); got != tt.applied {
				t.Errorf("applied %q; want %q", got, tt.applied)
			}
			if !strings.Contains(c.String(), tt.line+"\n") {
				t.Errorf("String() lacks %q:\n%s", tt.line, c)
			}
			r, err := New(c, Options{AllowUnsandboxed: true, Shim: "/bin/true"})
			if err != nil {
				t.Fatal(err)
			}
			if (r.shim != "") != (tt.applied != "") {
				t.Errorf("the Runner's shim %q with Landlock applied %q", r.shim, tt.applied)
			}
		})
	}
	if _, err := New(Capabilities{Bwrap: "/usr/bin/bwrap", Namespaces: true, Network: true, Hardened: true, Landlock: 7}, Options{Shim: "/no/such/lunad"}); !errors.Is(err, lunad.ErrNotFound) || !strings.Contains(err.Error(), "/no/such/lunad (Options.Shim") {
		t.Errorf("New with a missing shim = %v; want ErrNotFound naming Options.Shim", err)
	}
}

// TestShimSpecGolden pins the shim's rules for a full plan at ABIs 7, 4
// and 2, with and without the network (testdata/shim_spec_*.golden; go
// test -run ShimSpecGolden -update), and that each decodes as encoded.
func TestShimSpecGolden(t *testing.T) {
	p := &plan{
		root:     "/home/u/ws",
		readOnly: []string{"/home/u/ws/.git"},
		home:     "/home/u/.cache/lunad/home",
		userHome: "/home/u",
		binds:    []Bind{{Path: "/home/u/go/pkg/mod"}, {Path: "/var/lunad/reports", Writable: true}},
		limits:   Limits{Memory: 1 << 30},
	}
	mounts := []string{"--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--ro-bind", "/dev/null", "/etc/shadow",
		"--tmpfs", "/etc/ssl/private", "--remount-ro", "/etc/ssl/private", "--ro-bind", "/run/systemd/resolve/stub-resolv.conf", "/run/systemd/resolve/stub-resolv.conf"}
	for _, tt := range []struct {
		abi     int
		network bool
	}{{7, false}, {7, true}, {4, false}, {2, false}} {
		p.network = tt.network
		s := newShimSpec(p, mounts, tt.abi)
		golden(t, fmt.Sprintf("shim_spec_abi%d_network_%v.golden", tt.abi, tt.network), specText(s))
		back, err := shim.Decode(s.Encode())
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Errorf("ABI %d: decoded %+v, %v; want %+v", tt.abi, back, err, s)
		}
	}
	p.home = ""
	if s := newShimSpec(p, mounts, 7); !slices.Contains(s.Paths, shim.PathRule{Path: "/home/u", Access: s.FS}) {
		t.Errorf("without Spec.Home, the tmpfs over the user's home is the command's home and must be writable: %+v", s.Paths)
	}
}

// specText is s with the rights named, one rule a line.
func specText(s shim.Spec) string {
	fsNames := []string{"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file", "make_char", "make_dir",
		"make_reg", "make_sock", "make_fifo", "make_block", "make_sym", "refer", "truncate", "ioctl_dev"}
	names := func(mask uint64, names []string) string {
		var on []string
		for i, n := range names {
			if mask&(1<<i) != 0 {
				on = append(on, n)
			}
		}
		return strings.Join(on, ",")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "abi %d, memory %d\nhandled fs: %s\nhandled net: %s\nscoped: %s\n", s.ABI, s.Memory,
		names(s.FS, fsNames), names(s.Net, []string{"bind_tcp", "connect_tcp"}), names(s.Scoped, []string{"abstract_unix_socket", "signal"}))
	for _, r := range s.Paths {
		fmt.Fprintf(&b, "%s: %s\n", r.Path, names(r.Access, fsNames))
	}
	return b.String()
}

// TestNoInheritedDescriptors: a command starts with stdin, stdout and
// stderr only — none of the pipes lunad, the gate, bwrap or the shim
// used on the way (the gate's, bwrap's --info-fd, the shim's spec and
// status) reaches it.
func TestNoInheritedDescriptors(t *testing.T) {
	t.Parallel()
	with, without, _ := landlockRunners(t)
	root := workspace(t, t.TempDir())
	// listdir opens the directory it lists: 3 is its own descriptor.
	const script = `import os; print(sorted(int(x) for x in os.listdir("/proc/self/fd")))`
	for name, r := range map[string]*Runner{"landlock": with, "bwrap alone": without} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := runWithin(t, r, Spec{Argv: []string{"python3", "-c", script}, Root: root}, 30*time.Second)
			if want := "[0, 1, 2, 3]\n"; res.Stdout.Text != want {
				t.Errorf("descriptors %q, want %q (stderr %q)", res.Stdout.Text, want, res.Stderr.Text)
			}
		})
	}
}
