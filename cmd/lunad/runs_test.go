package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/internal/wstest"
)

// crashAgent logs each execution (run, stage, attempt) before it works,
// sleeps a while, fails its first attempt in stage b, and writes one file
// per stage.
const crashAgent = `import json, sys, time, random
req = json.load(sys.stdin)
log, stage, n = sys.argv[1], req["stage"], req["attempt"]
with open(log, "a") as f:
    f.write("%s %s %d\n" % (req["run_id"], stage, n))
time.sleep(random.uniform(0.05, 0.4))
if stage == "b" and n == 1:
    print(json.dumps({"status": "fail", "error": "transient"}))
    sys.exit(0)
print(json.dumps({"status": "ok", "output": {"stage": stage},
    "writes": [{"path": "out/%s/%s.txt" % (req["run_id"], stage), "content": "%s of %s\n" % (stage, req["run_id"])}]}))
`

// TestRunsSurviveDaemonKills: runs with slow and failing stages while the
// daemon is SIGKILLed at random points, again and again. After the last
// restart every run completes, each stage's writes are in history exactly
// once, and every execution of an agent is explained by a STAGE_STARTED
// event of its run, stage and attempt (no orphans).
func TestRunsSurviveDaemonKills(t *testing.T) {
	w := newWS(t)
	execLog := filepath.Join(w.home, "executions.log")
	put := func(name, content string) {
		p := filepath.Join(w.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("agents/crash.py", crashAgent)
	stage := func(name, next string) string {
		return fmt.Sprintf("[stages.%s]\ncommand = [%q, \"agents/crash.py\", %q]\nretry = { max_attempts = 3, initial = \"10ms\", max = \"50ms\" }\n[[stages.%s.next]]\nto = %q\n", name, wstest.Python(t), execLog, name, next)
	}
	put(".luna/workflows/crash.toml", "name = \"crash\"\nversion = \"1\"\nstart = \"a\"\n"+stage("a", "b")+stage("b", "c")+stage("c", "end"))
	w.ok("workflow", "check", filepath.Join(w.dir, ".luna/workflows/crash.toml"))

	p := w.serve()
	const runs = 4
	var ids []string
	for i := range runs {
		ids = append(ids, strings.TrimSpace(w.ok("run", "start", "crash", "--key", fmt.Sprint("crash-", i))))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for kill := range 6 {
		time.Sleep(time.Duration(100+rng.IntN(600)) * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait(t)
		t.Logf("kill %d", kill+1)
		p = w.serve()
	}
	c, err := daemon.Connect(context.Background(), w.dir, daemon.ConnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	started := map[string]bool{} // "run stage attempt" with a STAGE_STARTED
	for _, id := range ids {
		info, err := c.WaitRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if info.Status != lunad.RunCompleted || strings.Join(info.Path, " ") != "a b c" {
			t.Fatalf("run %s: %s %v: %s\n%s", id, info.Status, info.Path, info.Error, p.stderr)
		}
		info, _ = c.Run(ctx, id)
		for _, ev := range info.Events {
			if ev.Type == lunad.EventStageStarted {
				started[fmt.Sprintf("%s %s %d", id, ev.Stage, ev.Attempt)] = true
			}
		}
		// The same run resumes identically from its log.
		w.ok("run", "replay", id)
	}
	// Each stage's writes were committed once.
	commits := map[string]int{}
	out := w.git("log", "--format=%(trailers:key=Luna-Run,valueonly,separator=) %(trailers:key=Luna-Stage,valueonly,separator=)")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			commits[l]++
		}
	}
	for _, id := range ids {
		for _, s := range []string{"a", "b", "c"} {
			if n := commits[id+" "+s]; n != 1 {
				t.Errorf("run %s stage %s: its writes are in %d commits, want 1", id, s, n)
			}
		}
	}
	// No orphans: every execution is explained by an event.
	b, err := os.ReadFile(execLog)
	if err != nil {
		t.Fatal(err)
	}
	execs := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, e := range execs {
		if !started[e] {
			t.Errorf("orphan: execution %q has no STAGE_STARTED event", e)
		}
	}
	t.Logf("%d runs, %d agent executions, 6 daemon kills", runs, len(execs))
	w.git("fsck", "--strict", "--no-progress")
}
