package wstest

import (
	"path/filepath"
	"strings"
	"testing"
)

// IsoAgent is the process agent of the Isolated workflow. Stage edit
// reads notes/a.md where it runs and writes it back with a line added,
// and writes notes/new.md; stage check reports whether it sees
// notes/new.md where it runs (an isolated run's worktree follows the
// run's commits) and writes notes/check.md. On its first attempt, the
// stage named by param sleep_in (default check) sleeps param sleep
// seconds first. Each reports where it ran and the branch and dir it was
// told.
const IsoAgent = `import json, os, sys, time
req = json.load(sys.stdin)
p = req["params"] or {}
out = {"stage": req["stage"], "cwd": os.getcwd(), "branch": req.get("branch", ""), "dir": req.get("dir", "")}
writes = []
if req["attempt"] == 1 and p.get("sleep") and req["stage"] == p.get("sleep_in", "check"):
    time.sleep(float(p["sleep"]))
if req["stage"] == "edit":
    a = open("notes/a.md").read()
    writes = [{"path": "notes/a.md", "content": a + "edited by the run\n"}, {"path": "notes/new.md", "content": "new\n"}]
else:
    out["saw_new"] = os.path.exists("notes/new.md")
    writes = [{"path": "notes/check.md", "content": "checked\n"}]
print(json.dumps({"status": "ok", "output": out, "writes": writes}))
`

// Isolated runs edit then check, each run on a branch of its own.
const Isolated = `name = "iso"
version = "1"
isolated = true
start = "edit"
[stages.edit]
command = ["PYTHON", "AGENT"]
[[stages.edit.next]]
to = "check"
[stages.check]
command = ["PYTHON", "AGENT"]
[[stages.check.next]]
to = "end"
`

// AddIsolated writes the Isolated workflow into the workspace at root
// (.luna/workflows/iso.toml, left untracked) and its agent outside it (so
// that an isolated run's worktree, which has only committed files, runs
// it too). The workflow's stage edit needs notes/a.md.
func AddIsolated(t *testing.T, root string) {
	t.Helper()
	agents := t.TempDir()
	writeFiles(t, agents, map[string]string{"agent.py": IsoAgent})
	agent := filepath.Join(agents, "agent.py")
	writeFiles(t, root, map[string]string{".luna/workflows/iso.toml": strings.NewReplacer("PYTHON", Python(t), "AGENT", agent).Replace(Isolated)})
}
