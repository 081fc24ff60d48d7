package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
)

const linear = `name = "linear"
version = "1"
start = "a"
[stages.a]
command = ["PYTHON", "agents/agent.py", "--write", "out/a.txt"]
[[stages.a.next]]
to = "b"
[stages.b]
command = ["PYTHON", "agents/agent.py", "--write", "out/b.txt"]
[[stages.b.next]]
to = "c"
[stages.c]
command = ["PYTHON", "agents/agent.py", "--write", "out/a.txt"]
[[stages.c.next]]
to = "end"
`

const conditional = `name = "conditional"
version = "2"
start = "a"
[stages.a]
command = ["PYTHON", "agents/agent.py", "--score", "0.9"]
[[stages.a.next]]
to = "b"
when = "output.score >= 0.8 && !('mode' in run.params && run.params.mode == 'slow')"
[[stages.a.next]]
to = "c"
[stages.b]
command = ["PYTHON", "agents/agent.py", "--write", "b.md"]
[[stages.b.next]]
to = "d"
[stages.c]
command = ["PYTHON", "agents/agent.py", "--write", "c.md"]
[[stages.c.next]]
to = "d"
[stages.d]
command = ["PYTHON", "agents/agent.py"]
[[stages.d.next]]
to = "end"
when = "outputs.a.score > 0.5"
[[stages.d.next]]
to = "end"
`

// TestLinear: A→B→C, each stage's writes one commit with the run's
// trailers, the events in git, fsck clean.
func TestLinear(t *testing.T) {
	w := newWorkspace(t, map[string]string{"linear": linear})
	info := w.run(lunad.RunRequest{Workflow: "linear"})
	if info.Status != lunad.RunCompleted || !slices.Equal(info.Path, []string{"a", "b", "c"}) {
		t.Fatalf("run: %s %v (%s)", info.Status, info.Path, info.Error)
	}
	want := []string{"RUN_CREATED", "STAGE_ENQUEUED a", "STAGE_STARTED a", "STAGE_SUCCEEDED a", "STAGE_COMMITTED a",
		"STAGE_ENQUEUED b", "STAGE_STARTED b", "STAGE_SUCCEEDED b", "STAGE_COMMITTED b",
		"STAGE_ENQUEUED c", "STAGE_STARTED c", "STAGE_SUCCEEDED c", "STAGE_COMMITTED c", "RUN_COMPLETED"}
	if got := wstest.EventTypes(info); !slices.Equal(got, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := w.eventTypes(info.ID); !slices.Equal(got, want) {
		t.Fatalf("git log of the run ref:\n%s", strings.Join(got, "\n"))
	}
	// Each stage's writes are one commit on the branch, with the run's trailers.
	log := w.git("log", "--format=%an|%(trailers:key=Luna-Stage,valueonly,separator=)|%(trailers:key=Luna-Run,valueonly,separator=)", "-3")
	wantLog := "c|c|" + info.ID + "\nb|b|" + info.ID + "\na|a|" + info.ID + "\n"
	if log != wantLog {
		t.Fatalf("git log:\n%s\nwant:\n%s", log, wantLog)
	}
	b, err := os.ReadFile(filepath.Join(w.root, "out/a.txt"))
	if err != nil || string(b) != "c wrote this in run "+info.ID+"\n" {
		t.Fatalf("out/a.txt = %q, %v", b, err)
	}
	// Stage c read what a and b wrote.
	if got := string(info.Stages[2].Output); !strings.Contains(got, `"inputs":2`) {
		t.Fatalf("stage c output %s: want 2 inputs", got)
	}
	if s := w.git("status", "--porcelain", "--", "out", ".luna/artifacts"); s != "" {
		t.Fatalf("git status: %s", s)
	}
	w.fsck()
}

// TestConditional: the engine alone chooses the branch, from the output and
// the run's params.
func TestConditional(t *testing.T) {
	for _, c := range []struct {
		name   string
		params map[string]string
		path   []string
	}{
		{"high score", nil, []string{"a", "b", "d"}},
		{"slow mode", map[string]string{"mode": "slow"}, []string{"a", "c", "d"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkspace(t, map[string]string{"conditional": conditional})
			info := w.run(lunad.RunRequest{Workflow: "conditional", Params: c.params})
			if info.Status != lunad.RunCompleted || !slices.Equal(info.Path, c.path) {
				t.Fatalf("run: %s %v (%s)", info.Status, info.Path, info.Error)
			}
			w.fsck()
		})
	}
}

func stageWorkflow(name, args, extra string) string {
	return `name = "` + name + `"
version = "1"
start = "s"
[stages.s]
command = ["PYTHON", "agents/agent.py", ` + args + `]
` + extra + `
[[stages.s.next]]
to = "end"
`
}

// TestFailures: retries with backoff until the limit, timeouts, permanent
// failures and crashes, each recorded in the log.
func TestFailures(t *testing.T) {
	for _, c := range []struct {
		name     string
		args     string
		extra    string
		status   lunad.RunStatus
		attempts int
		events   []string
	}{
		{"retry then succeed", `"--fail-first", "2", "--write", "x.txt"`, `retry = { max_attempts = 3, initial = "10ms", max = "50ms" }`, lunad.RunCompleted, 3,
			[]string{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_FAILED s", "RETRY_SCHEDULED s",
				"STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_FAILED s", "RETRY_SCHEDULED s",
				"STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_COMMITTED s", "RUN_COMPLETED"}},
		{"retries exhausted", `"--crash-first", "5"`, `retry = { max_attempts = 2, initial = "10ms", max = "50ms" }`, lunad.RunDeadLettered, 2,
			[]string{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_FAILED s", "RETRY_SCHEDULED s",
				"STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_FAILED s", "DEAD_LETTERED s", "RUN_ABORTED s"}},
		{"permanent", `"--permanent", "the input is not Markdown"`, `retry = { max_attempts = 5 }`, lunad.RunDeadLettered, 1,
			[]string{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_FAILED s", "DEAD_LETTERED s", "RUN_ABORTED s"}},
		{"timeout then retry", `"--sleep-first", "1", "--sleep", "30"`, "timeout = \"2s\"\nretry = { max_attempts = 2, initial = \"10ms\" }", lunad.RunCompleted, 2,
			[]string{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_FAILED s", "RETRY_SCHEDULED s",
				"STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_COMMITTED s", "RUN_COMPLETED"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorkspace(t, map[string]string{"w": stageWorkflow("w", c.args, c.extra)})
			start := time.Now()
			info := w.run(lunad.RunRequest{Workflow: "w"})
			if info.Status != c.status || info.Stages[0].Attempts != c.attempts {
				for _, ev := range info.Events {
					t.Logf("%s %s %d %s", ev.Type, ev.Stage, ev.Attempt, ev.Error)
				}
				t.Fatalf("run: %s after %d attempts (%s)", info.Status, info.Stages[0].Attempts, info.Error)
			}
			if got := wstest.EventTypes(info); !slices.Equal(got, c.events) {
				t.Fatalf("events:\n%s", strings.Join(got, "\n"))
			}
			if got := w.eventTypes(info.ID); !slices.Equal(got, c.events) {
				t.Fatalf("git log of the run ref:\n%s", strings.Join(got, "\n"))
			}
			if time.Since(start) > 20*time.Second {
				t.Fatalf("took %v", time.Since(start))
			}
			dl, err := w.eng.DeadLetters(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if (len(dl) == 1) != (c.status == lunad.RunDeadLettered) {
				t.Fatalf("dead letters: %v", dl)
			}
			w.fsck()
		})
	}
}

// TestDuplicateAndQuarantine: a second completion of a stage visit is
// recorded and ignored; a completion for another workflow version is
// quarantined; neither writes anything.
func TestDuplicateAndQuarantine(t *testing.T) {
	w := newWorkspace(t, map[string]string{"linear": linear})
	info := w.run(lunad.RunRequest{Workflow: "linear"})
	head := w.git("rev-parse", "HEAD")
	var req lunad.StageRequest
	b, err := w.store.RunFile(context.Background(), info.ID, 4, "request.json")
	if err != nil || json.Unmarshal(b, &req) != nil {
		t.Fatalf("request.json of event 4: %v", err)
	}
	resp := lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{"score":1}`), Writes: []lunad.StageWrite{{Path: "out/a.txt", Content: "twice\n"}}}
	if err := w.eng.Complete(context.Background(), req, resp, nil); err != nil {
		t.Fatal(err)
	}
	req.WorkflowVersion = "9@000000000000"
	if err := w.eng.Complete(context.Background(), req, resp, nil); err != nil {
		t.Fatal(err)
	}
	after, _ := w.eng.Run(context.Background(), info.ID)
	got := wstest.EventTypes(after)[len(info.Events):]
	if !slices.Equal(got, []string{"DUPLICATE_IGNORED a", "OUTPUT_QUARANTINED a"}) {
		t.Fatalf("events after: %v", got)
	}
	if after.Status != lunad.RunCompleted || w.git("rev-parse", "HEAD") != head {
		t.Fatal("a duplicate changed the run or the branch")
	}
	w.fsck()
}

// TestStartKey: a key makes the start idempotent.
func TestStartKey(t *testing.T) {
	w := newWorkspace(t, map[string]string{"linear": linear})
	first := w.run(lunad.RunRequest{Workflow: "linear", Key: "nightly-1"})
	again, err := w.eng.Start(context.Background(), lunad.RunRequest{Workflow: "linear", Key: "nightly-1"})
	if err != nil || again.ID != first.ID || again.Status != lunad.RunCompleted {
		t.Fatalf("again: %v %v", again.ID, err)
	}
	_, err = w.eng.Start(context.Background(), lunad.RunRequest{Workflow: "linear", Key: "nightly-1", Params: map[string]string{"x": "1"}})
	var kr *lunad.KeyReusedError
	if !errors.As(err, &kr) || !errors.Is(err, lunad.ErrConflict) {
		t.Fatalf("other params with the key: %v", err)
	}
	if n := strings.Count(w.git("log", "--format=%H"), "\n"); n != 4 {
		t.Fatalf("%d commits on the branch, want 4 (init and three stages)", n)
	}
}

// TestBadInput: what a user can get wrong gets a precise error and changes
// nothing.
func TestBadInput(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"escape":   stageWorkflow("escape", `"--write", "../outside.txt"`, ""),
		"gitdir":   stageWorkflow("gitdir", `"--write", ".git/config"`, ""),
		"lunadir":  stageWorkflow("lunadir", `"--write", ".luna/config.toml"`, ""),
		"abs":      stageWorkflow("abs", `"--write", "/tmp/lunad-escape.txt"`, ""),
		"inway":    stageWorkflow("inway", `"--write", "untracked.txt"`, ""),
		"misnamed": strings.Replace(stageWorkflow("misnamed", `"--score", "1"`, ""), `name = "misnamed"`, `name = "other"`, 1),
		"missing":  strings.Replace(stageWorkflow("missing", `"--score", "1"`, ""), `to = "end"`, "to = \"end\"\nwhen = \"output.nope > 1\"", 1),
	})
	w.file("untracked.txt", "a person's file, not an artifact\n")
	head := w.git("rev-parse", "HEAD")
	for _, c := range []struct{ wf, want string }{
		{"escape", "refused"},
		{"gitdir", "refused"},
		{"lunadir", "refused"},
		{"abs", "refused"},
		{"inway", "refused"},
		{"missing", "output.nope > 1"},
	} {
		info := w.run(lunad.RunRequest{Workflow: c.wf})
		if info.Status != lunad.RunAborted || !strings.Contains(info.Error, c.want) {
			t.Errorf("%s: %s (%s)", c.wf, info.Status, info.Error)
		}
	}
	if w.git("rev-parse", "HEAD") != head {
		t.Fatal("a refused run wrote to the branch")
	}
	for _, c := range []struct {
		req  lunad.RunRequest
		want error
	}{
		{lunad.RunRequest{Workflow: "nope"}, lunad.ErrNotFound},
		{lunad.RunRequest{Workflow: "../x"}, lunad.ErrInvalid},
		{lunad.RunRequest{Workflow: "misnamed"}, lunad.ErrInvalid},
		{lunad.RunRequest{Workflow: "escape", Inputs: []string{"no-such-artifact"}}, lunad.ErrNotFound},
	} {
		if _, err := w.eng.Start(context.Background(), c.req); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.req, err, c.want)
		}
	}
	if _, err := w.eng.Run(context.Background(), "no-such-run"); !errors.Is(err, lunad.ErrNotFound) {
		t.Errorf("unknown run: %v", err)
	}
	w.fsck()
}

// TestCancelAndRetry: cancel stops the agent; retry resumes a dead-lettered
// run with a fresh attempt limit.
func TestCancelAndRetry(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"slow":  stageWorkflow("slow", `"--sleep-first", "9", "--sleep", "60"`, ""),
		"flaky": stageWorkflow("flaky", `"--fail-first", "1", "--write", "f.txt"`, ""),
	})
	ctx := context.Background()
	info, err := w.eng.Start(ctx, lunad.RunRequest{Workflow: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	got, err := w.eng.Cancel(ctx, info.ID)
	if err != nil || got.Status != lunad.RunCancelled || time.Since(start) > 10*time.Second {
		t.Fatalf("cancel: %s %v after %v", got.Status, err, time.Since(start))
	}
	fl := w.run(lunad.RunRequest{Workflow: "flaky"})
	if fl.Status != lunad.RunDeadLettered {
		t.Fatalf("flaky: %s", fl.Status)
	}
	if _, err := w.eng.Retry(ctx, fl.ID); err != nil {
		t.Fatal(err)
	}
	fl = w.wait(fl.ID)
	if fl.Status != lunad.RunCompleted || fl.Stages[0].Attempts != 2 {
		t.Fatalf("retried: %s after %d attempts", fl.Status, fl.Stages[0].Attempts)
	}
	if _, err := w.eng.Retry(ctx, fl.ID); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("retrying a completed run: %v", err)
	}
	rep, err := w.eng.Replay(ctx, fl.ID, false)
	if err != nil || !rep.Identical {
		t.Fatalf("replay of a retried run: %+v %v", rep, err)
	}
}

// TestResume: an engine closed while an attempt runs resumes the run when
// it opens again; the interrupted attempt is recorded, run again, and its
// writes are committed once.
func TestResume(t *testing.T) {
	w := newWorkspace(t, map[string]string{"w": stageWorkflow("w", `"--sleep-first", "1", "--sleep", "60", "--write", "r.txt"`, "")})
	info, err := w.eng.Start(context.Background(), lunad.RunRequest{Workflow: "w"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	w.eng.Close()
	w.open()
	got := w.wait(info.ID)
	if got.Status != lunad.RunCompleted {
		t.Fatalf("resumed: %s (%s)", got.Status, got.Error)
	}
	var interrupted int
	for _, ev := range got.Events {
		if ev.Interrupted {
			interrupted++
		}
	}
	if interrupted != 1 {
		t.Fatalf("%d interrupted attempts recorded, want 1: %v", interrupted, wstest.EventTypes(got))
	}
	if n := strings.Count(w.git("log", "--format=%H", "--", "r.txt"), "\n"); n != 1 {
		t.Fatalf("r.txt written in %d commits", n)
	}
}

// TestReplay: a replay from the log takes the same path and writes the same
// tree; a live replay re-runs the agents and finds no divergence.
func TestReplay(t *testing.T) {
	w := newWorkspace(t, map[string]string{"conditional": conditional, "linear": linear})
	for _, wf := range []string{"conditional", "linear"} {
		info := w.run(lunad.RunRequest{Workflow: wf})
		for _, live := range []bool{false, true} {
			rep, err := w.eng.Replay(context.Background(), info.ID, live)
			if err != nil || !rep.Identical || rep.Tree == "" && wf == "linear" || rep.Divergence != 0 {
				t.Fatalf("%s live=%v: %+v %v", wf, live, rep, err)
			}
		}
	}
}

// TestPrune: a finished run's log is replaced by its summary; a running
// one is kept; the summary still answers Run and Runs.
func TestPrune(t *testing.T) {
	w := newWorkspace(t, map[string]string{
		"linear": linear,
		"slow":   stageWorkflow("slow", `"--sleep-first", "9", "--sleep", "60"`, ""),
	})
	ctx := context.Background()
	done := w.run(lunad.RunRequest{Workflow: "linear"})
	slow, err := w.eng.Start(ctx, lunad.RunRequest{Workflow: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := w.eng.Prune(ctx, 24*time.Hour); err != nil || len(ids) != 0 {
		t.Fatalf("prune of runs younger than a day: %v %v", ids, err)
	}
	ids, err := w.eng.Prune(ctx, -time.Hour) // everything finished
	if err != nil || !slices.Equal(ids, []string{done.ID}) {
		t.Fatalf("pruned %v %v, want only %s", ids, err, done.ID)
	}
	got, err := w.eng.Run(ctx, done.ID)
	if err != nil || got.Status != lunad.RunCompleted || !slices.Equal(got.Path, done.Path) || len(got.Events) != 1 || got.Events[0].Type != lunad.EventRunPruned {
		t.Fatalf("pruned run: %+v %v", got, err)
	}
	if n := len(w.eventTypes(done.ID)); n != 1 {
		t.Fatalf("the pruned run's ref has %d commits, want 1", n)
	}
	if _, err := w.eng.Replay(ctx, done.ID, false); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("replay of a pruned run: %v", err)
	}
	if _, err := w.eng.Cancel(ctx, slow.ID); err != nil {
		t.Fatal(err)
	}
	w.fsck()
}

// TestStageParams: a stage's agent gets the stage's own params with the
// run's over them.
func TestStageParams(t *testing.T) {
	w := newWorkspace(t, map[string]string{"p": strings.Replace(stageWorkflow("p", `"--score", "1"`, ""),
		"[stages.s]\n", "[stages.s]\nparams = { tone = \"plain\", mode = \"stage\" }\n", 1)})
	info := w.run(lunad.RunRequest{Workflow: "p", Params: map[string]string{"mode": "run"}})
	var req lunad.StageRequest
	for _, ev := range info.Events {
		if ev.Type == lunad.EventStageSucceeded {
			b, err := w.store.RunFile(context.Background(), info.ID, ev.Seq, "request.json")
			if err != nil || json.Unmarshal(b, &req) != nil {
				t.Fatalf("request.json: %v", err)
			}
		}
	}
	if req.Params["tone"] != "plain" || req.Params["mode"] != "run" || len(req.Params) != 2 {
		t.Fatalf("the agent's params: %v", req.Params)
	}
}
