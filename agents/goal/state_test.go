package goal

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/window"
	"github.com/lunad/lunad/editor"
	"github.com/lunad/lunad/runs/workflow"
)

func TestParams(t *testing.T) {
	for _, c := range []struct {
		name string
		p    map[string]string
		want params
		err  string
	}{
		{name: "defaults", p: map[string]string{"goal": " fix it "}, want: params{goal: "fix it", maxSteps: 30}},
		{name: "all", p: map[string]string{"goal": "g", "max_steps": "7", "tests": `[["go","test","./..."]]`, "dry_run": "true", "plan": "false"},
			want: params{goal: "g", maxSteps: 7, tests: [][]string{{"go", "test", "./..."}}, dryRun: true}},
		{name: "no tests", p: map[string]string{"goal": "g", "tests": "[]"}, want: params{goal: "g", maxSteps: 30, tests: [][]string{}}},
		{name: "no goal", p: map[string]string{"goal": "  "}, err: `the goal is empty: say what to achieve, as in lunad goal "make the failing test pass"`},
		{name: "steps", p: map[string]string{"goal": "g", "max_steps": "0"}, err: `max steps "0": give a whole number from 1 to 10000 (--max-steps`},
		{name: "tests not JSON", p: map[string]string{"goal": "g", "tests": "go test"}, err: `are not a JSON array of argv arrays such as [["go","test","./..."]] (--test, or [tests] commands in .luna/config.toml`},
		{name: "empty test", p: map[string]string{"goal": "g", "tests": `[["go"],[]]`}, err: "test command 2 is empty"},
		{name: "flag", p: map[string]string{"goal": "g", "dry_run": "yes"}, err: `the run param "dry_run" is "yes": give "true" or "false" (--dry-run)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseParams(c.p, DefaultMaxSteps)
			if c.err != "" {
				if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("%v; want ErrInvalid with %q", err, c.err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("%+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

// TestCompileBudget: a long history is shown within the token budget,
// the oldest steps left out first and said so, the latest in full.
func TestCompileBudget(t *testing.T) {
	a := newAgents(t, &shell{}, allow{})
	a.o.ContextTokens = 600
	v := &visit{a: a, p: params{goal: "make it pass", maxSteps: 30}, st: state{MaxSteps: 30}}
	for i := 1; i <= 40; i++ {
		v.st.Steps = i
		v.st.record(lunad.GoalStep{Step: i, Action: lunad.GoalAction{Tool: ToolRead, Args: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, i))},
			Observation: lunad.GoalObservation{Status: "ok", Output: fmt.Sprintf("f%d.go: lines 1-9 of 9\n%s", i, strings.Repeat("    1| some code here\n", 100))}})
	}
	tok := window.TokenizerFor("gpt-4o")
	text := v.compile(tok)
	if n := tok.Count(text); n > 600 {
		t.Errorf("%d tokens; the budget is 600:\n%s", n, text)
	}
	for _, want := range []string{"Goal: make it pass", "Step 41 of at most 30", "(steps 1 to ", "--- Step 39: read_artifact {\"path\":\"f39.go\"}", "--- Step 40: read_artifact", "[… "} {
		if !strings.Contains(text, want) {
			t.Errorf("the state lacks %q:\n%s", want, text)
		}
	}
	a.o.ContextTokens = 100000
	if full := v.compile(tok); strings.Contains(full, "left out") || !strings.Contains(full, "#1 read_artifact {\"path\":\"f1.go\"} → ok: f1.go: lines 1-9 of 9") {
		t.Errorf("with room, the whole history is not shown:\n%s", full[:500])
	}
}

// TestBranchDiff: the base of each file is recovered from its final
// content and the steps' undo diffs.
func TestBranchDiff(t *testing.T) {
	base := "a\nb\nc\n"
	v1 := "a\nB\nc\n"
	v2 := "a\nB\nc\nd\n"
	st := &state{Branch: "luna/goal/r1", Changes: []change{
		newChange(1, pending{rel: "x.txt", before: []byte(base), existed: true, after: []byte(v1)}),
		newChange(2, pending{rel: "new.md", after: []byte("hi\n")}),
		newChange(3, pending{rel: "x.txt", before: []byte(v1), existed: true, after: []byte(v2)}),
		{Step: 4, Path: "big.bin", Lost: true},
	}}
	final := map[string]*string{"x.txt": &v2, "new.md": ptr("hi\n"), "big.bin": ptr("x")}
	diff, missing := branchDiff(st, final)
	want := "--- /dev/null\n+++ b/new.md\n@@ -0,0 +1 @@\n+hi\n" + editor.Diff("x.txt", "x.txt", []byte(base), []byte(v2))
	if diff != want {
		t.Errorf("diff\n%s\nwant\n%s", diff, want)
	}
	if len(missing) != 1 || missing[0] != "The diff of big.bin is not shown (step 4's change was too large to keep): see `git log -p luna/goal/r1 -- big.bin`." {
		t.Errorf("missing %q", missing)
	}
	// A final content that is not what the steps left: said, not guessed.
	bad := "zzz\n"
	final["x.txt"] = &bad
	if _, missing := branchDiff(st, final); len(missing) != 2 || !strings.Contains(missing[1], "The diff of x.txt is not shown (undoing step 3: ") {
		t.Errorf("missing %q", missing)
	}
}

func ptr(s string) *string { return &s }

// TestWorkflow: goal.toml is isolated, checks (its isolated key aside,
// until the workflow package knows it), names this package's agents, and
// routes as the stages' outputs say.
func TestWorkflow(t *testing.T) {
	data := Builtin()[lunad.GoalWorkflow]
	if !strings.Contains(string(data), "\nisolated = true\n") {
		t.Fatal("goal.toml is not isolated")
	}
	w, err := workflow.Parse("goal.toml", data)
	if err != nil && strings.Contains(err.Error(), "isolated") {
		w, err = workflow.Parse("goal.toml", []byte(strings.Replace(string(data), "\nisolated = true\n", "\n", 1)))
	}
	if err != nil {
		t.Fatal(err)
	}
	a := newAgents(t, &shell{}, allow{})
	for _, name := range w.Order {
		if _, ok := a.Agents()[w.Stages[name].Agent]; !ok {
			t.Errorf("stage %s names agent %q, which Agents lacks", name, w.Stages[name].Agent)
		}
	}
	type out struct {
		outcome         string
		mutated, tested bool
	}
	for _, c := range []struct {
		stage  string
		output out
		to     string
		status string
	}{
		{"begin", out{"", false, true}, "act", ""},
		{"begin", out{"planned", false, false}, "report", ""},
		{"act", out{"", true, true}, "test", ""},
		{"act", out{"finished", true, true}, "test", ""},
		{"act", out{"", true, false}, "act", ""},
		{"act", out{"", false, true}, "act", ""},
		{"act", out{"stopped", false, true}, "report", ""},
		{"test", out{"", false, true}, "act", ""},
		{"test", out{"max_steps", false, true}, "report", ""},
		{"report", out{"finished", false, true}, "end", "finished"},
		{"report", out{"dry_run", false, false}, "end", "dry_run"},
		{"report", out{"budget_exhausted", false, false}, "end", "budget_exhausted"},
		{"report", out{"", false, false}, "end", "failed"},
	} {
		t.Run(fmt.Sprintf("%s %+v", c.stage, c.output), func(t *testing.T) {
			b, _ := json.Marshal(state{Outcome: c.output.outcome, Mutated: c.output.mutated, Tested: c.output.tested, Memory: memory.Snapshot{}})
			tr, err := w.Choose(c.stage, workflow.Env{Output: b})
			if err != nil || tr.To != c.to || tr.Status != c.status {
				t.Errorf("→ %s (%q), %v; want %s (%q)", tr.To, tr.Status, err, c.to, c.status)
			}
		})
	}
}
