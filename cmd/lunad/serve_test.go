package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/daemon/rpc"
)

// daemonProc is a `lunad serve` process.
type daemonProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

// syncBuffer is a bytes.Buffer safe for the process's writes and the
// test's reads.
//
// It holds what os/exec's copying goroutine has read from the daemon's
// stderr pipe so far, which can be less than the daemon has written: the
// daemon logs a call before it answers, but the copy into this buffer is
// asynchronous, and a loaded machine may not have scheduled it yet when
// the client that got the answer has exited. A test that looks for a line
// logged during a call waits for it (waitFor); String is for the whole log
// only after the process exited (daemonProc.wait), or for error messages.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed (and replaced) by each Write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != nil {
		close(s.written)
		s.written = nil
	}
	return s.b.Write(p)
}

// waitFor waits until the buffer holds every one of subs, or for at most
// timeout, and returns its content and whether they all came.
func (s *syncBuffer) waitFor(timeout time.Duration, subs ...string) (string, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		log := s.b.String()
		all := true
		for _, sub := range subs {
			all = all && strings.Contains(log, sub)
		}
		if all {
			s.mu.Unlock()
			return log, true
		}
		if s.written == nil {
			s.written = make(chan struct{})
		}
		written := s.written
		s.mu.Unlock()
		select {
		case <-written:
		case <-deadline.C:
			return s.String(), false
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve starts `lunad serve ARGS` in w and waits until it answers.
func (w *ws) serve(args ...string) *daemonProc {
	w.t.Helper()
	p := w.startServe(args...)
	w.waitDaemon(p)
	return p
}

func (w *ws) startServe(args ...string) *daemonProc {
	w.t.Helper()
	p := &daemonProc{stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(lunadBin, append([]string{"serve", "--dir", w.dir}, args...)...)
	p.cmd.Env = env(w.home, w.env...)
	var out bytes.Buffer
	p.cmd.Stdout, p.cmd.Stderr = &out, p.stderr
	if err := p.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		if out.Len() > 0 {
			p.err = errors.Join(p.err, errors.New("lunad serve wrote to stdout: "+out.String()))
		}
		close(p.done)
	}()
	w.t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// waitDaemon waits until p answers on the workspace's socket.
func (w *ws) waitDaemon(p *daemonProc) {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-p.done:
			w.t.Fatalf("lunad serve exited: %v\n%s", p.err, p.stderr)
		default:
		}
		if c, err := rpc.Connect(context.Background(), w.dir, rpc.ConnectOptions{}); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("lunad serve does not answer:\n%s", p.stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop sends sig and waits for the exit status.
func (p *daemonProc) stop(t *testing.T, sig os.Signal) error {
	t.Helper()
	p.cmd.Process.Signal(sig)
	return p.wait(t)
}

func (p *daemonProc) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(30 * time.Second):
		t.Fatalf("lunad serve did not exit:\n%s", p.stderr)
		return nil
	}
}

// served is the number of calls the workspace's daemon answered.
func (w *ws) served() uint64 {
	w.t.Helper()
	c, err := rpc.Connect(context.Background(), w.dir, rpc.ConnectOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	defer c.Close()
	return c.(*rpc.Client).Hello().Served
}

// TestServe runs commands through `lunad serve` and stops it with SIGTERM.
func TestServe(t *testing.T) {
	w, id := newWSWith(t, "a.md", "alpha\nbeta\n")
	p := w.serve()
	before := w.served()
	if out := w.ok("edit", id, "--search-file", w.file("s", "beta\n"), "--replace-file", w.file("r", "gamma\n"), "--agent", "coder"); !strings.HasPrefix(out, id+" v2 ") {
		t.Fatalf("edit: %q", out)
	}
	if out := w.ok("list"); !strings.Contains(out, "a.md") {
		t.Fatalf("list: %q", out)
	}
	// A misspelling of a line the file has gets a hint (text like no line
	// of it gets none).
	w.fail(4, "did you mean", "edit", id, "--search-file", w.file("s", "gamna\n"), "--replace-file", w.file("r", "delta\n"))
	// Each command is a hello and its calls; list, show and edit went through the daemon.
	if after := w.served(); after < before+6 {
		t.Fatalf("the daemon served %d calls, want at least %d", after, before+6)
	}
	if log, ok := p.stderr.waitFor(10*time.Second, "method=lunad/edit", "artifact="+id+" version=2"); !ok {
		t.Fatalf("the daemon did not log the edit:\n%s", log)
	}
	if got := w.show(id); got != "alpha\ngamma\n" {
		t.Fatalf("show: %q", got)
	}
	if author, _ := w.lastCommit(); author != "coder" {
		t.Fatalf("author %q", author)
	}
	// The daemon syncs the git index once idle: git status becomes clean.
	deadline := time.Now().Add(10 * time.Second)
	for w.git("status", "--porcelain") != "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	w.clean()

	// One daemon per workspace.
	second := w.startServe()
	if err := second.wait(t); err == nil || !strings.Contains(second.stderr.String(), "lunad: another lunad daemon serves this workspace") {
		t.Fatalf("second serve: %v\n%s", err, second.stderr)
	}

	if err := p.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("lunad serve after SIGTERM: %v\n%s", err, p.stderr)
	}
	if _, err := os.Lstat(filepath.Join(w.dir, ".git", "luna", "daemon.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
	if log := p.stderr.String(); !strings.Contains(log, "daemon stopped") {
		t.Fatalf("log:\n%s", log)
	}
	w.ok("list") // in-process again
	w.clean()
}

// TestSameOutputThroughTheDaemon runs commands with and without a daemon
// on the same workspace: stdout, stderr and exit codes are identical.
func TestSameOutputThroughTheDaemon(t *testing.T) {
	w, id := newWSWith(t, "config.py", "def parse_config(path):\n    return {}\n")
	doc := w.create("notes.md", "# Notes\n\n`parse_config` reads it.\n")
	w.ok("edit", id, "--search-file", w.file("s", "    return {}\n"), "--replace-file", w.file("r", "    return {\"a\": 1}\n"))
	commands := [][]string{
		{"list"}, {"list", "--json"}, {"show", id}, {"show", id + "@1"}, {"show", "nope"}, {"log", id}, {"log", "--json"},
		{"diff", id}, {"diff", id, "--json"}, {"branches"}, {"symbols", id}, {"refs", doc}, {"refs", doc, "--json"},
		{"stale"}, {"stale", "--check"}, {"stale", "--json"},
		{"edit", id, "--search-file", w.file("miss", "    return []\n"), "--replace-file", w.file("r2", "x\n")},
		{"edit", id, "--blocks-file", w.file("bad", "<<<<<<< SEARCH\nx\n")},
		{"edit", id, "--content-file", w.file("c", "x\n"), "--base-version", "1"},
		{"edit", id, "--content-file", w.file("bin", "a\x00b\n")},
		{"undo", "nope"}, {"restore", id, "9"}, {"switch", "nope"}, {"ack", doc, "--symbol", "nothing"},
		{"create", "--title", "dup", "--path", "notes.md"}, {"link", id, "nope"},
		{"edit", id, "--search-file", w.file("nul", "\xff\n"), "--replace-file", w.file("r3", "x\n")},
	}
	run := func() []result {
		var rs []result
		for _, args := range commands {
			rs = append(rs, w.run(args...))
		}
		return rs
	}
	head := w.head()
	without := run()
	p := w.serve()
	before := w.served()
	with := run()
	if served := w.served() - before; served < uint64(len(commands)) {
		t.Fatalf("the daemon served %d calls for %d commands", served, len(commands))
	}
	for i := range commands {
		if without[i].stdout != with[i].stdout || without[i].stderr != with[i].stderr || without[i].code != with[i].code {
			t.Errorf("without a daemon:\n%s\nwith one:\n%s", without[i], with[i])
		}
	}
	w.wantHead(head)
	if err := p.stop(t, os.Interrupt); err != nil {
		t.Fatal(err)
	}
}

// TestServeAuto checks an auto-started daemon: it logs to the log file,
// exits by itself when idle, and gives way to a daemon already serving.
func TestServeAuto(t *testing.T) {
	w := newWS(t)
	w.env = []string{"LUNAD_IDLE_TIMEOUT=300ms"}
	p := w.serve("--auto")
	if err := p.wait(t); err != nil {
		t.Fatalf("auto daemon: %v\n%s", err, p.stderr)
	}
	if p.stderr.String() != "" {
		t.Fatalf("an auto daemon wrote to stderr:\n%s", p.stderr)
	}
	log, err := os.ReadFile(filepath.Join(w.dir, ".git", "luna", "lunad.log"))
	if err != nil || !strings.Contains(string(log), "daemon serving") || !strings.Contains(string(log), "no client for 300ms") {
		t.Fatalf("log: %s %v", log, err)
	}

	// --idle-timeout wins over the configuration; --log names the file.
	w.env = nil
	logFile := filepath.Join(w.home, "d.log")
	p = w.serve("--auto", "--idle-timeout", "200ms", "--log", logFile)
	if err := p.wait(t); err != nil {
		t.Fatalf("auto daemon: %v\n%s", err, p.stderr)
	}
	if log, err := os.ReadFile(logFile); err != nil || !strings.Contains(string(log), "no client for 200ms") {
		t.Fatalf("log: %s %v", log, err)
	}

	// A second auto daemon gives way (exit 0) to the one serving.
	first := w.serve()
	second := w.startServe("--auto")
	if err := second.wait(t); err != nil {
		t.Fatalf("second auto daemon: %v", err)
	}
	if err := first.stop(t, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// TestAutoStartRace starts daemons from two clients at once: they end up
// with one daemon, which exits once both are gone.
func TestAutoStartRace(t *testing.T) {
	w := newWS(t)
	for _, kv := range env(w.home, "LUNAD_IDLE_TIMEOUT=500ms") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	const n = 4
	clients := make([]lunad.Workspace, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			clients[i], errs[i] = rpc.Connect(context.Background(), w.dir, rpc.ConnectOptions{AutoStart: true, Executable: lunadBin})
		})
	}
	wg.Wait()
	pid := 0
	for i, c := range clients {
		if errs[i] != nil {
			t.Fatalf("client %d: %v", i, errs[i])
		}
		st := c.(*rpc.Client).Hello()
		if pid == 0 {
			pid = st.PID
		}
		if st.PID != pid || pid == os.Getpid() {
			t.Fatalf("client %d talks to pid %d, another to %d", i, st.PID, pid)
		}
	}
	if _, err := clients[0].Create(context.Background(), lunad.CreateSpec{Title: "through the daemon", Content: []byte("x\n")}); err != nil {
		t.Fatal(err)
	}
	if out := w.ok("list"); !strings.Contains(out, "through the daemon") {
		t.Fatalf("list: %s", out)
	}
	for _, c := range clients {
		c.Close()
	}
	deadline := time.Now().Add(20 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("daemon %d did not exit once idle", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(w.dir, ".git", "luna", "lunad.log"))
	if strings.Count(string(log), "daemon serving") != 1 || !strings.Contains(string(log), "no client for 500ms") {
		t.Fatalf("log:\n%s", log)
	}
	if _, err := os.Lstat(filepath.Join(w.dir, ".git", "luna", "daemon.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
}

// TestServeConnectionLimits: `lunad serve` takes daemon.max_connections
// and daemon.conn_idle_timeout from its configuration: a connection over
// the cap is refused with the message (a command run meanwhile works
// in-process), and an idle connection is closed, which lets the next one
// in.
func TestServeConnectionLimits(t *testing.T) {
	w, id := newWSWith(t, "a.md", "alpha\n")
	ctx := context.Background()
	const full = "the daemon serves at most 1 connection;"
	// connect makes the one connection, once the daemon has let go of
	// waitDaemon's (or of an idle one).
	connect := func(what string) lunad.Workspace {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			c, err := rpc.Connect(ctx, w.dir, rpc.ConnectOptions{})
			if err == nil {
				return c
			}
			if !strings.Contains(err.Error(), full) || time.Now().After(deadline) {
				t.Fatalf("%s: %v", what, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	w.env = []string{"LUNAD_MAX_CONNECTIONS=1"}
	p := w.serve()
	first := connect("the first connection")
	if _, err := rpc.Connect(ctx, w.dir, rpc.ConnectOptions{}); !errors.Is(err, rpc.ErrNoDaemon) || !strings.Contains(err.Error(), full) {
		t.Fatalf("a second connection: %v", err)
	}
	if got := w.show(id); got != "alpha\n" {
		t.Fatalf("show while the daemon is full: %q", got)
	}
	if _, err := first.List(ctx); err != nil {
		t.Fatal(err)
	}
	first.Close()
	if err := p.stop(t, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}

	w.env = []string{"LUNAD_MAX_CONNECTIONS=1", "LUNAD_CONN_IDLE_TIMEOUT=300ms"}
	w.serve()
	idle := connect("the connection that goes idle")
	defer idle.Close()
	connect("a connection once the first is idle").Close()
	if _, err := idle.List(ctx); err == nil {
		t.Fatal("the idle connection still answers")
	}
}

func TestDaemonConfig(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		env        []string
		want       string
	}{
		{"negative idle timeout", "[daemon]\nidle_timeout = \"-1s\"\n", nil, "daemon.idle_timeout"},
		{"bad idle timeout", "[daemon]\nidle_timeout = \"soon\"\n", nil, "config"},
		{"bad env idle timeout", "", []string{"LUNAD_IDLE_TIMEOUT", "10"}, "LUNAD_IDLE_TIMEOUT"},
		{"log file with newline", "[daemon]\nlog_file = \"a\\nb\"\n", nil, "daemon.log_file"},
		{"unknown daemon key", "[daemon]\nport = 1\n", nil, "unknown key daemon.port"},
		{"bad env record saves", "", []string{"LUNAD_RECORD_SAVES", "maybe"}, "LUNAD_RECORD_SAVES"},
		{"negative mcp rate", "[mcp]\nrate = -1.0\n", nil, "mcp.rate -1 must be between 0"},
		{"mcp rate without burst", "[mcp]\nburst = 0\n", nil, "mcp.burst 0 must be between 1"},
		{"zero page size", "[mcp]\npage_size = 0\n", nil, "mcp.page_size 0"},
		{"bad env mcp rate", "", []string{"LUNAD_MCP_RATE", "fast"}, "LUNAD_MCP_RATE"},
		{"bad env mcp burst", "", []string{"LUNAD_MCP_BURST", "1.5"}, "LUNAD_MCP_BURST"},
		{"unknown mcp key", "[mcp]\nport = 1\n", nil, "unknown key mcp.port"},
		{"zero max connections", "[daemon]\nmax_connections = 0\n", nil, "daemon.max_connections 0 must be between 1 and 100000"},
		{"bad env max connections", "", []string{"LUNAD_MAX_CONNECTIONS", "many"}, "LUNAD_MAX_CONNECTIONS"},
		{"negative conn idle timeout", "[daemon]\nconn_idle_timeout = \"-1s\"\n", nil, "daemon.conn_idle_timeout -1s must be between 0 (never)"},
		{"bad env conn idle timeout", "", []string{"LUNAD_CONN_IDLE_TIMEOUT", "10"}, "LUNAD_CONN_IDLE_TIMEOUT"},
		{"zero mcp sessions", "[mcp]\nmax_sessions = 0\n", nil, "mcp.max_sessions 0"},
		{"huge mcp sessions per address", "", []string{"LUNAD_MCP_MAX_SESSIONS_PER_ADDRESS", "1000000"}, "mcp.max_sessions_per_address 1000000"},
		{"bad env mcp session timeout", "", []string{"LUNAD_MCP_SESSION_TIMEOUT", "later"}, "LUNAD_MCP_SESSION_TIMEOUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, ".luna"), 0o755)
			os.WriteFile(filepath.Join(root, ".luna", "config.toml"), []byte(tc.toml), 0o644)
			_, err := config.Load(root, func(k string) string {
				for i := 0; i+1 < len(tc.env); i += 2 {
					if tc.env[i] == k {
						return tc.env[i+1]
					}
				}
				return ""
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != 1 {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".luna"), 0o755)
	os.WriteFile(filepath.Join(root, ".luna", "config.toml"), []byte("[daemon]\nidle_timeout = \"1m\"\nlog_file = \"d.log\"\nrecord_saves = true\nmax_connections = 9\nconn_idle_timeout = \"0s\"\n[mcp]\nrate = 5.0\nburst = 9\nmax_sessions = 5\nsession_timeout = \"1h\"\n"), 0o644)
	c, err := config.Load(root, func(k string) string {
		return map[string]string{"LUNAD_LOG_FILE": "/tmp/e.log", "LUNAD_RECORD_SAVES": "false", "LUNAD_MCP_BURST": "7",
			"LUNAD_MAX_CONNECTIONS": "8", "LUNAD_MCP_MAX_SESSIONS_PER_ADDRESS": "3"}[k]
	})
	if err != nil || c.Daemon.IdleTimeout != time.Minute || c.Daemon.LogFile != "/tmp/e.log" || c.Daemon.RecordSaves ||
		c.Daemon.MaxConnections != 8 || c.Daemon.ConnIdleTimeout != 0 {
		t.Fatalf("%+v %v", c.Daemon, err)
	}
	if c.MCP != (config.MCP{Rate: 5, Burst: 7, PageSize: 100, MaxSessions: 5, MaxSessionsPerAddress: 3, SessionTimeout: time.Hour}) {
		t.Fatalf("mcp config %+v, want rate 5, 5 sessions, 1h from the file, burst 7 and 3 sessions per address from the environment", c.MCP)
	}
	if d := config.Default().Daemon; d.IdleTimeout != 5*time.Minute || d.LogFile != "" || !d.RecordSaves || d.MaxConnections != 256 || d.ConnIdleTimeout != 10*time.Minute {
		t.Fatalf("defaults %+v", d)
	}
	if m := config.Default().MCP; m.MaxSessions != 256 || m.MaxSessionsPerAddress != 64 || m.SessionTimeout != 30*time.Minute {
		t.Fatalf("mcp defaults %+v", m)
	}
}

// TestDaemonFollowsGit: while `lunad serve` runs, a file saved by hand and
// a branch switched with the real git CLI are noticed: the saved file
// becomes a human version, a hand commit on another branch and the switch
// back reach the daemon's clients (events, and content read through it).
func TestDaemonFollowsGit(t *testing.T) {
	w, id := newWSWith(t, "a.md", "alpha\n")
	p := w.serve()
	defer p.stop(t, syscall.SIGTERM)
	await := w.follow(p)
	ctx := context.Background()
	ws, err := rpc.Connect(ctx, w.dir, rpc.ConnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	hasID := func(ev lunad.Event) bool { return slices.Contains(ev.IDs, id) }
	settle := func() { // the daemon syncs the git index once idle
		deadline := time.Now().Add(10 * time.Second)
		for w.git("status", "--porcelain") != "" && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}

	if err := os.WriteFile(filepath.Join(w.dir, "a.md"), []byte("saved by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	await("the saved file", hasID)
	if out := w.ok("log", id); !strings.Contains(out, "human") {
		t.Fatalf("log after a save by hand:\n%s", out)
	}
	settle()

	w.git("checkout", "-q", "-b", "other")
	if err := os.WriteFile(filepath.Join(w.dir, "a.md"), []byte("on the other branch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	await("the save on the other branch", hasID)
	settle()
	w.git("checkout", "-q", "main")
	await("the switch back to main", func(ev lunad.Event) bool { return ev.Kind == "branch" })
	content, _, err := ws.Read(ctx, id, "")
	if err != nil || string(content) != "saved by hand\n" {
		t.Fatalf("read through the daemon after git checkout main: %q %v", content, err)
	}
	if got := w.show(id); got != "saved by hand\n" {
		t.Fatalf("lunad show: %q", got)
	}
}
