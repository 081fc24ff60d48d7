package goal_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/scripted"
	"github.com/lunad/lunad/agents/policy"
)

// yes confirms every action it is asked about, and says which.
type yes struct{ asked *[]string }

func (y yes) Confirm(a policy.Action, d policy.Decision) bool {
	*y.asked = append(*y.asked, d.Rule+": "+strings.Join(a.Argv, " "))
	return true
}

// TestConfirm: an action the policy wants confirmed is denied when no
// one is there to confirm it, and done when someone does; a command that
// deletes a file has its deletion undone (a goal does not delete files).
func TestConfirm(t *testing.T) {
	for _, c := range []struct {
		name    string
		confirm bool
		status  string
		output  string
	}{
		{name: "no one to ask", status: "denied", output: "denied by rule confirm-rm: rm deletes files; no one confirmed it (no terminal, or the answer was no)"},
		{name: "confirmed", confirm: true, status: "ok", output: "note: the command deleted gen.py; a goal does not delete files yet: it was undone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := scripted.FromEntries("confirm", []scripted.Entry{call("run_command", map[string]any{"argv": []string{"rm", "gen.py"}}, false), call("finish", map[string]string{"summary": "done"}, false)})
			e := newEnv(t, model, llm.Config{Model: "scripted-1"}, envOptions{project: pyProject})
			var asked []string
			if c.confirm {
				e.confirm = yes{&asked}
			}
			info, res := e.goal("remove gen.py", nil)
			s := e.trace(info)[0]
			if res.Outcome != lunad.GoalFinished || s.Observation.Status != c.status || !strings.Contains(s.Observation.Output, c.output) {
				t.Fatalf("outcome %s; step 1: %s %q", res.Outcome, s.Observation.Status, s.Observation.Output)
			}
			if c.confirm && !slices.Equal(asked, []string{"confirm-rm: rm gen.py"}) {
				t.Errorf("asked %v", asked)
			}
			if got := e.file("gen.py"); got != pyProject.files["gen.py"] || len(res.Commits) != 0 || e.status() != "" {
				t.Errorf("gen.py %q, commits %v, worktree %q", got, res.Commits, e.status())
			}
		})
	}
}

// TestPatchNotApplied: a patch over two files whose second file's hunk
// does not match writes nothing — not even the first file — and the model
// is told which file and hunk, with the edit engine's hint.
func TestPatchNotApplied(t *testing.T) {
	patch := "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n" +
		"--- a/test_calc.py\n+++ b/test_calc.py\n@@ -4,2 +4,2 @@\n def test_add():\n-    assert add(2, 2) == 4\n+    assert add(2, 2) == 5\n"
	rec := &recording{Provider: scripted.FromEntries("patch", []scripted.Entry{call("apply_patch", map[string]string{"patch": patch}, false), call("finish", map[string]string{"summary": "could not patch"}, false)})}
	e := newEnv(t, rec, llm.Config{Model: "scripted-1"}, envOptions{project: pyProject})
	info, res := e.goal("make the failing test pass", nil)
	s := e.trace(info)[0]
	want := "apply_patch not applied (nothing was written): test_calc.py (from the patch's line 7): "
	if s.Observation.Status != "error" || !strings.HasPrefix(s.Observation.Output, want) || !strings.Contains(s.Observation.Output, "assert add(2, 3) == 5") || len(s.Observation.Files) != 0 {
		t.Fatalf("observation %+v; want an error starting %q with the closest line", s.Observation, want)
	}
	if len(res.Commits) != 0 || e.file("calc.py") != pyProject.files["calc.py"] || e.status() != "" {
		t.Errorf("commits %v, calc.py %q", res.Commits, e.file("calc.py"))
	}
	if reqs := rec.requests(); len(reqs) != 2 || !strings.Contains(user(reqs[1]), want) {
		t.Errorf("the model was not shown the failure:\n%s", user(reqs[len(reqs)-1]))
	}
}

// TestDryRun: the policy checks every action, reads are done, and
// nothing that writes or runs is: no command (not even the tests), no
// commit, no file.
func TestDryRun(t *testing.T) {
	model := scripted.FromEntries("dry", []scripted.Entry{
		call("read_artifact", map[string]any{"path": "calc.py"}, false),
		call("edit_artifact", map[string]any{"path": "calc.py", "blocks": []map[string]string{{"search": "    return a - b\n", "replace": "    return a + b\n"}}}, false),
		call("run_command", map[string]any{"argv": []string{"touch", "made"}}, false),
		call("run_command", map[string]any{"argv": []string{"curl", "https://example.com"}}, false),
		call("run_tests", map[string]any{}, false),
		call("finish", map[string]string{"summary": "the fix is one line"}, false),
	})
	e := newEnv(t, model, llm.Config{Model: "scripted-1"}, envOptions{project: pyProject})
	info, res := e.goal("make the failing test pass", map[string]string{lunad.GoalParamDryRun: "true", lunad.GoalParamTests: mustJSON(pyProject.tests)})
	if info.Status != "dry_run" || res.Outcome != lunad.GoalDryRun || res.Steps != 6 || res.TestsBefore != nil || res.TestsAfter != nil || len(res.Denials) != 1 {
		t.Fatalf("status %s, result %+v", info.Status, res)
	}
	var statuses []string
	for _, s := range e.trace(info) {
		statuses = append(statuses, s.Observation.Status)
	}
	if !slices.Equal(statuses, []string{"ok", "skipped", "skipped", "denied", "skipped", "ok"}) {
		t.Errorf("statuses %v", statuses)
	}
	if e.cmds.count() != 0 || len(res.Commits) != 0 || e.file("calc.py") != pyProject.files["calc.py"] || exists(filepath.Join(e.dir(), "made")) {
		t.Errorf("a dry run did something: %d commands, commits %v", e.cmds.count(), res.Commits)
	}
	if n := len(e.policy.actions()); n != 6 {
		t.Errorf("the policy was asked %d times; want 6", n)
	}
	report, _ := e.stageFile(info, "report.md")
	for _, want := range []string{"- Outcome: **dry_run**: dry run: nothing was written or run; the model finished", "None ran: a dry run runs nothing.", "The branch changes nothing."} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q:\n%s", want, report)
		}
	}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// TestPlan: --plan asks the model for a plan, offering no tools, and
// ends with it; nothing runs.
func TestPlan(t *testing.T) {
	plan := "1. Read calc.py.\n2. Make add return a + b.\n3. Run the tests."
	rec := &recording{Provider: scripted.FromEntries("plan", []scripted.Entry{{Content: plan, Model: "scripted-1"}})}
	e := newEnv(t, rec, llm.Config{Model: "scripted-1"}, envOptions{project: pyProject})
	info, res := e.goal("make the failing test pass", map[string]string{lunad.GoalParamPlan: "true", lunad.GoalParamTests: mustJSON(pyProject.tests)})
	if info.Status != "planned" || res.Outcome != lunad.GoalPlanned || res.Plan != plan || res.Steps != 0 || !slices.Equal(info.Path, []string{"begin", "report"}) {
		t.Fatalf("status %s, path %v, result %+v", info.Status, info.Path, res)
	}
	reqs := rec.requests()
	if len(reqs) != 1 || len(reqs[0].Tools) != 0 || !strings.Contains(user(reqs[0]), "Plan only: do not act, call no tool.") {
		t.Errorf("the plan's request: %+v", reqs)
	}
	if e.cmds.count() != 0 || len(res.Commits) != 0 {
		t.Errorf("a plan ran %d commands, made commits %v", e.cmds.count(), res.Commits)
	}
	report, _ := e.stageFile(info, "report.md")
	if !strings.Contains(report, "## Plan\n\n"+plan+"\n") || !strings.Contains(report, "None ran: a plan runs nothing.") {
		t.Errorf("report.md:\n%s", report)
	}
}

// TestNotIsolated: a goal whose run has no worktree (a workflow without
// isolated = true) does nothing and says what to fix.
func TestNotIsolated(t *testing.T) {
	model := scripted.FromEntries("none", nil)
	a, err := goal.New(goal.Options{Providers: func(string) (llm.Provider, llm.Config, error) { return model, llm.Config{Model: "m"}, nil },
		Commands: &commands{}, Tests: goal.HarnessTests(&commands{}), Policy: policy.Default()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := a.Agents()[goal.AgentBegin].Process(context.Background(), lunad.StageRequest{RunID: "r1", Stage: "begin", Visit: 1, Params: map[string]string{lunad.GoalParamGoal: "g"}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Outcome, Reason string }
	json.Unmarshal(resp.Output, &out)
	if out.Outcome != "failed" || !strings.Contains(out.Reason, "the goal workflow must set isolated = true") || len(resp.Writes) != 0 {
		t.Errorf("%+v", out)
	}
}

// TestNew: what goal.New refuses.
func TestNew(t *testing.T) {
	p := func(string) (llm.Provider, llm.Config, error) { return nil, llm.Config{}, nil }
	full := goal.Options{Providers: p, Commands: &commands{}, Tests: goal.HarnessTests(&commands{}), Policy: policy.Default()}
	for _, c := range []struct {
		name string
		edit func(*goal.Options)
		want string
	}{
		{"no providers", func(o *goal.Options) { o.Providers = nil }, "needs Providers"},
		{"no commands", func(o *goal.Options) { o.Commands = nil }, "needs Commands and Tests"},
		{"no policy", func(o *goal.Options) { o.Policy = nil }, "needs a Policy"},
		{"negative", func(o *goal.Options) { o.MaxSteps = -1 }, "negative limits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := full
			c.edit(&o)
			if _, err := goal.New(o); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v; want %q", err, c.want)
			}
		})
	}
	if _, err := goal.New(full); err != nil {
		t.Error(err)
	}
}

// TestSymbolsAndTests: search by symbol goes through the workspace's
// index, and run_tests runs the configured tests for the model (a
// failing run is a failed step, its summary in the trace).
func TestSymbolsAndTests(t *testing.T) {
	rec := &recording{Provider: scripted.FromEntries("sym", []scripted.Entry{
		call("search", map[string]string{"query": "add", "kind": "symbol"}, false),
		call("run_tests", map[string]any{}, false),
		call("finish", map[string]string{"summary": "found it"}, false),
	})}
	e := newEnv(t, rec, llm.Config{Model: "scripted-1"}, envOptions{project: pyProject})
	info, res := e.goal("find add", map[string]string{lunad.GoalParamTests: mustJSON(pyProject.tests)})
	tr := e.trace(info)
	if len(tr) != 3 || res.Outcome != lunad.GoalFinished {
		t.Fatalf("outcome %s, %d steps", res.Outcome, len(tr))
	}
	if o := tr[0].Observation; o.Status != "ok" || !strings.Contains(o.Output, "calc.py:1: function add") {
		t.Errorf("search: %+v", o)
	}
	o := tr[1].Observation
	if o.Status != "error" || o.Tests == nil || o.Tests.OK || o.Tests.Failed != 1 || !strings.HasPrefix(o.Output, "tests failed: 0 passed, 1 failed") {
		t.Errorf("run_tests: %+v", o)
	}
	if n := len(res.Commands); n != 2 || res.Commands[1].Step != 2 || res.TestsAfter == nil || res.TestsAfter.OK {
		t.Errorf("commands %+v, tests after %+v", res.Commands, res.TestsAfter)
	}
	if u := user(rec.requests()[2]); !strings.Contains(u, "Tests after step 2:\ntests failed: 0 passed, 1 failed") {
		t.Errorf("the model was not shown the tests it ran:\n%s", u)
	}
}
