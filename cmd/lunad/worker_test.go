package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/internal/wstest"
)

// workerAgent logs each execution to its clone's log, sleeps when the clone
// has a SLOW file, and writes one file.
const workerAgent = `import json, sys, os, time
req = json.load(sys.stdin)
with open("executions.log", "a") as f:
    f.write("%s %s %d\n" % (req["run_id"], req["stage"], req["attempt"]))
if os.path.exists("SLOW"):
    time.sleep(60)
print(json.dumps({"status": "ok", "output": {"worker": os.path.basename(os.getcwd())},
    "writes": [{"path": "out/%s.txt" % req["stage"], "content": "%s\n" % req["stage"]}]}))
`

// TestWorkersOverNATS: a daemon with a queue, and two `lunad worker`
// processes in their own clones, against an embedded JetStream server.
// Messages are signed with the keys `lunad worker key` prints, and the
// workers run the stage in the sandbox. The worker holding the stage is
// SIGKILLed mid-stage; the stage is redelivered to the other worker, runs
// there once, and its writes are committed once by the daemon.
func TestWorkersOverNATS(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	url := fmt.Sprintf("nats://127.0.0.1:%d", srv.Addr().(*net.TCPAddr).Port)

	w := newWS(t)
	config := "[queue]\nack_wait = \"2s\"\n"
	put := func(dir, name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	flow := fmt.Sprintf("name = \"q\"\nversion = \"1\"\nstart = \"a\"\n[stages.a]\ncommand = [%q, \"agents/w.py\"]\ntimeout = \"90s\"\n[[stages.a.next]]\nto = \"end\"\n", wstest.Python(t))
	put(w.dir, ".luna/workflows/q.toml", flow)
	// Each side registers the other's key: the daemon its workers', the
	// workers their daemon's.
	key := func(dir string, args ...string) string {
		out, err := exec.Command(lunadBin, append([]string{"worker", "key", "--dir", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("lunad worker key: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	clones := []string{filepath.Join(w.home, "slow"), filepath.Join(w.home, "fast")}
	var workers []string
	for _, c := range clones {
		put(c, "agents/w.py", workerAgent)
		put(c, ".luna/workflows/q.toml", flow)
		wstest.GitRun(t, w.home, "init", "-q", c)
		workers = append(workers, fmt.Sprintf("%q", key(c)))
	}
	daemonKey := key(w.dir, "--daemon")
	put(w.dir, ".luna/config.toml", config+"workers = ["+strings.Join(workers, ", ")+"]\n")
	for _, c := range clones {
		put(c, ".luna/config.toml", config+fmt.Sprintf("daemons = [%q]\n", daemonKey))
	}
	put(clones[0], "SLOW", "")

	w.env = append(w.env, "LUNAD_QUEUE_URL="+url)
	w.serve()
	startWorker := func(dir string) *exec.Cmd {
		cmd := exec.Command(lunadBin, "worker", "--dir", dir)
		cmd.Env = env(w.home, "LUNAD_QUEUE_URL="+url)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			if t.Failed() {
				t.Logf("worker %s:\n%s", dir, out.String())
			}
		})
		return cmd
	}
	slow := startWorker(clones[0])
	id := strings.TrimSpace(w.ok("run", "start", "q"))
	// The slow worker took the stage once its agent logged it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, _ := os.ReadFile(filepath.Join(clones[0], "executions.log")); len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first worker never ran the stage")
		}
		time.Sleep(20 * time.Millisecond)
	}
	startWorker(clones[1])
	slow.Process.Signal(syscall.SIGKILL)

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
	if info.Status != lunad.RunCompleted || string(info.Stages[0].Output) != `{"worker":"fast"}` {
		t.Fatalf("run: %s %s (%s)", info.Status, info.Stages[0].Output, info.Error)
	}
	if info.Stages[0].Attempts != 1 {
		t.Fatalf("%d attempts: the redelivery is the same attempt", info.Stages[0].Attempts)
	}
	fast, _ := os.ReadFile(filepath.Join(clones[1], "executions.log"))
	if got := strings.Count(string(fast), "\n"); got != 1 {
		t.Fatalf("the second worker ran the stage %d times", got)
	}
	if n := strings.Count(w.git("log", "--format=%H", "--", "out/a.txt"), "\n"); n != 1 {
		t.Fatalf("the stage's writes are in %d commits", n)
	}
	w.git("fsck", "--strict", "--no-progress")
}

// TestWorkerKey: `lunad worker key` prints the same key each time, its
// seed kept 0600 in the git directory; the daemon's key is another. A
// worker or a daemon with a queue but no registered keys of the other
// side refuses to start, saying which setting to fill.
func TestWorkerKey(t *testing.T) {
	w := newWS(t)
	worker := strings.TrimSpace(w.ok("worker", "key"))
	if again := strings.TrimSpace(w.ok("worker", "key")); again != worker || !strings.HasPrefix(worker, "U") {
		t.Fatalf("worker key %q, then %q", worker, again)
	}
	if d := strings.TrimSpace(w.ok("worker", "key", "--daemon")); d == worker || !strings.HasPrefix(d, "U") {
		t.Fatalf("daemon key %q (worker's %q)", d, worker)
	}
	for _, f := range []string{"queue-worker.nk", "queue-daemon.nk"} {
		fi, err := os.Stat(filepath.Join(w.dir, ".git", "luna", f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v; want mode 0600", f, fi, err)
		}
	}
	if st := w.git("status", "--porcelain"); st != "" {
		t.Fatalf("the keys show in the working tree:\n%s", st)
	}
	w.env = append(w.env, "LUNAD_QUEUE_URL=nats://127.0.0.1:1")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"worker"}, "queue.daemons is empty"},
		{[]string{"serve"}, "queue.workers is empty"},
	} {
		r := w.run(c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Fatalf("%v; want it to refuse with %q", r, c.want)
		}
	}
}
