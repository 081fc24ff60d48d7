package wstest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// RunToEnd starts a run, waits (at most ten minutes) until it finishes
// and returns it with its events; a step that fails fails the test.
func RunToEnd(t testing.TB, r lunad.WorkflowRuns, req lunad.RunRequest) lunad.RunInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	info, err := r.StartRun(ctx, req)
	if err != nil {
		t.Fatalf("start %s: %v", req.Workflow, err)
	}
	if _, err = r.WaitRun(ctx, info.ID); err != nil {
		t.Fatalf("wait %s: %v", info.ID, err)
	}
	if info, err = r.Run(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	return info
}

// StepAgent is the process agent of the Review workflow: it reports the
// stage and a score (param score, default 1), writes notes/STAGE.md,
// sleeps param sleep seconds first (default 0), and fails permanently on
// the stage named by param fail.
const StepAgent = `import json, sys, time
req = json.load(sys.stdin)
p = req["params"] or {}
time.sleep(float(p.get("sleep", "0")))
if p.get("fail") == req["stage"]:
    print(json.dumps({"status": "fail", "permanent": True, "error": "asked to fail"}))
    sys.exit(0)
print(json.dumps({"status": "ok", "output": {"stage": req["stage"], "score": float(p.get("score", "1"))},
    "writes": [{"path": "notes/%s.md" % req["stage"], "content": "%s of run %s\n" % (req["stage"], req["run_id"])}]}))
`

// Review drafts, then publishes a draft that scores 0.5 or more.
const Review = `name = "review"
version = "1"
start = "draft"
[stages.draft]
command = ["PYTHON", "agents/step.py"]
[[stages.draft.next]]
to = "publish"
when = "output.score >= 0.5"
[[stages.draft.next]]
to = "end"
[stages.publish]
command = ["PYTHON", "agents/step.py"]
[[stages.publish.next]]
to = "end"
`

// Broken does not check: its start stage does not exist (line 3).
const Broken = `name = "broken"
version = "1"
start = "nowhere"
[stages.only]
command = ["PYTHON", "agents/step.py"]
[[stages.only.next]]
to = "end"
`

// AddWorkflows writes the review and broken workflows and their agent
// (agents/step.py, run by Python) into the workspace at root.
func AddWorkflows(t *testing.T, root string) {
	t.Helper()
	py := Python(t)
	writeFiles(t, root, map[string]string{
		"agents/step.py":              StepAgent,
		".luna/workflows/review.toml": strings.ReplaceAll(Review, "PYTHON", py),
		".luna/workflows/broken.toml": strings.ReplaceAll(Broken, "PYTHON", py),
	})
}

// writeFiles writes files (content by path relative to root) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Python is the Python interpreter itself: a version manager's shim in
// front of it can take half a second to start. Without one the test fails:
// .ci/run installs python3.
func Python(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("the run tests need python3 for their agents: apt-get install python3 (.ci/run does)")
	}
	return p
}

// EventTypes is a run's events as "TYPE stage" (or "TYPE" for run-level
// events), in order.
func EventTypes(info lunad.RunInfo) []string {
	var out []string
	for _, ev := range info.Events {
		s := string(ev.Type)
		if ev.Stage != "" {
			s += " " + ev.Stage
		}
		out = append(out, s)
	}
	return out
}

// Interrupted counts a run's attempts that a stopped daemon interrupted
// (their STAGE_FAILED is marked interrupted).
func Interrupted(info lunad.RunInfo) int {
	n := 0
	for _, ev := range info.Events {
		if ev.Interrupted {
			n++
		}
	}
	return n
}

// LoggedEventTypes is run id's events as `git log` reads them from its ref
// in the repository at root, oldest first, in EventTypes' form (the
// Luna-Event and Luna-Stage trailers).
func LoggedEventTypes(t *testing.T, root, id string) []string {
	t.Helper()
	out := GitRun(t, root, "log", "--reverse", "--format=%(trailers:key=Luna-Event,valueonly,separator=) %(trailers:key=Luna-Stage,valueonly,separator=)", "refs/luna/runs/"+id)
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
