package main

import (
	"context"
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

// lateAgent is the agent of TestAgentLeftoverEnded: on its first attempt
// it says it is running (its pid, the group's ID, into the ready file,
// $1), then sleeps and writes late.txt in the worktree and the file $2; a
// later attempt answers at once.
const lateAgent = `cat >/dev/null
if [ "$LUNAD_ATTEMPT" = 1 ]; then
  printf %s $$ > "$1.tmp" && mv "$1.tmp" "$1"
  sleep 300
  echo late > late.txt
  echo late > "$2"
fi
echo '{"status":"ok","output":{}}'
`

// liveGroup lists the processes of group pgid that have not exited.
func liveGroup(t *testing.T, pgid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// TestAgentLeftoverEnded: a real `lunad serve` is SIGKILLed while an
// isolated run's process agent — a shell script that sleeps, then writes
// into the run's worktree — runs. The agent is in a process group of its
// own and outlives the daemon; the restarted daemon ends that group (it
// was recorded, with its leader's start time, under <common
// dir>/luna/agents before the script ran) before it cleans the worktree
// and retries the attempt: the old script is gone and never writes, the
// run completes, and the daemon's log says what it ended.
func TestAgentLeftoverEnded(t *testing.T) {
	w := newWS(t)
	w.create("notes/a.md", "# A\n")
	agent, ready, late := filepath.Join(w.home, "late.sh"), filepath.Join(w.home, "ready"), filepath.Join(w.home, "late")
	if err := os.WriteFile(agent, []byte(lateAgent), 0o755); err != nil {
		t.Fatal(err)
	}
	w.put(".luna/workflows/late.toml", fmt.Sprintf("name = \"late\"\nversion = \"1\"\nisolated = true\nstart = \"slow\"\n"+
		"[stages.slow]\ncommand = [\"/bin/sh\", %q, %q, %q]\n[[stages.slow.next]]\nto = \"end\"\n", agent, ready, late))

	p := w.serve()
	id := strings.TrimSpace(w.ok("run", "start", "late"))
	pgid := waitReady(t, ready, p)
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t)
	if live := liveGroup(t, pgid); len(live) == 0 {
		t.Fatalf("the agent's group %d died with the daemon; the test needs it to outlive it", pgid)
	}
	records, _ := filepath.Glob(filepath.Join(w.dir, ".git", "luna", "agents", "*.json"))
	if len(records) != 1 || filepath.Base(records[0]) != strconv.Itoa(pgid)+".json" {
		t.Fatalf("the agents' records: %v, want %d.json", records, pgid)
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
	if info.Status != lunad.RunCompleted {
		t.Fatalf("run %s: %s: %s\n%s", id, info.Status, info.Error, p.stderr)
	}
	if live := liveGroup(t, pgid); len(live) != 0 {
		t.Fatalf("processes %v of the killed daemon's agent still run after the restart", live)
	}
	if log, ok := p.stderr.waitFor(10*time.Second, "ended a process agent an earlier lunad left running", "run="+id, fmt.Sprintf("pgid=%d", pgid), "processes=2"); !ok {
		t.Fatalf("the restarted daemon did not log the agent it ended:\n%s", log)
	}
	if _, err := os.Stat(late); !os.IsNotExist(err) {
		t.Fatalf("the old agent wrote %s: %v", late, err)
	}
	dir := filepath.Join(w.dir, ".git", "luna", "worktrees", id)
	if _, err := os.Stat(filepath.Join(dir, "late.txt")); !os.IsNotExist(err) {
		t.Fatalf("the old agent wrote into the worktree: %v", err)
	}
	if records, _ := filepath.Glob(filepath.Join(w.dir, ".git", "luna", "agents", "*.json")); len(records) != 0 {
		t.Fatalf("records left: %v", records)
	}
	if n := wstest.Interrupted(info); n != 1 {
		t.Fatalf("%d interrupted attempts, want 1: %v", n, wstest.EventTypes(info))
	}
}
