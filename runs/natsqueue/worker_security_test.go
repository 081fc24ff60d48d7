package natsqueue

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/sandbox"
)

// TestStageRefused: a worker runs nothing for a stage message that its
// daemon did not sign (unsigned, another key, tampered with, stale: the
// message is dropped and counted) or whose command is not its clone's
// workflow's at the message's version (it answers with a refusal). The
// sentinel file the forged command would create never appears.
func TestStageRefused(t *testing.T) {
	srv := startServer(t)
	_, log := newLogs(t)
	k := newKeys(t)
	dq := openQueue(t, srv.url, k.daemon(Options{Logger: log}))
	wq := openQueue(t, srv.url, k.worker(Options{Logger: log}))
	benign := []string{wstest.Python(t), "agents/agent.py"}
	root, version := oneStage(t, "worker", "sandbox = false", benign)
	sentinel := filepath.Join(t.TempDir(), "SENTINEL")
	evil := []string{"/bin/sh", "-c", "touch " + sentinel + `; echo '{"status":"ok"}'`}
	startWorker(t, wq, root, WorkerOptions{Name: "w", Logger: log})

	daemonKey, err := LoadKey(k.daemonFile)
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	f := newForger(t, srv.url)
	results, err := nats.Connect(srv.url)
	if err != nil {
		t.Fatal(err)
	}
	defer results.Close()

	for i, c := range []struct {
		name     string
		workflow string
		version  string
		stage    string
		argv     []string
		age      time.Duration
		sign     func(subject string, id identity, body []byte) nats.Header
		want     string // "" dropped, else in the answer ("ok": it ran)
	}{
		{name: "unsigned", argv: evil},
		{name: "signed by a key the worker does not trust", argv: evil,
			sign: func(s string, id identity, b []byte) nats.Header { return signed(t, stranger, kindStage, s, id, b) }},
		{name: "the daemon's signature over another message", argv: evil,
			sign: func(s string, id identity, b []byte) nats.Header {
				return signed(t, daemonKey, kindStage, s, id, mustJSON(t, stageMsg{Argv: benign}))
			}},
		{name: "the daemon's signature as a result", argv: evil,
			sign: func(s string, id identity, b []byte) nats.Header { return signed(t, daemonKey, kindResult, s, id, b) }},
		{name: "stale: older than the duplicate window", argv: benign, age: 2 * DefaultDuplicateWindow},
		{name: "a command that is not the workflow's", argv: evil, want: "is not stage s's in workflow w"},
		{name: "another version of the workflow", argv: evil, version: "2@" + strings.Repeat("0", 40), want: "bring the clone to the daemon's version"},
		{name: "a stage the workflow does not have", argv: evil, stage: "t", want: `has no stage "t"`},
		{name: "a workflow name that is a path", argv: evil, workflow: "../../w", want: "is not a workflow's"},
		{name: "the workflow's own command", argv: benign, want: "ok"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := lunad.StageRequest{RunID: "r", Stage: "s", Attempt: i + 1, Workflow: "w", WorkflowVersion: version, IdempotencyKey: "key"}
			if c.workflow != "" {
				req.Workflow = c.workflow
			}
			if c.version != "" {
				req.WorkflowVersion = c.version
			}
			if c.stage != "" {
				req.Stage = c.stage
			}
			body := mustJSON(t, stageMsg{Request: req, Argv: c.argv, TimeoutMS: 20000, Sent: time.Now().Add(-c.age)})
			subject := dq.stageSubject(req.Workflow, req.Stage)
			sign := c.sign
			if sign == nil {
				sign = func(s string, id identity, b []byte) nats.Header { return signed(t, daemonKey, kindStage, s, id, b) }
			}
			if c.name == "unsigned" {
				sign = func(string, identity, []byte) nats.Header { return nil }
			}
			answers, err := results.SubscribeSync(dq.resultSubject(req))
			if err != nil {
				t.Fatal(err)
			}
			defer answers.Unsubscribe()
			if err := results.Flush(); err != nil {
				t.Fatal(err)
			}
			dropped := wq.Dropped()
			f.publish(subject, msgID(req), body, sign(subject, identityOf(req), body))

			if c.want == "" {
				eventually(t, 10*time.Second, "the worker drops the message", func() bool { return wq.Dropped() == dropped+1 })
				return
			}
			m, err := answers.NextMsg(10 * time.Second)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			var r resultMsg
			if err := json.Unmarshal(m.Data, &r); err != nil {
				t.Fatal(err)
			}
			if _, err := verify(map[string]bool{k.workerPub: true}, m.Header, kindResult, m.Subject, identityOf(req), m.Data); err != nil {
				t.Fatalf("the answer is not the worker's: %v", err)
			}
			got := r.Error
			if r.Response != nil {
				got = r.Response.Status
			}
			if !strings.Contains(got, c.want) || c.want != "ok" && !strings.Contains(got, "refused, nothing ran") {
				t.Fatalf("answer %q, want %q", got, c.want)
			}
		})
	}
	if _, err := os.Stat(sentinel); err == nil {
		t.Fatal("the forged command ran: the sentinel exists")
	}
}

// escapeAgent tries to write the file its argument names (outside the
// clone) and says whether it could.
const escapeAgent = `import json, sys
json.load(sys.stdin)
try:
    with open(sys.argv[1], "w") as f:
        f.write("escaped\n")
    escaped = True
except OSError:
    escaped = False
print(json.dumps({"status": "ok", "output": {"escaped": escaped}}))
`

// TestWorkerSandbox: a worker runs a stage's command in the sandbox (here
// it cannot write outside the clone), and as a plain process only when
// the workflow file says sandbox = false.
func TestWorkerSandbox(t *testing.T) {
	ctx := context.Background()
	caps := sandbox.Probe(ctx)
	for _, c := range []struct {
		name    string
		extra   string
		escaped bool
	}{
		{"in the sandbox", "", false},
		{"sandbox = false", "sandbox = false", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := startServer(t)
			_, log := newLogs(t)
			runner, err := sandbox.New(caps, sandbox.Options{Logger: log})
			if err != nil {
				t.Fatalf("this test needs the sandbox (bwrap; lunad doctor says what is missing): %v", err)
			}
			k := newKeys(t)
			q := openQueue(t, srv.url, k.daemon(Options{Logger: log}))
			outside := filepath.Join(t.TempDir(), "escaped")
			w := newWorkspace(t, q, log, map[string]string{"esc": `name = "esc"
version = "1"
start = "s"
[stages.s]
command = ["PYTHON", "agents/escape.py", "` + outside + `"]
timeout = "30s"
` + c.extra + `
[[stages.s.next]]
to = "end"
`})
			writeFile(t, filepath.Join(w.root, "agents/escape.py"), escapeAgent)
			root := clone(t, "worker", w.root)
			writeFile(t, filepath.Join(root, "agents/escape.py"), escapeAgent)
			startWorker(t, openQueue(t, srv.url, k.worker(Options{Logger: log})), root, WorkerOptions{Name: "w", Logger: log, Sandbox: runner})

			info := w.wait(w.start("esc"))
			if info.Status != lunad.RunCompleted {
				t.Fatalf("run: %s (%s)", info.Status, info.Error)
			}
			var out struct{ Escaped bool }
			if err := json.Unmarshal(info.Stages[0].Output, &out); err != nil || out.Escaped != c.escaped {
				t.Fatalf("output %s, %v; want escaped %v", info.Stages[0].Output, err, c.escaped)
			}
			if _, err := os.Stat(outside); (err == nil) != c.escaped {
				t.Fatalf("the file outside the clone: %v; want it written: %v", err, c.escaped)
			}
		})
	}
}

// FuzzVerify: whatever a message's headers and body, verify does not
// panic, and accepts only what the trusted key signed for that kind,
// subject and attempt.
func FuzzVerify(f *testing.F) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		f.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	id := identity{Run: "r", Workflow: "w", WorkflowVersion: "1@abc", Stage: "s", Attempt: 1, Key: "k"}
	good := &nats.Msg{Subject: "LUNAD.results.k.1", Data: []byte(`{"for":{}}`)}
	if err := sign(kp, good, kindResult, id); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Data, good.Header.Get(hdrSigner), good.Header.Get(hdrSignature), "r", 1)
	f.Add([]byte("x"), pub, "", "r\n\"s\"", 2)
	f.Fuzz(func(t *testing.T, body []byte, signer, sig, run string, attempt int) {
		h := nats.Header{}
		h.Set(hdrSigner, signer)
		h.Set(hdrSignature, sig)
		fid := id
		fid.Run, fid.Attempt = run, attempt
		_, err := verify(map[string]bool{pub: true}, h, kindResult, good.Subject, fid, body)
		same := string(body) == string(good.Data) && signer == pub && sig == good.Header.Get(hdrSignature) && fid == id
		if err == nil && !same {
			t.Fatalf("verified a message the key did not sign: %q by %q", body, signer)
		}
		if same && err != nil {
			t.Fatalf("the signed message does not verify: %v", err)
		}
	})
}
