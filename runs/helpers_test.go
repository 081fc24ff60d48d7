package runs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/runs"
)

// testAgent is the process agent every test workflow uses. Its flags say
// how each stage behaves: fail (transient) or crash on the first N
// attempts, sleep on them, fail permanently, write a file, report a score.
const testAgent = `import json, sys, time, os
req = json.load(sys.stdin)
a = sys.argv[1:]
opt = dict(zip(a[::2], a[1::2]))
n = req["attempt"]
if int(opt.get("--fail-first", 0)) >= n:
    print(json.dumps({"status": "fail", "error": "transient failure on attempt %d" % n}))
    sys.exit(0)
if int(opt.get("--crash-first", 0)) >= n:
    sys.stderr.write("crashing on attempt %d\n" % n)
    sys.exit(3)
if int(opt.get("--sleep-first", 0)) >= n:
    time.sleep(float(opt.get("--sleep", "30")))
if "--permanent" in opt:
    print(json.dumps({"status": "fail", "permanent": True, "error": opt["--permanent"]}))
    sys.exit(0)
writes = []
if "--write" in opt:
    writes.append({"path": opt["--write"], "content": "%s wrote this in run %s\n" % (req["stage"], req["run_id"])})
if "--log" in opt:
    with open(opt["--log"], "a") as f:
        f.write("%s %s %d\n" % (req["run_id"], req["stage"], n))
print(json.dumps({"status": "ok", "output": {"stage": req["stage"], "score": float(opt.get("--score", "0")), "inputs": len(req["inputs"])}, "writes": writes}))
`

// workspace is a lunad workspace with the test agent and an engine.
type workspace struct {
	t     *testing.T
	root  string
	store *gitstore.Store
	eng   *runs.Engine
	// configure, if set, changes the engine's options at each open.
	configure func(*runs.Options)
}

// clock advances one second per call, so events and commits are stamped
// reproducibly.
func clock() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
}

func newWorkspace(t *testing.T, workflows map[string]string) *workspace {
	t.Helper()
	return newWorkspaceWith(t, workflows, nil)
}

// newWorkspaceWith is newWorkspace with the engine's options changed by
// configure at each open.
func newWorkspaceWith(t *testing.T, workflows map[string]string, configure func(*runs.Options)) *workspace {
	t.Helper()
	return newWorkspaceAt(t, t.TempDir(), workflows, configure)
}

// newWorkspaceAt is newWorkspaceWith in the directory root.
func newWorkspaceAt(t *testing.T, root string, workflows map[string]string, configure func(*runs.Options)) *workspace {
	t.Helper()
	n := 0
	store, _, err := gitstore.Init(root, gitstore.Options{Clock: clock(), NewID: func() string { n++; return fmt.Sprintf("a%07d", n) },
		Human: gitstore.Signature{Name: "Ada", Email: "ada@example.com"}, LockTimeout: 5 * time.Second, IndexSyncDelay: 50 * time.Millisecond,
		Merge: merge3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	w := &workspace{t: t, root: root, store: store, configure: configure}
	w.file("agents/agent.py", testAgent)
	for name, text := range workflows {
		w.file(".luna/workflows/"+name+".toml", strings.ReplaceAll(text, "PYTHON", wstest.Python(t)))
	}
	w.open()
	return w
}

func (w *workspace) file(name, content string) {
	p := filepath.Join(w.root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// open (re)starts the engine over the workspace's store.
func (w *workspace) open() {
	w.t.Helper()
	ids := 0
	opts := runs.Options{Root: w.root, Store: w.store, Effects: effects{w.store},
		Config: []byte("[runs]\nslots = 2\n"), Clock: clock(), Jitter: func() float64 { return 0.5 }, Merge: merge3,
		NewID: func() string { ids++; return fmt.Sprintf("run-%d-%d", time.Now().UnixNano()%1000000, ids) }}
	if w.configure != nil {
		w.configure(&opts)
	}
	eng, err := runs.Open(context.Background(), opts)
	if err != nil {
		w.t.Fatal(err)
	}
	w.eng = eng
	w.t.Cleanup(func() { eng.Close() })
}

// effects commits through the store, as the workspace service does.
type effects struct{ s *gitstore.Store }

func (e effects) ApplyWrites(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	refs, _, _, err := e.s.ApplyWrites(ctx, writes, ch)
	return refs, err
}

// ApplyWritesDeferred is the workspace service's too.
func (e effects) ApplyWritesDeferred(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	refs, _, _, err := e.s.ApplyWritesDeferred(ctx, writes, ch)
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

// run starts a run and waits for it to finish.
func (w *workspace) run(req lunad.RunRequest) lunad.RunInfo {
	w.t.Helper()
	info, err := w.eng.Start(context.Background(), req)
	if err != nil {
		w.t.Fatalf("start %s: %v", req.Workflow, err)
	}
	return w.wait(info.ID)
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

// fsck checks the repository with git fsck --strict.
func (w *workspace) fsck() {
	w.t.Helper()
	w.git("fsck", "--strict", "--no-progress")
}

// eventTypes is the run's events as `git log` reads them from its ref.
func (w *workspace) eventTypes(id string) []string {
	w.t.Helper()
	return wstest.LoggedEventTypes(w.t, w.root, id)
}

// merge3 merges a stage's write into an artifact moved since its base
// with the edit engine's three-way merge, as the workspace does.
func merge3(base, ours, theirs []byte, _ []lunad.Block) ([]byte, []int) {
	merged, conflicts := editor.Merge3(base, ours, theirs)
	var lines []int
	for _, c := range conflicts {
		lines = append(lines, c.Line)
	}
	return merged, lines
}
