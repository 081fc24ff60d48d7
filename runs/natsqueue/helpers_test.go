package natsqueue

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/runs/workflow"
)

// testAgent is the agent every test stage runs. It notes each execution
// in the --log file ("RUN STAGE ATTEMPT start|done CLONE"), sleeps with
// --sleep, sleeps for a minute when the file --slow-if names exists in its
// clone (writing its pid to agent.pid first), and writes --write.
const testAgent = `import json, os, sys, time
req = json.load(sys.stdin)
a = sys.argv[1:]
opt = dict(zip(a[::2], a[1::2]))
clone = os.path.basename(os.getcwd())
def note(what):
    if "--log" in opt:
        with open(opt["--log"], "a") as f:
            f.write("%s %s %d %s %s\n" % (req["run_id"], req["stage"], req["attempt"], what, clone))
note("start")
if "--slow-if" in opt and os.path.exists(opt["--slow-if"]):
    with open("agent.pid.tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename("agent.pid.tmp", "agent.pid")
    time.sleep(60)
if "--sleep" in opt:
    time.sleep(float(opt["--sleep"]))
writes = []
if "--write" in opt:
    writes.append({"path": opt["--write"], "content": "%s wrote this in run %s\n" % (req["stage"], req["run_id"])})
note("done")
print(json.dumps({"status": "ok", "output": {"stage": req["stage"], "clone": clone}, "writes": writes}))
`

// testServer is an embedded NATS server with JetStream on 127.0.0.1.
type testServer struct {
	t    *testing.T
	opts server.Options
	mu   sync.Mutex
	srv  *server.Server
	url  string
}

// startServer starts a server on a random port with a temporary store;
// it stops when the test ends.
func startServer(t *testing.T) *testServer {
	t.Helper()
	ts := &testServer{t: t, opts: server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true}}
	ts.start()
	ts.opts.Port = ts.srv.Addr().(*net.TCPAddr).Port // restarts use the same port
	ts.url = ts.srv.ClientURL()
	t.Cleanup(ts.stop)
	return ts
}

func (ts *testServer) start() {
	ts.t.Helper()
	opts := ts.opts
	s, err := server.NewServer(&opts)
	if err != nil {
		ts.t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		ts.t.Fatal("the NATS server did not start")
	}
	ts.mu.Lock()
	ts.srv = s
	ts.mu.Unlock()
}

// stop shuts the server down (its store stays for a restart).
func (ts *testServer) stop() {
	ts.mu.Lock()
	s := ts.srv
	ts.srv = nil
	ts.mu.Unlock()
	if s != nil {
		s.Shutdown()
		s.WaitForShutdown()
	}
}

// logs is a logger whose output the test can read, printed when the test
// fails.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newLogs(t *testing.T) (*logs, *slog.Logger) {
	l := &logs{}
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("NATSQUEUE_TEST_LOGS") != "" {
			t.Logf("logs:\n%s", l.String())
		}
	})
	return l, slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testKeys are a test's signing keys: the daemon's and a worker's seed
// files, and their public keys.
type testKeys struct {
	daemonFile, daemonPub string
	workerFile, workerPub string
}

func newKeys(t *testing.T) testKeys {
	t.Helper()
	dir := t.TempDir()
	k := testKeys{daemonFile: filepath.Join(dir, "daemon.nk"), workerFile: filepath.Join(dir, "worker.nk")}
	var err error
	if k.daemonPub, err = PublicKey(k.daemonFile); err != nil {
		t.Fatal(err)
	}
	if k.workerPub, err = PublicKey(k.workerFile); err != nil {
		t.Fatal(err)
	}
	return k
}

// daemon and worker are opts with the daemon's or the worker's key,
// trusting the other's.
func (k testKeys) daemon(opts Options) Options {
	opts.KeyFile, opts.Trusted = k.daemonFile, []string{k.workerPub}
	return opts
}

func (k testKeys) worker(opts Options) Options {
	opts.KeyFile, opts.Trusted = k.workerFile, []string{k.daemonPub}
	return opts
}

// openQueue opens a queue on ts that closes when the test ends.
func openQueue(t *testing.T, url string, opts Options) *Queue {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q, err := Open(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// clone is a worker's clone of the workspace at from: a directory named
// name holding the agent, from's workflow files, and more files.
func clone(t *testing.T, name, from string, files ...string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), name)
	writeFile(t, filepath.Join(root, "agents/agent.py"), testAgent)
	wfs, _ := filepath.Glob(filepath.Join(from, ".luna/workflows/*.toml"))
	for _, f := range wfs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(root, ".luna/workflows", filepath.Base(f)), string(b))
	}
	for _, f := range files {
		writeFile(t, filepath.Join(root, f), "")
	}
	return root
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startWorker runs a worker on q in root until the test ends, and waits
// until it is ready (its consumer exists).
func startWorker(t *testing.T, q *Queue, root string, opts WorkerOptions) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	w := NewWorker(q, root, opts)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
	})
	name, _, err := w.filter()
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the worker's consumer exists", func() bool {
		_, err := q.js.Consumer(ctx, q.stageStream, name)
		return err == nil
	})
}

// workspace is a lunad workspace whose engine runs its process stages
// through a queue.
type workspace struct {
	t     *testing.T
	root  string
	store *gitstore.Store
	q     *Queue
	eng   *runs.Engine
}

func newWorkspace(t *testing.T, q *Queue, log *slog.Logger, workflows map[string]string) *workspace {
	t.Helper()
	root := t.TempDir()
	n := 0
	store, _, err := gitstore.Init(root, gitstore.Options{NewID: func() string { n++; return fmt.Sprintf("a%07d", n) },
		Human: gitstore.Signature{Name: "Ada", Email: "ada@example.com"}, LockTimeout: 5 * time.Second, IndexSyncDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	writeFile(t, filepath.Join(root, "agents/agent.py"), testAgent)
	for name, text := range workflows {
		writeFile(t, filepath.Join(root, ".luna/workflows", name+".toml"), strings.ReplaceAll(text, "PYTHON", wstest.Python(t)))
	}
	ids := 0
	eng, err := runs.Open(context.Background(), runs.Options{Root: root, Store: store, Effects: effects{store},
		NewProcess: q.NewAgent, Jitter: func() float64 { return 0.5 }, Logger: log,
		NewID: func() string { ids++; return fmt.Sprintf("run-%d", ids) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &workspace{t: t, root: root, store: store, q: q, eng: eng}
}

// effects commits through the store, as the workspace service does.
type effects struct{ s *gitstore.Store }

func (e effects) ApplyWrites(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	refs, _, _, err := e.s.ApplyWrites(ctx, writes, ch)
	return refs, err
}
func (e effects) Ack(ctx context.Context, ref, symbol string, ch lunad.Change) (lunad.ArtifactRef, error) {
	res, err := e.s.Ack(ctx, ref, symbol, ch)
	return res.Ref(), err
}
func (e effects) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	return e.s.Artifact(ctx, ref)
}
func (e effects) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	return e.s.Read(ctx, ref, at)
}

func (w *workspace) start(workflow string) string {
	w.t.Helper()
	info, err := w.eng.Start(context.Background(), lunad.RunRequest{Workflow: workflow})
	if err != nil {
		w.t.Fatalf("start %s: %v", workflow, err)
	}
	return info.ID
}

func (w *workspace) wait(id string) lunad.RunInfo {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	info, err := w.eng.Wait(ctx, id)
	if err != nil {
		w.t.Fatalf("wait %s: %v", id, err)
	}
	return info
}

// git runs the real git binary in the workspace.
func (w *workspace) git(args ...string) string {
	w.t.Helper()
	return wstest.GitRun(w.t, w.root, args...)
}

// eventTypes is the run's events as `git log` reads them from its ref.
func (w *workspace) eventTypes(id string) []string {
	w.t.Helper()
	return wstest.LoggedEventTypes(w.t, w.root, id)
}

// stageCommits counts the commits on the branch holding stage's writes
// for run id.
func (w *workspace) stageCommits(id, stage string) int {
	w.t.Helper()
	n := 0
	for _, l := range lines(w.git("log", "--format=%(trailers:key=Luna-Run,valueonly,separator=) %(trailers:key=Luna-Stage,valueonly,separator=)")) {
		if l == id+" "+stage {
			n++
		}
	}
	return n
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// executions is the agent log's lines matching all of words.
func executions(t *testing.T, log string, words ...string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range lines(string(b)) {
		f := strings.Fields(l)
		ok := true
		for _, w := range words {
			found := false
			for _, x := range f {
				found = found || x == w
			}
			ok = ok && found
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// eventually waits up to d for cond.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// twoStages is a workflow a → b; the stages' agents get aArgs and bArgs.
// They run unsandboxed (they write logs outside the clone).
func twoStages(name, aArgs, bArgs, extra string) string {
	return `name = "` + name + `"
version = "1"
start = "a"
[stages.a]
command = ["PYTHON", "agents/agent.py", "--write", "out/a.txt", ` + aArgs + `]
timeout = "30s"
sandbox = false
` + extra + `
[[stages.a.next]]
to = "b"
[stages.b]
command = ["PYTHON", "agents/agent.py", "--write", "out/b.txt", ` + bArgs + `]
timeout = "30s"
sandbox = false
[[stages.b.next]]
to = "end"
`
}

// oneStage is a clone named name whose workflow w has one stage s running
// argv, with extra lines in the stage's table; it returns the clone and
// the workflow's version.
func oneStage(t *testing.T, name, extra string, argv []string) (string, string) {
	t.Helper()
	root := clone(t, name, "")
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = strconv.Quote(a)
	}
	path := filepath.Join(root, ".luna/workflows/w.toml")
	writeFile(t, path, `name = "w"
version = "1"
start = "s"
[stages.s]
command = [`+strings.Join(quoted, ", ")+`]
timeout = "20s"
`+extra+`
[[stages.s.next]]
to = "end"
`)
	wf, err := workflow.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return root, wf.VersionID()
}
