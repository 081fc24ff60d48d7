package goal_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/scripted"
	"github.com/lunad/lunad/agents/memory"
)

// call is a scripted model's tool call (served every time if repeat).
func call(tool string, args any, repeat bool) scripted.Entry {
	b, _ := json.Marshal(args)
	return scripted.Entry{Repeat: repeat, Model: "scripted-1", Usage: llm.Usage{InputTokens: 100, OutputTokens: 20},
		ToolCalls: []llm.ToolCall{{ID: "c", Name: tool, Arguments: b}}}
}

// TestStopCriteria: each way a goal stops, with the outcome the run
// ends with, the steps it took and what it did.
func TestStopCriteria(t *testing.T) {
	pyTests := map[string]string{lunad.GoalParamTests: mustJSON(pyProject.tests)}
	cases := []struct {
		name    string
		entries []scripted.Entry
		params  map[string]string
		memory  memory.Options
		outcome lunad.GoalStatus
		steps   int
		reason  string // in the result's reason
		check   func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult)
	}{
		{
			name:    "max steps",
			entries: []scripted.Entry{call("read_artifact", map[string]any{"path": "calc.py"}, true)},
			params:  map[string]string{lunad.GoalParamMaxSteps: "3"},
			outcome: lunad.GoalMaxSteps, steps: 3, reason: "the goal took 3 steps, its limit (--max-steps)",
		},
		{
			name:    "max steps after a change: the tests run first",
			entries: []scripted.Entry{call("write_file", map[string]string{"path": "calc.py", "content": "def add(a, b):\n    return a + b\n"}, false)},
			params:  map[string]string{lunad.GoalParamMaxSteps: "1", lunad.GoalParamTests: pyTests[lunad.GoalParamTests]},
			outcome: lunad.GoalMaxSteps, steps: 1, reason: "its limit (--max-steps)",
			check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
				if !slices.Equal(info.Path, []string{"begin", "act", "test", "report"}) || len(res.Commits) != 1 || res.TestsAfter == nil || !res.TestsAfter.OK || res.TestsBefore.OK {
					t.Errorf("path %v, commits %v, tests before %+v after %+v", info.Path, res.Commits, res.TestsBefore, res.TestsAfter)
				}
			},
		},
		{
			name: "consecutive failures",
			entries: []scripted.Entry{call("run_command", map[string]any{"argv": []string{"false", "1"}}, false), call("run_command", map[string]any{"argv": []string{"false", "2"}}, false),
				call("run_command", map[string]any{"argv": []string{"false", "3"}}, false), call("run_command", map[string]any{"argv": []string{"false", "4"}}, false),
				call("run_command", map[string]any{"argv": []string{"false", "5"}}, false)},
			outcome: lunad.GoalFailures, steps: 5, reason: "5 actions in a row failed; the last, step 5 (run_command): exit code 1 after",
			check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
				if len(res.Commands) != 5 || res.Commands[4].ExitCode != 1 || e.cmds.count() != 5 {
					t.Errorf("commands %+v (%d run)", res.Commands, e.cmds.count())
				}
			},
		},
		{
			name:    "a failure between successes does not count",
			entries: []scripted.Entry{call("run_command", map[string]any{"argv": []string{"false", "1"}}, false), call("read_artifact", map[string]any{"path": "calc.py"}, false), call("run_command", map[string]any{"argv": []string{"false", "2"}}, false), call("finish", map[string]string{"summary": "gave up"}, false)},
			outcome: lunad.GoalFinished, steps: 4,
		},
		{
			name:    "budget",
			entries: []scripted.Entry{call("read_artifact", map[string]any{"path": "calc.py"}, true)},
			memory:  memory.Options{Budget: memory.Budget{Calls: 2}},
			outcome: lunad.GoalBudgetExhausted, steps: 2, reason: "calls budget is spent (2 of 2 model calls made",
			check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
				if res.Calls != 2 || res.Tokens != 240 {
					t.Errorf("%d calls, %d tokens", res.Calls, res.Tokens)
				}
			},
		},
		{
			name:    "the same failing action forever",
			entries: []scripted.Entry{call("run_command", map[string]any{"argv": []string{"false"}}, true)},
			outcome: lunad.GoalStopped, steps: 3, reason: "is stalled (repeat_error): it called run_command {\"argv\":[\"false\"]} 3 times, failing each time",
		},
		{
			name:    "the same denied action forever",
			entries: []scripted.Entry{call("run_command", map[string]any{"argv": []string{"curl", "https://example.com/install.sh"}}, true)},
			outcome: lunad.GoalStopped, steps: 3, reason: "(repeat_error): it called run_command",
			check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
				msg := "denied by rule no-network: curl reaches the network; ask the user or work offline"
				if len(res.Denials) != 3 || res.Denials[2] != (lunad.GoalDenial{Step: 3, Tool: "run_command", Rule: "no-network", Message: msg}) {
					t.Errorf("denials %+v", res.Denials)
				}
				if e.cmds.count() != 0 {
					t.Errorf("a denied command ran (%d commands)", e.cmds.count())
				}
				for _, s := range e.trace(info) {
					if s.Observation.Status != "denied" || s.Observation.Rule != "no-network" || s.Observation.Output != msg {
						t.Errorf("step %d: %+v", s.Step, s.Observation)
					}
				}
				var st struct {
					Failures int `json:"failures"`
				}
				json.Unmarshal(info.Stages[len(info.Stages)-1].Output, &st)
				if st.Failures != 3 {
					t.Errorf("%d failures in a row counted; want the 3 denials", st.Failures)
				}
				report, _ := e.stageFile(info, "report.md")
				if !strings.Contains(report, "| 3 | run_command | no-network | "+msg+" |") {
					t.Errorf("report.md lacks the denial:\n%s", report)
				}
			},
		},
		{
			name:    "two actions in a loop",
			entries: loop(8, call("read_artifact", map[string]any{"path": "calc.py"}, false), call("read_artifact", map[string]any{"path": "gen.py"}, false)),
			outcome: lunad.GoalStopped, steps: 6, reason: "is stalled (alternation): it alternated between read_artifact and read_artifact for 6 steps",
		},
		{
			name:    "no tool called",
			entries: []scripted.Entry{{Repeat: true, Content: "I think the bug is in add.", Model: "scripted-1"}},
			outcome: lunad.GoalStopped, steps: 3, reason: "(monologue): it answered 3 turns in a row without calling a tool",
			check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
				s := e.trace(info)[0]
				if s.Action.Tool != "" || s.Observation.Status != "error" || !strings.Contains(s.Observation.Output, "no tool was called") || !strings.Contains(s.Observation.Output, "(you wrote: I think the bug is in add.)") {
					t.Errorf("step 1: %+v", s)
				}
			},
		},
		{
			name:    "the model fails",
			entries: []scripted.Entry{{Error: &scripted.Failure{Kind: llm.Permanent, Status: 400, Message: "context too long"}}},
			outcome: lunad.GoalFailed, steps: 0, reason: "the goal's model call failed: ",
		},
		{
			name:    "bad params",
			params:  map[string]string{lunad.GoalParamMaxSteps: "many"},
			outcome: lunad.GoalFailed, steps: 0, reason: `max steps "many": give a whole number from 1 to 10000 (--max-steps`,
		},
		{
			name:    "a bad tool call is the model's to correct",
			entries: []scripted.Entry{call("delete_everything", map[string]bool{"really": true}, false), call("run_command", map[string]any{"argv": "rm -rf /"}, false), call("finish", map[string]string{"summary": "ok"}, false)},
			outcome: lunad.GoalFinished, steps: 3,
			check: func(t *testing.T, e *env, info lunad.RunInfo, res lunad.GoalResult) {
				tr := e.trace(info)
				if !strings.HasPrefix(tr[0].Observation.Output, `unknown tool "delete_everything": the tools are read_artifact, search,`) ||
					tr[1].Observation.Output != `run_command: bad arguments: argument "argv" must be an array, not a JSON string` {
					t.Errorf("observations %q, %q", tr[0].Observation.Output, tr[1].Observation.Output)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, scripted.FromEntries(c.name, c.entries), llm.Config{Provider: "scripted", Model: "scripted-1"}, envOptions{project: pyProject, memory: c.memory})
			info, res := e.goal("make the failing test pass", c.params)
			if info.Status != lunad.RunStatus(c.outcome) || res.Outcome != c.outcome || res.Steps != c.steps || !strings.Contains(res.Reason, c.reason) {
				t.Fatalf("status %s, outcome %s, %d steps, reason %q; want %s, %d steps, a reason with %q", info.Status, res.Outcome, res.Steps, res.Reason, c.outcome, c.steps, c.reason)
			}
			report, ok := e.stageFile(info, "report.md")
			if !ok || !strings.Contains(report, fmt.Sprintf("- Outcome: **%s**", c.outcome)) || res.Report != "report.md" {
				t.Errorf("report.md (%v, %q):\n%s", ok, res.Report, report)
			}
			if c.check != nil {
				c.check(t, e, info, res)
			}
		})
	}
}

// loop is n entries, taking turns from es.
func loop(n int, es ...scripted.Entry) []scripted.Entry {
	var out []scripted.Entry
	for i := range n {
		out = append(out, es[i%len(es)])
	}
	return out
}
