package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad/daemon/rpc"
)

// daemonStatus is `lunad --json daemon status`.
type daemonStatus struct {
	Running bool `json:"running"`
	rpc.DaemonStatus
}

func (w *ws) daemonStatus() daemonStatus {
	w.t.Helper()
	var st daemonStatus
	if err := json.Unmarshal([]byte(w.ok("--json", "daemon", "status")), &st); err != nil {
		w.t.Fatal(err)
	}
	return st
}

// waitStatus waits until the daemon's status satisfies ok.
func (w *ws) waitStatus(what string, ok func(daemonStatus) bool) daemonStatus {
	w.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := w.daemonStatus()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s: the daemon's status is still %+v", what, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitNote runs `lunad list` until the daemon tells it the note (on
// stderr, once) and returns the note's line.
func (w *ws) waitNote(prefix string) string {
	w.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := w.run("list")
		if r.code != 0 {
			w.t.Fatalf("list:\n%s", r)
		}
		if line, ok := strings.CutPrefix(r.stderr, "lunad: note: "+prefix); ok {
			if again := w.run("list"); again.stderr != "" {
				w.t.Fatalf("the note was told twice:\n%s", again)
			}
			return prefix + line
		}
		if r.stderr != "" || time.Now().After(deadline) {
			w.t.Fatalf("want the note %q:\n%s", prefix, r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (w *ws) writeConfig(content string) {
	w.t.Helper()
	path := filepath.Join(w.dir, ".luna", "config.toml")
	// Written aside and renamed over, as editors save: a new inode.
	if err := os.WriteFile(path+".new", []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		w.t.Fatal(err)
	}
}

// A real daemon follows [llm] in .luna/config.toml: after base_url and
// model point at a second model server, the next ask reaches it, with
// the new model, and the first server is called no more — the daemon
// that served the first ask serves this one.
func TestDaemonReloadsLLM(t *testing.T) {
	m1, m2 := &testModel{Key: scenarioKey}, &testModel{Key: scenarioKey}
	srv1, srv2 := openAIServer(t, m1), openAIServer(t, m2)
	w := askWS(t, "openai", srv1.URL+"/v1", "gpt-test")
	pid := w.daemonStatus().PID
	w.ask("write a Python function that parses a TOML config")
	first := m1.count()
	if first == 0 {
		t.Fatal("the first ask did not reach the first model server")
	}

	w.writeConfig(fmt.Sprintf("[llm]\nprovider = \"openai\"\nbase_url = %q\nmodel = \"gpt-other\"\ntemperature = 0.0\nseed = 1\n", srv2.URL+"/v1"))
	if note := w.waitNote("the daemon reloaded"); note != "the daemon reloaded [llm] from .luna/config.toml\n" {
		t.Fatalf("note: %q", note)
	}
	w.run("ask", "write a Python function that parses a TOML config")
	if m2.count() == 0 || m1.count() != first {
		t.Fatalf("after the change: first server %d requests (was %d), second %d", m1.count(), first, m2.count())
	}
	for _, s := range m2.Seen {
		if s.Model != "gpt-other" {
			t.Fatalf("the second server was asked for model %q", s.Model)
		}
	}
	if st := w.daemonStatus(); st.PID != pid || st.Daemon.RestartPending != "" || st.Daemon.Config["llm.base_url"] != srv2.URL+"/v1" {
		t.Fatalf("status after a live reload: %+v", st)
	}
}

// A change the daemon cannot take live ([runs] slots) makes a daemon
// started by a client restart once idle: a new pid, whose status says
// why, with the new value in force; `lunad daemon stop` stops it.
func TestDaemonRestartsForConfig(t *testing.T) {
	w := newWS(t)
	out := w.ok("daemon", "restart")
	old := w.daemonStatus()
	if !old.Running || !old.Daemon.Auto || !strings.Contains(out, fmt.Sprintf("the daemon (pid %d) serves", old.PID)) {
		t.Fatalf("daemon restart: %q, status %+v", out, old)
	}
	t.Cleanup(func() { w.run("daemon", "stop") })
	if old.Daemon.Config["runs.slots"] != "4" {
		t.Fatalf("slots before: %+v", old.Daemon.Config)
	}
	w.writeConfig("[runs]\nslots = 2\n")
	st := w.waitStatus("a new daemon", func(st daemonStatus) bool { return st.Running && st.PID != old.PID })
	if st.Daemon.Config["runs.slots"] != "2" || st.Daemon.Restarted != "[runs] changed in .luna/config.toml" || !st.Daemon.Auto {
		t.Fatalf("status of the restarted daemon: %+v", st)
	}
	// The daemon before exits once its successor serves.
	for deadline := time.Now().Add(10 * time.Second); alive(old.PID); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon before (pid %d) still runs", old.PID)
		}
	}
	text := w.ok("daemon", "status")
	if !regexp.MustCompile(`(?m)^restarted +because \[runs\] changed in \.luna/config\.toml$`).MatchString(text) ||
		!regexp.MustCompile(`(?m)^  runs\.slots +2$`).MatchString(text) {
		t.Fatalf("daemon status:\n%s", text)
	}

	out = w.ok("daemon", "stop")
	if out != fmt.Sprintf("stopped the daemon (pid %d)\n", st.PID) || alive(st.PID) {
		t.Fatalf("daemon stop: %q", out)
	}
	if st := w.daemonStatus(); st.Running {
		t.Fatalf("status after stop: %+v", st)
	}
	if out := w.ok("daemon", "stop"); !strings.HasPrefix(out, "no daemon serves ") {
		t.Fatalf("daemon stop without a daemon: %q", out)
	}
}

// A configuration file that does not load keeps the one in force, and
// the status says why in one message; once fixed, it is taken.
func TestDaemonKeepsConfigOnInvalidFile(t *testing.T) {
	w := newWS(t)
	p := w.serve()
	pid := w.daemonStatus().PID
	w.writeConfig("[llm]\nmodel = \"m1\"\n")
	w.waitStatus("m1", func(st daemonStatus) bool { return st.Daemon.Config["llm.model"] == "m1" })

	w.writeConfig("[llm]\nmodel = \"m2\"\n[runs]\nslots = \"many\"\n")
	// A command reads the file too, and fails on it with the same
	// message; lunad daemon status reads none.
	st := w.waitStatus("the reload error", func(st daemonStatus) bool { return st.Daemon.ReloadError != "" })
	if st.PID != pid || st.Daemon.Config["llm.model"] != "m1" || strings.Count(st.Daemon.ReloadError, "\n") != 0 ||
		!strings.Contains(st.Daemon.ReloadError, "config.toml") || !strings.Contains(st.Daemon.ReloadError, "slots") {
		t.Fatalf("status with an invalid file: %+v", st)
	}
	if text := w.ok("daemon", "status"); !strings.Contains(text, "reload failed") {
		t.Fatalf("daemon status:\n%s", text)
	}
	w.fail(1, st.Daemon.ReloadError, "list")
	if log := p.stderr.String(); !strings.Contains(log, "configuration not reloaded; the one in force stays") {
		t.Fatalf("log:\n%s", log)
	}

	w.writeConfig("[llm]\nmodel = \"m2\"\n")
	st = w.waitStatus("m2", func(st daemonStatus) bool { return st.Daemon.Config["llm.model"] == "m2" })
	if st.Daemon.ReloadError != "" || st.PID != pid {
		t.Fatalf("status once fixed: %+v", st)
	}

	// A daemon that was not started by a client does not restart by
	// itself: it says what to do.
	w.writeConfig("[llm]\nmodel = \"m2\"\n[runs]\nslots = 3\n")
	st = w.waitStatus("a pending restart", func(st daemonStatus) bool { return st.Daemon.RestartPending != "" })
	if st.PID != pid || st.Daemon.Config["runs.slots"] != "4" || !strings.Contains(st.Daemon.RestartPending, "[runs] changed") ||
		!strings.Contains(st.Daemon.RestartPending, "lunad daemon restart") {
		t.Fatalf("status: %+v", st)
	}

	// Back to what the daemon opened with: nothing to restart for.
	w.writeConfig("[llm]\nmodel = \"m3\"\n")
	st = w.waitStatus("m3", func(st daemonStatus) bool { return st.Daemon.Config["llm.model"] == "m3" })
	if st.Daemon.RestartPending != "" {
		t.Fatalf("a restart still pending: %+v", st)
	}

	// lunad daemon stop: the foreground daemon exits 0.
	if out := w.ok("daemon", "stop"); out != fmt.Sprintf("stopped the daemon (pid %d)\n", pid) {
		t.Fatalf("daemon stop: %q", out)
	}
	if err := p.wait(t); err != nil {
		t.Fatalf("lunad serve after daemon stop: %v\n%s", err, p.stderr)
	}
}

// `lunad mcp` whose LUNAD_* settings differ from the running daemon's
// (an MCP client passes only a few variables) does not serve in-process
// behind the client's back: it fails with one message naming the
// setting, both values and what to do. The same for `run start`.
func TestMCPRefusesADifferentDaemon(t *testing.T) {
	w := newWS(t)
	w.serve()
	pid := w.daemonStatus().PID
	other := *w
	other.env = append(slices.Clone(w.env), "LUNAD_AUTHOR_NAME=Bob Other")
	want := fmt.Sprintf("lunad: the daemon serving this workspace (pid %d) runs with author \"Ada Lovelace\", this command with \"Bob Other\": run `lunad daemon restart`", pid)
	r := other.runIn("", false, "mcp")
	if r.code != 1 || !strings.HasPrefix(r.stderr, want) || strings.Contains(r.stderr, "no lunad daemon serves") || r.stdout != "" {
		t.Fatalf("lunad mcp with another author:\n%s", r)
	}
	r = other.run("run", "start", "ask")
	if r.code == 0 || !strings.HasPrefix(r.stderr, want) || strings.Contains(r.stderr, "no lunad daemon serves") {
		t.Fatalf("lunad run start with another author:\n%s", r)
	}
	if got := w.daemonStatus().PID; got != pid {
		t.Fatalf("the daemon changed: pid %d, was %d", got, pid)
	}
}

// `lunad mcp` follows its daemon through a restart for a changed
// setting it compares (max_content): it reads its configuration again
// when it reconnects, so the restarted daemon is the one it uses, and an
// edit lands through it.
func TestMCPFollowsARestart(t *testing.T) {
	w, id := newWSWith(t, "a.md", "alpha\n")
	p := startPeer(t, w, false, "--dir", w.dir, "mcp")
	p.call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}`)
	p.notify("notifications/initialized", `{}`)
	pid := daemonPID(t, w)
	t.Cleanup(func() { w.run("daemon", "stop") })
	w.writeConfig("max_content = 1000000\n")
	st := w.waitStatus("a restarted daemon", func(st daemonStatus) bool { return st.Running && st.PID != pid })
	if st.Config == nil || st.Config.MaxContent != 1000000 {
		t.Fatalf("status: %+v", st)
	}
	res := p.call(2, "tools/call", fmt.Sprintf(`{"name":"edit_artifact","arguments":{"id":%q,"changes":[{"search":"alpha\n","replace":"beta\n"}]}}`, id)).(map[string]any)
	if res["isError"] == true {
		t.Fatalf("edit_artifact after the restart: %v\n%s", res, p.stderr)
	}
	if got := w.show(id); got != "beta\n" {
		t.Fatalf("content %q", got)
	}
	if got := daemonPID(t, w); got != st.PID {
		t.Fatalf("the daemon is pid %d, want the restarted %d", got, st.PID)
	}
}
