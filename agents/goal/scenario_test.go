package goal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/scripted"
	"github.com/lunad/lunad/internal/wstest"
)

// act is one step of a scenario: what the model must see in the state
// it is shown (when), and the tool it then calls.
type act struct {
	when string
	tool string
	args any
}

// scenario is a goal on a sample project with one failing test, the
// model's steps, and what must come of them.
type scenario struct {
	name    string
	project project
	goal    string
	steps   []act
	commits []string // the Luna-Action of each commit, oldest first
	command string   // report.md's row of the command the model ran
	before  string   // report.md's rows of the tests before and after
	after   string
	files   map[string]string // files as the goal leaves them
	// absorbed are the files run_command changed: the policy's write
	// rules are checked on each, after the command.
	absorbed []string
	diff     []string // lines of report.md's diff
}

var scenarios = []scenario{
	{
		name: "go", project: goProject, goal: "make the failing test in calc_test.go pass",
		steps: []act{
			{when: "Tests when the goal started:\ntests failed: 1 passed, 1 failed\n$ go test ./... → exit 1\n✗ example.com/calc.TestAdd\n  calc_test.go:7: Add(2, 3) = -1, want 5", tool: "search", args: map[string]string{"query": "func Add", "kind": "text"}},
			{when: "calc.go:4: func Add(a, b int) int {", tool: "read_artifact", args: map[string]any{"path": "calc.go"}},
			{when: "    5| \treturn a - b", tool: "edit_artifact", args: map[string]any{"path": "calc.go", "blocks": []map[string]string{{"search": "\treturn a - b\n", "replace": "\treturn a + b\n"}}}},
			{when: "Tests after step 3:\ntests passed: 2 passed", tool: "run_command", args: map[string]any{"argv": []string{"gofmt", "-l", "-w", "calc.go"}}},
			{when: "files changed (committed as this step): calc.go", tool: "write_file", args: map[string]string{"path": "CHANGES.md", "content": "- Add returns the sum, not the difference.\n"}},
			{when: "created CHANGES.md: CHANGES.md +1 -0; committed as this step", tool: "finish", args: map[string]string{"summary": "Add returned a - b; it returns a + b now, and the tests pass."}},
		},
		commits: []string{"edit_artifact", "run_command", "write_file"}, absorbed: []string{"calc.go"},
		command: "| 4 | `gofmt -l -w calc.go` | . | 0 |",
		before:  "| before | FAIL | 1 | 1 | 0 | 0 |",
		after:   "| after (step 5) | ok | 2 | 0 | 0 | 0 |",
		files: map[string]string{
			"calc.go":    "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Mul returns the product of a and b.\nfunc Mul(a, b int) int { return a * b }\n",
			"CHANGES.md": "- Add returns the sum, not the difference.\n",
		},
		diff: []string{"--- a/calc.go", "-\treturn a - b", "+\treturn a + b", "-func Mul(a,b int) int { return a*b }", "+func Mul(a, b int) int { return a * b }", "--- /dev/null", "+++ b/CHANGES.md"},
	},
	{
		name: "python", project: pyProject, goal: "make the failing test pass",
		steps: []act{
			{when: "Tests when the goal started:\ntests failed: 0 passed, 1 failed\n$ /usr/bin/python3 -m pytest -q -p no:cacheprovider → exit 1\n✗ test_calc.test_add\n  assert -1 == 5", tool: "read_artifact", args: map[string]any{"path": "calc.py"}},
			{when: "    2|     return a - b", tool: "apply_patch", args: map[string]string{"patch": "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1 @@\n+add() adds.\n"}},
			{when: "Tests after step 2:\ntests passed: 1 passed", tool: "run_command", args: map[string]any{"argv": []string{"python3", "gen.py"}}},
			{when: "files changed (committed as this step): VERSION", tool: "finish", args: map[string]string{"summary": "add() returns a + b; VERSION generated."}},
		},
		commits: []string{"apply_patch", "run_command"}, absorbed: []string{"VERSION"},
		command: "| 3 | `python3 gen.py` | . | 0 |",
		before:  "| before | FAIL | 0 | 1 | 0 | 0 |",
		after:   "| after (step 3) | ok | 1 | 0 | 0 | 0 |",
		files:   map[string]string{"calc.py": "def add(a, b):\n    return a + b\n", "NOTES.md": "add() adds.\n", "VERSION": "1.1\n"},
		diff:    []string{"--- a/calc.py", "-    return a - b", "+    return a + b", "+++ b/NOTES.md", "+add() adds.", "+++ b/VERSION", "+1.1"},
	},
}

// script is the scenario's steps as a scripted model: each step is
// served only when the state the model is shown contains its when.
func (sc scenario) script() *scripted.Provider {
	var entries []scripted.Entry
	for i, s := range sc.steps {
		args, _ := json.Marshal(s.args)
		entries = append(entries, scripted.Entry{When: s.when, Model: "scripted-1", StopReason: llm.StopReason("tool_calls"), Usage: llm.Usage{InputTokens: 100, OutputTokens: 20},
			ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call_%d", i+1), Name: s.tool, Arguments: args}}})
	}
	return scripted.FromEntries(sc.name, entries)
}

// TestScenarios: a goal on a sample Go project and a sample Python
// project, each with one failing test, driven by a scripted model and by
// a real HTTP server speaking OpenAI's chat completions, isolated on a
// branch and worktree of its own: the tests pass at the end, each step
// that changed files is one commit on the goal's branch carrying its
// action, model and prompt, the user's branch is untouched, the report
// says what happened, a live replay of the run gives the same outputs
// and writes with no model called and no command run — on the real clock
// when the model is the HTTP server, as lunad runs —, and accepting the
// goal fast-forwards the user's branch to it.
func TestScenarios(t *testing.T) {
	for _, sc := range scenarios {
		for _, via := range []string{"scripted", "openai"} {
			t.Run(sc.name+"/"+via, func(t *testing.T) {
				var model llm.Provider
				var calls func() int
				cfg := llm.Config{Provider: via, Model: "scripted-1"}
				opts := envOptions{project: sc.project}
				if via == "scripted" {
					p := sc.script()
					model, calls = p, func() int { return len(sc.steps) - p.Remaining() }
				} else {
					srv := newServer(t, sc.steps)
					model, cfg = srv.provider(t)
					calls = srv.count
					opts.clock = time.Now
				}
				e := newEnv(t, model, cfg, opts)
				info, res := e.goal(sc.goal, map[string]string{lunad.GoalParamTests: mustJSON(sc.project.tests)})
				e.checkScenario(sc, info, res)
				if calls() != len(sc.steps) {
					t.Errorf("the model was called %d times; want %d", calls(), len(sc.steps))
				}
				ran, called := e.cmds.count(), calls()
				rep, err := e.s.ReplayRun(context.Background(), info.ID, true)
				if err != nil || !rep.Identical || rep.Divergence != 0 || rep.Tree != rep.ReplayTree || rep.Tree == "" {
					t.Errorf("live replay: %+v, %v", rep, err)
				}
				if e.cmds.count() != ran || calls() != called {
					t.Errorf("the live replay ran %d commands and called the model %d times; want none", e.cmds.count()-ran, calls()-called)
				}
				// Accepting the goal fast-forwards the user's branch to it.
				if _, err := e.s.AcceptRun(context.Background(), info.ID); err != nil {
					t.Fatal(err)
				}
				if head := strings.TrimSpace(wstest.GitRun(t, e.s.Root(), "rev-parse", "HEAD")); head != res.Head {
					t.Errorf("after accept the user's HEAD is %s; want the goal's %s", head, res.Head)
				}
				for name, want := range sc.files {
					if b, err := os.ReadFile(filepath.Join(e.s.Root(), name)); err != nil || string(b) != want {
						t.Errorf("after accept the user's %s is %q, %v", name, b, err)
					}
				}
			})
		}
	}
}

// checkScenario checks a finished scenario's run: its result, commits,
// files, worktree, trace and report.
func (e *env) checkScenario(sc scenario, info lunad.RunInfo, res lunad.GoalResult) {
	t := e.t
	t.Helper()
	if info.Status != lunad.RunStatus(lunad.GoalFinished) || res.Outcome != lunad.GoalFinished || res.Summary != sc.steps[len(sc.steps)-1].args.(map[string]string)["summary"] {
		t.Fatalf("status %s, result %+v", info.Status, res)
	}
	if res.Steps != len(sc.steps) || res.Goal != sc.goal || res.Report != "report.md" || res.Calls != len(sc.steps) || res.Tokens <= 0 {
		t.Errorf("result: steps %d, goal %q, report %q, %d calls, %d tokens", res.Steps, res.Goal, res.Report, res.Calls, res.Tokens)
	}
	if res.TestsBefore == nil || res.TestsBefore.OK || res.TestsAfter == nil || !res.TestsAfter.OK {
		t.Errorf("tests before %+v, after %+v; want failing, then passing", res.TestsBefore, res.TestsAfter)
	}
	// The goal worked on a branch of its own, in a worktree of its own:
	// the user's branch and files are as they were.
	if info.Branch != "luna/goal/"+info.ID || info.Base != e.base || e.dir() == e.s.Root() {
		t.Errorf("branch %q, base %s (want %s), worktree %s", info.Branch, info.Base, e.base, e.dir())
	}
	if head := strings.TrimSpace(wstest.GitRun(t, e.s.Root(), "rev-parse", "HEAD")); head != e.base {
		t.Errorf("the user's HEAD moved to %s during the goal", head)
	}
	for name, want := range sc.project.files {
		if b, _ := os.ReadFile(filepath.Join(e.s.Root(), name)); string(b) != want {
			t.Errorf("the user's %s changed during the goal: %q", name, b)
		}
	}
	// Each step that changed files is one commit, with its provenance.
	if n := len(res.Commits); n < 2 || n > 6 || n != len(sc.commits) || res.Head != e.head() {
		t.Fatalf("commits %v, head %s (HEAD %s); want %d", res.Commits, res.Head, e.head(), len(sc.commits))
	}
	logged := strings.Fields(e.git("log", "--reverse", "--format=%H", e.base+"..HEAD"))
	if !slices.Equal(logged, res.Commits) {
		t.Errorf("git log %s..HEAD = %v; the result's commits %v", e.base, logged, res.Commits)
	}
	for i, c := range res.Commits {
		tr := e.git("log", "-1", "--format=%an|%(trailers:key=Luna-Action,valueonly,separator=)|%(trailers:key=Luna-Model,valueonly,separator=)|%(trailers:key=Luna-Prompt,valueonly,separator=)|%(trailers:key=Luna-Run,valueonly,separator=)", c)
		want := fmt.Sprintf("goal|%s|scripted-1|goal@1|%s", sc.commits[i], info.ID)
		if strings.TrimSpace(tr) != want {
			t.Errorf("commit %d: %q; want %q", i+1, strings.TrimSpace(tr), want)
		}
	}
	for name, want := range sc.files {
		if got := e.file(name); got != want {
			t.Errorf("%s is %q; want %q", name, got, want)
		}
	}
	if st := e.status(); st != "" {
		t.Errorf("the worktree is not HEAD's after the goal:\n%s", st)
	}
	// The trace: every step, as the model took it.
	steps := e.trace(info)
	if len(steps) != len(sc.steps) {
		t.Fatalf("trace has %d steps; want %d", len(steps), len(sc.steps))
	}
	for i, s := range steps {
		if s.Step != i+1 || s.Action.Tool != sc.steps[i].tool || s.Observation.Status != "ok" {
			t.Errorf("trace step %d: %+v", i+1, s)
		}
	}
	// The policy saw every action.
	var checked []string
	for _, a := range e.policy.actions() {
		checked = append(checked, a.Tool)
	}
	var want []string
	for _, s := range sc.steps {
		want = append(want, s.tool)
		if s.tool == "run_command" {
			for range sc.absorbed {
				want = append(want, "write_file")
			}
		}
	}
	if !slices.Equal(checked, want) {
		t.Errorf("the policy checked %v; want %v", checked, want)
	}
	report, ok := e.stageFile(info, "report.md")
	if !ok {
		t.Fatal("no report.md")
	}
	t.Logf("report.md:\n%s", report)
	for _, line := range append([]string{
		"# Goal: " + sc.goal,
		"- Outcome: **finished**\n- Summary: " + res.Summary + "\n",
		fmt.Sprintf("- Steps: %d of at most 30", len(sc.steps)),
		sc.before, sc.after,
		"| " + fmt.Sprint(len(sc.steps)) + " | `finish`",
		"None: the policy allowed every action.",
		fmt.Sprintf("%d tokens (%d in, %d out) in %d calls", res.Tokens, 100*len(sc.steps), 20*len(sc.steps), len(sc.steps)),
		sc.command,
	}, sc.diff...) {
		if !strings.Contains(report, line) {
			t.Errorf("report.md lacks %q:\n%s", line, report)
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
