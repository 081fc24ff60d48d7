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
	"github.com/lunad/lunad/daemon/rpc"
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
	w.put("agents/crash.py", crashAgent)
	stage := func(name, next string) string {
		return fmt.Sprintf("[stages.%s]\ncommand = [%q, \"agents/crash.py\", %q]\nretry = { max_attempts = 3, initial = \"10ms\", max = \"50ms\" }\n[[stages.%s.next]]\nto = %q\n", name, wstest.Python(t), execLog, name, next)
	}
	w.put(".luna/workflows/crash.toml", "name = \"crash\"\nversion = \"1\"\nstart = \"a\"\n"+stage("a", "b")+stage("b", "c")+stage("c", "end"))
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
	c, err := rpc.Connect(context.Background(), w.dir, rpc.ConnectOptions{})
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

// TestRunCommands: the command line's contract for runs — what start
// prints, exit codes, the JSON of show, and errors that say what to do.
func TestRunCommands(t *testing.T) {
	w := newWS(t)
	put := func(name, content string) {
		p := filepath.Join(w.dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	py := wstest.Python(t)
	put("agents/ok.py", "import json,sys\nr=json.load(sys.stdin)\nprint(json.dumps({'status':'ok','output':{'n':len(r['params'])},'writes':[{'path':'out/'+r['stage']+'.md','content':'# done\\n'}]}))\n")
	put("agents/bad.py", "print('{\"status\": \"fail\", \"permanent\": true, \"error\": \"cannot\"}')\n")
	wf := func(name, script string) string {
		return fmt.Sprintf("name = %q\nversion = \"1\"\nstart = \"s\"\n[stages.s]\ncommand = [%q, %q]\n[[stages.s.next]]\nto = \"end\"\n", name, py, script)
	}
	put(".luna/workflows/good.toml", wf("good", "agents/ok.py"))
	put(".luna/workflows/bad.toml", wf("bad", "agents/bad.py"))
	put(".luna/workflows/asks.toml", strings.Replace(wf("asks", "agents/ok.py"), "to = \"end\"\n", "to = \"end\"\nstatus = \"question\"\n", 1))
	w.serve()

	r := w.run("run", "start", "good", "--param", "a=1", "--wait")
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stderr, "completed") {
		t.Fatalf("start --wait prints the ID alone on stdout:\n%s", r)
	}
	var info lunad.RunInfo
	w.jsonOut(&info, "run", "show", id)
	if info.ID != id || info.Status != lunad.RunCompleted || strings.Join(info.Path, ",") != "s" || info.Stages[0].Attempts != 1 ||
		strings.Join(strings.Fields(string(info.Stages[0].Output)), "") != `{"n":1}` || len(info.Events) != 6 || info.WorkflowVersion == "" {
		t.Fatalf("run show --json: %+v", info)
	}
	var started lunad.RunInfo
	w.jsonOut(&started, "run", "start", "good", "--wait")
	if started.Status != lunad.RunCompleted || started.Workflow != "good" || len(started.Events) != 0 {
		t.Fatalf("run start --wait --json: %+v", started)
	}
	w.ok("run", "replay", id)
	if out := w.ok("run", "log", id); !strings.Contains(out, "STAGE_COMMITTED") {
		t.Fatalf("run log:\n%s", out)
	}
	if out := w.ok("run", "list"); !strings.Contains(out, id) || !strings.Contains(out, "completed") {
		t.Fatalf("run list:\n%s", out)
	}
	// A run that ends with an outcome reached its end: exit 0.
	if r := w.run("run", "start", "asks", "--wait"); r.code != 0 || !strings.Contains(r.stderr, "question") {
		t.Fatalf("a run ended with an outcome:\n%s", r)
	}
	// A permanent failure: exit 1 with --wait, and the run is dead-lettered.
	r = w.run("run", "start", "bad", "--wait")
	bad := strings.TrimSpace(r.stdout)
	if r.code != 1 || !strings.Contains(r.stderr, "dead_lettered") {
		t.Fatalf("a dead-lettered run:\n%s", r)
	}
	if out := w.ok("dlq", "list"); !strings.Contains(out, bad) {
		t.Fatalf("dlq list:\n%s", out)
	}
	w.fail(1, "only an aborted or dead-lettered run", "run", "retry", id)
	// Keys.
	k1 := strings.TrimSpace(w.ok("run", "start", "good", "--key", "nightly", "--wait"))
	if k2 := strings.TrimSpace(w.ok("run", "start", "good", "--key", "nightly")); k2 != k1 {
		t.Fatalf("the same key started %s and %s", k1, k2)
	}
	w.fail(3, "nightly", "run", "start", "bad", "--key", "nightly")
	// Errors.
	w.fail(5, "no run", "run", "show", "no-such-run")
	w.fail(5, "no workflow", "run", "start", "nope")
	w.fail(2, "unknown form", "run", "frobnicate")
	w.fail(2, "K=V", "run", "start", "good", "--param", "novalue")
	w.fail(2, "--older-than", "run", "prune")
	put("broken.toml", "name = \"broken\"\nstart = \"x\"\n")
	w.fail(1, "broken.toml:1:1: no stages", "workflow", "check", filepath.Join(w.dir, "broken.toml"))
	if out := w.ok("workflow", "list"); !strings.Contains(out, "good") || !strings.Contains(out, "bad") {
		t.Fatalf("workflow list:\n%s", out)
	}
	w.git("fsck", "--strict", "--no-progress")
}
