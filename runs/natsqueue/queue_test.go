package natsqueue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
)

var twoStageEvents = []string{"RUN_CREATED", "STAGE_ENQUEUED a", "STAGE_STARTED a", "STAGE_SUCCEEDED a", "STAGE_COMMITTED a",
	"STAGE_ENQUEUED b", "STAGE_STARTED b", "STAGE_SUCCEEDED b", "STAGE_COMMITTED b", "RUN_COMPLETED"}

// checkCompleted checks a two-stage run that completed: its events in
// git, each stage's writes committed once by the engine, fsck clean.
func checkCompleted(t *testing.T, w *workspace, info lunad.RunInfo) {
	t.Helper()
	if info.Status != lunad.RunCompleted || !slices.Equal(info.Path, []string{"a", "b"}) {
		t.Fatalf("run: %s %v (%s)", info.Status, info.Path, info.Error)
	}
	if got := wstest.EventTypes(info); !slices.Equal(got, twoStageEvents) {
		t.Fatalf("events:\n%s", strings.Join(got, "\n"))
	}
	if got := w.eventTypes(info.ID); !slices.Equal(got, twoStageEvents) {
		t.Fatalf("git log of the run ref:\n%s", strings.Join(got, "\n"))
	}
	for _, s := range []string{"a", "b"} {
		if n := w.stageCommits(info.ID, s); n != 1 {
			t.Fatalf("stage %s's writes are in %d commits, want 1", s, n)
		}
		b, err := os.ReadFile(filepath.Join(w.root, "out", s+".txt"))
		if want := s + " wrote this in run " + info.ID + "\n"; err != nil || string(b) != want {
			t.Fatalf("out/%s.txt = %q, %v; want %q", s, b, err, want)
		}
	}
	w.git("fsck", "--strict", "--no-progress")
}

// TestThroughQueue: the engine runs a workflow's process stages through
// the queue; a worker runs them in its own clone; the engine alone writes.
func TestThroughQueue(t *testing.T) {
	srv := startServer(t)
	logText, log := newLogs(t)
	agentLog := filepath.Join(t.TempDir(), "agent.log")
	k := newKeys(t)
	q := openQueue(t, srv.url, k.daemon(Options{Logger: log}))
	w := newWorkspace(t, q, log, map[string]string{"two": twoStages("two", `"--log", "`+agentLog+`"`, `"--log", "`+agentLog+`"`, "")})
	startWorker(t, openQueue(t, srv.url, k.worker(Options{Logger: log})), clone(t, "worker-b", w.root), WorkerOptions{Name: "b", Slots: 2, Logger: log})

	info := w.wait(w.start("two"))
	checkCompleted(t, w, info)
	for _, s := range info.Stages {
		var out struct{ Clone string }
		if err := json.Unmarshal(s.Output, &out); err != nil || out.Clone != "worker-b" {
			t.Fatalf("stage %s output %s: want it run in the worker's clone", s.Stage, s.Output)
		}
	}
	if got := executions(t, agentLog, "done"); len(got) != 2 {
		t.Fatalf("executions: %v", got)
	}
	// The version recorded is the agent's in the daemon's workspace.
	if v := info.Events[1].AgentVersion; !strings.HasPrefix(v, "process:") {
		t.Fatalf("agent version %q", v)
	}
	if strings.Contains(logText.String(), "level=WARN") {
		t.Fatalf("warnings:\n%s", logText)
	}
	if q.Dropped() != 0 {
		t.Fatalf("%d messages dropped", q.Dropped())
	}
}

// TestDedup: an attempt published twice is stored once (the second PubAck
// says Duplicate) and executed once.
func TestDedup(t *testing.T) {
	srv := startServer(t)
	logText, log := newLogs(t)
	agentLog := filepath.Join(t.TempDir(), "agent.log")
	k := newKeys(t)
	q := openQueue(t, srv.url, k.daemon(Options{Logger: log}))
	argv := []string{wstest.Python(t), "agents/agent.py", "--log", agentLog}
	root, version := oneStage(t, "daemon", "sandbox = false", argv)
	a, err := q.NewAgent(root, argv, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	req := func(run string, attempt int) lunad.StageRequest {
		return lunad.StageRequest{RunID: run, Stage: "s", Attempt: attempt, Workflow: "w", WorkflowVersion: version,
			IdempotencyKey: "run-" + run}
	}

	// The server: the same message ID twice is one message.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var acks []*jetstream.PubAck
	for _, attempt := range []int{1, 1, 2} {
		data, _ := json.Marshal(stageMsg{Request: req("direct", attempt), Argv: argv, TimeoutMS: 20000, Sent: time.Now()})
		ack, err := q.publish(ctx, q.stageSubject("w", "s"), msgID(req("direct", attempt)), data, kindStage, identityOf(req("direct", attempt)))
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, ack)
	}
	if acks[0].Duplicate || !acks[1].Duplicate || acks[1].Sequence != acks[0].Sequence || acks[2].Duplicate {
		t.Fatalf("acks: %+v %+v %+v; want the second a duplicate of the first", *acks[0], *acks[1], *acks[2])
	}

	startWorker(t, openQueue(t, srv.url, k.worker(Options{Logger: log})), clone(t, "worker", root), WorkerOptions{Name: "w", Slots: 2, Logger: log})
	eventually(t, 30*time.Second, "the direct messages run", func() bool { return len(executions(t, agentLog, "direct", "done")) >= 2 })

	// Process: the same attempt twice, one after the other or at once,
	// gets one answer from one execution.
	for _, c := range []struct {
		name     string
		together bool
	}{{"again after the result", false}, {"twice at once", true}} {
		t.Run(c.name, func(t *testing.T) {
			run := strings.ReplaceAll(c.name, " ", "-")
			before := strings.Count(logText.String(), "stage message is a duplicate")
			var wg sync.WaitGroup
			resps := make([]lunad.StageResponse, 2)
			errs := make([]error, 2)
			for i := range 2 {
				do := func() { resps[i], errs[i] = a.Process(ctx, req(run, 1)) }
				if c.together {
					wg.Go(do)
				} else {
					do()
				}
			}
			wg.Wait()
			for i := range 2 {
				if errs[i] != nil || resps[i].Status != "ok" || !bytes.Equal(resps[i].Output, resps[0].Output) {
					t.Fatalf("process %d: %+v, %v", i, resps[i], errs[i])
				}
			}
			if got := executions(t, agentLog, run); len(got) != 2 { // start, done
				t.Fatalf("executions of %s: %v; want one", run, got)
			}
			if n := strings.Count(logText.String(), "stage message is a duplicate") - before; n != 1 {
				t.Fatalf("%d duplicates logged, want 1", n)
			}
		})
	}
	if got := executions(t, agentLog, "direct", "start"); len(got) != 2 {
		t.Fatalf("executions of the direct messages: %v; want one per attempt", got)
	}
}

const (
	helperURL     = "NATSQUEUE_TEST_WORKER_URL"
	helperRoot    = "NATSQUEUE_TEST_WORKER_ROOT"
	helperKeyFile = "NATSQUEUE_TEST_WORKER_KEY_FILE"
	helperTrusted = "NATSQUEUE_TEST_WORKER_TRUSTED"
)

// runChildWorker is the worker TestWorkerKilledMidStage runs in a child
// process (this test binary, started with helperURL set; TestMain calls
// it instead of the tests) and kills: it never returns on its own.
func runChildWorker(url string) {
	q, err := Open(context.Background(), url, Options{AckWait: 2 * time.Second,
		KeyFile: os.Getenv(helperKeyFile), Trusted: []string{os.Getenv(helperTrusted)}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	NewWorker(q, os.Getenv(helperRoot), WorkerOptions{Name: "child"}).Run(context.Background())
}

// TestWorkerKilledMidStage: a worker process killed while its stage runs
// leaves the message to be redelivered to another worker; the stage
// completes once, the run completes, the writes are committed once.
func TestWorkerKilledMidStage(t *testing.T) {
	srv := startServer(t)
	_, log := newLogs(t)
	agentLog := filepath.Join(t.TempDir(), "agent.log")
	opts := Options{AckWait: 2 * time.Second, Logger: log}
	k := newKeys(t)
	q := openQueue(t, srv.url, k.daemon(opts))
	w := newWorkspace(t, q, log, map[string]string{"two": twoStages("two", `"--log", "`+agentLog+`", "--slow-if", "SLOW"`, `"--log", "`+agentLog+`"`, "")})

	// The first worker, in a child process, whose agent is slow.
	rootA := clone(t, "worker-a", w.root, "SLOW")
	var childOut bytes.Buffer
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), helperURL+"="+srv.url, helperRoot+"="+rootA, helperKeyFile+"="+k.workerFile, helperTrusted+"="+k.daemonPub)
	child.Stdout, child.Stderr = &childOut, &childOut
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	childDone := false
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the child worker:\n%s", childOut.String())
		}
		if !childDone {
			child.Process.Kill()
			child.Wait()
		}
	})

	id := w.start("two")
	var pid int
	eventually(t, 30*time.Second, "the first worker's agent starts", func() bool {
		b, err := os.ReadFile(filepath.Join(rootA, "agent.pid"))
		pid, _ = strconv.Atoi(string(b))
		return err == nil && pid > 0
	})
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })

	// The second worker starts, then the first one dies mid-stage (its
	// agent's process group with it).
	startWorker(t, openQueue(t, srv.url, k.worker(opts)), clone(t, "worker-b", w.root), WorkerOptions{Name: "b", Logger: log})
	killed := time.Now()
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	childDone = true
	syscall.Kill(-pid, syscall.SIGKILL)

	info := w.wait(id)
	checkCompleted(t, w, info)
	if got := executions(t, agentLog, "a", "start"); !slices.Equal(got, []string{id + " a 1 start worker-a", id + " a 1 start worker-b"}) {
		t.Fatalf("executions of stage a: %v\nchild:\n%s", got, childOut.String())
	}
	if got := executions(t, agentLog, "a", "done"); !slices.Equal(got, []string{id + " a 1 done worker-b"}) {
		t.Fatalf("stage a done: %v", got)
	}
	if after := time.Since(killed); after < time.Second {
		t.Fatalf("the message was redelivered %v after the kill, before its ack wait", after)
	}
}

// TestAbandoned: a stage message JetStream gives up on — delivered
// MaxDeliver times and never acked, or terminated — fails the waiting
// Process at once (not at the stage's timeout); the engine retries, then
// dead-letters the run.
func TestAbandoned(t *testing.T) {
	for _, c := range []struct {
		name    string
		handle  func(jetstream.Msg)
		deliver int // deliveries per attempt
		why     string
	}{
		{"max deliveries", func(jetstream.Msg) {}, 2, "gave up on the stage message after 2 deliveries"},
		{"terminated", func(m jetstream.Msg) { m.TermWithReason("cannot run it here") }, 1, "terminated the stage message: cannot run it here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := startServer(t)
			_, log := newLogs(t)
			q := openQueue(t, srv.url, newKeys(t).daemon(Options{AckWait: time.Second, MaxDeliver: 2, Logger: log}))
			w := newWorkspace(t, q, log, map[string]string{"one": `name = "one"
version = "1"
start = "s"
[stages.s]
command = ["PYTHON", "agents/agent.py"]
timeout = "30s"
retry = { max_attempts = 2, initial = "10ms", max = "20ms" }
[[stages.s.next]]
to = "end"
`})
			// A consumer in the workers' place that never acks.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cons, err := q.js.CreateConsumer(ctx, q.stageStream, jetstream.ConsumerConfig{Durable: workersConsumer,
				AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Second, MaxDeliver: 2})
			if err != nil {
				t.Fatal(err)
			}
			var deliveries sync.WaitGroup
			var mu sync.Mutex
			n := 0
			deliveries.Go(func() {
				for ctx.Err() == nil {
					if m, err := fetch(cons); err == nil && m != nil {
						mu.Lock()
						n++
						mu.Unlock()
						c.handle(m)
					}
				}
			})
			defer deliveries.Wait()
			defer cancel()

			start := time.Now()
			info := w.wait(w.start("one"))
			if info.Status != lunad.RunDeadLettered || info.Stages[0].Attempts != 2 {
				t.Fatalf("run: %s after %d attempts (%s)", info.Status, info.Stages[0].Attempts, info.Error)
			}
			want := []string{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_FAILED s", "RETRY_SCHEDULED s",
				"STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_FAILED s", "DEAD_LETTERED s", "RUN_ABORTED s"}
			if got := w.eventTypes(info.ID); !slices.Equal(got, want) {
				t.Fatalf("git log of the run ref:\n%s", strings.Join(got, "\n"))
			}
			for _, ev := range info.Events {
				if ev.Type == lunad.EventStageFailed && !strings.Contains(ev.Error, c.why) {
					t.Fatalf("STAGE_FAILED error %q, want %q", ev.Error, c.why)
				}
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Fatalf("took %v: the stage's timeout, not the advisory, ended the attempts", took)
			}
			mu.Lock()
			if n != 2*c.deliver {
				t.Errorf("%d deliveries, want %d", n, 2*c.deliver)
			}
			mu.Unlock()
			// The abandoned messages are gone from the work queue.
			si, err := q.stages.Info(ctx)
			if err != nil || si.State.Msgs != 0 {
				t.Fatalf("stage stream: %v messages, %v", si.State.Msgs, err)
			}
		})
	}
}

// TestServerAway: the NATS server stops while a stage waits and starts
// again on the same port and store; the stage waits and resumes, the run
// completes, nothing is applied twice.
func TestServerAway(t *testing.T) {
	for _, c := range []struct {
		name  string
		aArgs string
		// away stops the server at the right moment; start is the run.
		away func(t *testing.T, srv *testServer, w *workspace, agentLog string) string
	}{
		{"while a worker runs the stage", `"--sleep", "2"`, func(t *testing.T, srv *testServer, w *workspace, agentLog string) string {
			id := w.start("two")
			eventually(t, 30*time.Second, "stage a starts", func() bool { return len(executions(t, agentLog, id, "a", "start")) > 0 })
			srv.stop()
			return id
		}},
		{"before the stage is published", `"--sleep", "0"`, func(t *testing.T, srv *testServer, w *workspace, agentLog string) string {
			srv.stop()
			return w.start("two")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := startServer(t)
			_, log := newLogs(t)
			agentLog := filepath.Join(t.TempDir(), "agent.log")
			k := newKeys(t)
			q := openQueue(t, srv.url, k.daemon(Options{Logger: log}))
			w := newWorkspace(t, q, log, map[string]string{"two": twoStages("two", `"--log", "`+agentLog+`", `+c.aArgs, `"--log", "`+agentLog+`"`, "")})
			startWorker(t, openQueue(t, srv.url, k.worker(Options{Logger: log})), clone(t, "worker", w.root), WorkerOptions{Name: "w", Logger: log})

			id := c.away(t, srv, w, agentLog)
			time.Sleep(1500 * time.Millisecond)
			if info, err := w.eng.Run(context.Background(), id); err != nil || info.Status != lunad.RunRunning {
				t.Fatalf("run while the server is away: %+v, %v", info.Status, err)
			}
			srv.start()
			info := w.wait(id)
			checkCompleted(t, w, info)
			if got := executions(t, agentLog, id, "b", "done"); len(got) != 1 {
				t.Fatalf("stage b ran %v", got)
			}
		})
	}
}

// TestWorkerAgents: a worker's Agents filter names its consumer and
// subjects; a bad entry is refused.
func TestWorkerAgents(t *testing.T) {
	q := &Queue{opts: Options{Name: "LUNAD"}}
	for _, c := range []struct {
		agents   []string
		name     string
		subjects []string
		err      bool
	}{
		{nil, "workers", nil, false},
		{[]string{"review"}, "", []string{"LUNAD.stages.review.*"}, false},
		{[]string{"review.draft", "ship", "review.draft"}, "", []string{"LUNAD.stages.review.draft", "LUNAD.stages.ship.*"}, false},
		{[]string{"a.b.c"}, "", nil, true},
		{[]string{"re view"}, "", nil, true},
		{[]string{""}, "", nil, true},
	} {
		name, subjects, err := NewWorker(q, "/tmp", WorkerOptions{Agents: c.agents}).filter()
		if c.err {
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Errorf("%q: err %v, want ErrInvalid", c.agents, err)
			}
			continue
		}
		if err != nil || !slices.Equal(subjects, c.subjects) || c.name != "" && name != c.name || c.name == "" && !strings.HasPrefix(name, "workers-") {
			t.Errorf("%q: %s %v %v", c.agents, name, subjects, err)
		}
	}
}

// TestWorkerOverlap: a worker whose stages overlap another consumer's is
// refused by the server, and Run says so at once.
func TestWorkerOverlap(t *testing.T) {
	srv := startServer(t)
	_, log := newLogs(t)
	q := openQueue(t, srv.url, newKeys(t).worker(Options{Logger: log}))
	startWorker(t, q, clone(t, "all", ""), WorkerOptions{Logger: log})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := NewWorker(q, clone(t, "some", ""), WorkerOptions{Agents: []string{"review"}, Logger: log}).Run(ctx)
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "workqueue") {
		t.Fatalf("Run: %v (ctx: %v); want the server's refusal", err, ctx.Err())
	}
	t.Log(err)
}

// TestWorkerStops: a worker whose context ends mid-stage stops its agent,
// naks the message and returns; another worker runs the stage at once
// (not after the ack wait).
func TestWorkerStops(t *testing.T) {
	srv := startServer(t)
	_, log := newLogs(t)
	agentLog := filepath.Join(t.TempDir(), "agent.log")
	k := newKeys(t)
	q := openQueue(t, srv.url, k.daemon(Options{AckWait: time.Minute, Logger: log}))
	wq := openQueue(t, srv.url, k.worker(Options{AckWait: time.Minute, Logger: log}))
	w := newWorkspace(t, q, log, map[string]string{"two": twoStages("two", `"--log", "`+agentLog+`", "--slow-if", "SLOW"`, `"--log", "`+agentLog+`"`, "")})

	rootA := clone(t, "worker-a", w.root, "SLOW")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- NewWorker(wq, rootA, WorkerOptions{Name: "a", Logger: log}).Run(ctx) }()
	id := w.start("two")
	eventually(t, 30*time.Second, "the first worker's agent starts", func() bool {
		_, err := os.Stat(filepath.Join(rootA, "agent.pid"))
		return err == nil
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	started := time.Now()
	startWorker(t, wq, clone(t, "worker-b", w.root), WorkerOptions{Name: "b", Logger: log})
	info := w.wait(id)
	checkCompleted(t, w, info)
	if took := time.Since(started); took > 20*time.Second {
		t.Fatalf("the stage waited %v: the message was not nak'ed", took)
	}
	if got := executions(t, agentLog, "a", "done"); !slices.Equal(got, []string{id + " a 1 done worker-b"}) {
		t.Fatalf("stage a done: %v", got)
	}
}
