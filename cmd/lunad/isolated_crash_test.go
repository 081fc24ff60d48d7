package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/internal/wstest"
)

// rewriteAgent is the process agent of TestIsolatedRunSurvivesDaemonKill.
// Stage first writes notes/first.md. Stage rewrite reports what it finds
// in the worktree, then, on its first attempt, rewrites notes/a.md in
// place but only half of it, makes half.txt and an ignored Python cache,
// writes its pid to the ready file (argv[1], renamed into place) and
// sleeps: the test kills the daemon there. A later attempt answers with
// notes/a.md as it found it plus one line.
const rewriteAgent = `import json, os, sys, time
req = json.load(sys.stdin)
ready = sys.argv[1]
if req["stage"] == "first":
    print(json.dumps({"status": "ok", "output": {}, "writes": [{"path": "notes/first.md", "content": "first\n"}]}))
    sys.exit(0)
a = open("notes/a.md").read()
seen = {"a": a, "half": os.path.exists("half.txt"), "cache": os.path.exists("__pycache__/mod.pyc")}
if req["attempt"] == 1:
    with open("notes/a.md", "w") as f:
        f.write(a[:6])
    with open("half.txt", "w") as f:
        f.write("half of the rewrite")
    os.makedirs("__pycache__", exist_ok=True)
    with open("__pycache__/mod.pyc", "w") as f:
        f.write("cache")
    with open(ready + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(ready + ".tmp", ready)
    time.sleep(300)
print(json.dumps({"status": "ok", "output": seen, "writes": [{"path": "notes/a.md", "content": a + "rewritten\n"}]}))
`

// TestIsolatedRunSurvivesDaemonKill: a real `lunad serve` is SIGKILLed in
// the middle of an isolated run's stage, while its process agent has
// half rewritten a tracked file and made new files in the run's worktree
// (the agent dies with it, as on a crash of the machine). The restarted
// daemon resumes the run: the interrupted attempt's leftovers are gone
// before the next attempt runs — it finds the branch's tip, the ignored
// cache kept —, the run completes with each stage committed exactly once
// on luna/<workflow>/<run>, the half-written files in no commit, the
// worktree clean, the user's branch and checkout untouched, fsck clean.
func TestIsolatedRunSurvivesDaemonKill(t *testing.T) {
	w := newWS(t)
	const body = "# A\n\nthe text a stage rewrites\n"
	w.create("notes/a.md", body)
	w.put(".gitignore", "__pycache__/\n")
	w.git("add", ".gitignore")
	w.git("commit", "-q", "-m", "ignore caches")
	agent := filepath.Join(w.home, "rewrite.py")
	if err := os.WriteFile(agent, []byte(rewriteAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(w.home, "ready")
	command := fmt.Sprintf("command = [%q, %q, %q]\n", wstest.Python(t), agent, ready)
	w.put(".luna/workflows/crashiso.toml", "name = \"crashiso\"\nversion = \"1\"\nisolated = true\nstart = \"first\"\n"+
		"[stages.first]\n"+command+"[[stages.first.next]]\nto = \"rewrite\"\n"+
		"[stages.rewrite]\n"+command+"[[stages.rewrite.next]]\nto = \"end\"\n")
	main := strings.TrimSpace(w.git("rev-parse", "main"))
	userSide := func() string {
		return w.git("ls-files", "-s") + w.git("status", "--porcelain", "--untracked-files=no") + w.show("notes/a.md")
	}
	before := userSide()

	p := w.serve()
	id := strings.TrimSpace(w.ok("run", "start", "crashiso"))
	pid := waitReady(t, ready, p)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t)
	// The attempt's process group dies with the daemon, as on a crash of
	// the machine (lunad serve does not take its agents down with it).
	syscall.Kill(-pid, syscall.SIGKILL)
	dir := filepath.Join(w.dir, ".git", "luna", "worktrees", id)
	if st := gitIn(t, dir, w.home, "status", "--porcelain"); !strings.Contains(st, " M notes/a.md") || !strings.Contains(st, "?? half.txt") {
		t.Fatalf("the worktree after the kill, before the restart:\n%s\nwant the half-done rewrite", st)
	}

	p = w.serve()
	c, err := rpc.Connect(context.Background(), w.dir, rpc.ConnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	info, err := c.WaitRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != lunad.RunCompleted || strings.Join(info.Path, " ") != "first rewrite" {
		t.Fatalf("run %s: %s %v: %s\n%s", id, info.Status, info.Path, info.Error, p.stderr)
	}
	info, err = c.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if n := wstest.Interrupted(info); n != 1 {
		t.Fatalf("%d interrupted attempts, want 1: %v", n, wstest.EventTypes(info))
	}
	// What the resumed attempt found: the branch's tip, the cache kept.
	var seen struct {
		A           string
		Half, Cache bool
	}
	if err := json.Unmarshal(info.Stages[1].Output, &seen); err != nil {
		t.Fatal(err)
	}
	if seen.A != body || seen.Half || !seen.Cache {
		t.Fatalf("the resumed attempt found notes/a.md %q, half.txt %v, the cache %v; want the tip's text, no half.txt, the cache", seen.A, seen.Half, seen.Cache)
	}
	if log, ok := p.stderr.waitFor(10*time.Second, "restored=notes/a.md", "removed=half.txt"); !ok {
		t.Fatalf("the restarted daemon did not log what it put back:\n%s", log)
	}

	branch := "luna/crashiso/" + id
	if info.Branch != branch || info.Base != main {
		t.Fatalf("run on %q from %q, want %q from %q", info.Branch, info.Base, branch, main)
	}
	stages := w.git("log", "--format=%(trailers:key=Luna-Stage,valueonly,separator=)", main+".."+branch)
	if stages != "rewrite\nfirst\n" {
		t.Fatalf("the stages' commits on %s:\n%s\nwant each stage once", branch, stages)
	}
	if got := w.git("show", branch+":notes/a.md"); got != body+"rewritten\n" {
		t.Fatalf("notes/a.md on %s: %q", branch, got)
	}
	if hist := w.git("log", "--format=%h", branch, "--", "half.txt", "__pycache__"); hist != "" {
		t.Fatalf("the killed attempt's files are in commits: %s", hist)
	}
	if st := gitIn(t, dir, w.home, "status", "--porcelain"); st != "" {
		t.Fatalf("git status in the run's worktree:\n%s", st)
	}
	if got := strings.TrimSpace(w.git("rev-parse", "main")); got != main {
		t.Fatalf("main moved: %s → %s", main, got)
	}
	if after := userSide(); after != before {
		t.Fatalf("the user's checkout changed:\n%s\nwas:\n%s", after, before)
	}
	w.ok("run", "replay", id)
	w.git("fsck", "--strict", "--no-progress")
}

// waitReady waits for the agent's ready file and returns the pid it
// holds; p exiting first fails the test.
func waitReady(t *testing.T, ready string, p *daemonProc) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if b, err := os.ReadFile(ready); err == nil {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatalf("ready file: %q", b)
			}
			return pid
		}
		select {
		case <-p.done:
			t.Fatalf("lunad serve exited before the agent was ready: %v\n%s", p.err, p.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent never got ready:\n%s", p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
