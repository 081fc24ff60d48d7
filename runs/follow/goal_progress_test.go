package follow_test

import (
	"encoding/json"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/follow"
)

// TestGoalProgress: a line per step of a goal, from its stages' outputs
// (the goal's state), and the engine's own events as Progress words them.
func TestGoalProgress(t *testing.T) {
	exit0, exit1 := 0, 1
	failing := &lunad.TestSummary{Passed: 1, Failed: 1, Failures: []lunad.TestFailure{{Name: "TestAdd", Message: "Add(2, 3) = -1"}},
		Commands: []lunad.GoalCommand{{Argv: []string{"go", "test", "./..."}, ExitCode: 1}}}
	passing := &lunad.TestSummary{Passed: 2, OK: true, Commands: []lunad.GoalCommand{{Argv: []string{"go", "test", "./..."}}}}
	step := func(n int, tool string, args string, o lunad.GoalObservation) json.RawMessage {
		return mustJSON(t, map[string]any{"stage": "act", "steps": n, "max_steps": 30, "recent": []lunad.GoalStep{
			{Step: n, Action: lunad.GoalAction{Tool: tool, Args: json.RawMessage(args)}, Observation: o}}})
	}
	for _, tc := range []struct {
		name string
		ev   lunad.RunEvent
		want string
	}{
		{"tests at the start", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "begin", Output: mustJSON(t, map[string]any{"tests": failing, "tested": true})},
			"tests at the start: FAIL — 1 passed, 1 failed: TestAdd (go test ./... exit 1)"},
		{"no tests", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "begin", Output: mustJSON(t, map[string]any{"outcome": ""})},
			"no tests configured: none will run (--test, or [tests] commands in .luna/config.toml)"},
		{"plan", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "begin", Output: mustJSON(t, map[string]any{"plan": "1. read", "outcome": "planned"})}, "plan ready"},
		{"edit", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "act", Output: step(3, "edit_artifact", `{"path":"calc.go","blocks":[]}`, lunad.GoalObservation{Status: "ok", Files: []string{"calc.go"}})},
			"step 3/30: edit_artifact calc.go → ok, changed calc.go"},
		{"command", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "act", Output: step(4, "run_command", `{"argv":["gofmt","-l","-w","."],"cwd":"pkg"}`, lunad.GoalObservation{Status: "ok", ExitCode: &exit0})},
			"step 4/30: run_command gofmt -l -w . (in pkg) → ok, exit 0"},
		{"denied", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "act", Output: step(5, "run_command", `{"argv":["curl","https://example.com"]}`,
			lunad.GoalObservation{Status: "denied", Rule: "no-network", Output: "denied by rule no-network: curl reaches the network; ask the user or work offline\nmore"})},
			"step 5/30: run_command curl https://example.com → denied: denied by rule no-network: curl reaches the network; ask the user or work offline"},
		{"failed command", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "act", Output: step(6, "run_command", `{"argv":["make"]}`, lunad.GoalObservation{Status: "error", ExitCode: &exit1, Output: "exit code 1 after 2ms: make\x1b[31m"})},
			"step 6/30: run_command make → error: exit code 1 after 2ms: make[31m, exit 1"},
		{"search", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "act", Output: step(1, "search", `{"query":"func Add","kind":"text"}`, lunad.GoalObservation{Status: "ok"})},
			`step 1/30: search "func Add" → ok`},
		{"patch", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "act", Output: step(2, "apply_patch", `{"patch":"--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/y.py\t2026\n"}`, lunad.GoalObservation{Status: "ok"})},
			"step 2/30: apply_patch x.py, y.py → ok"},
		{"run_tests", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "act", Output: step(7, "run_tests", `{}`, lunad.GoalObservation{Status: "ok", Tests: passing})},
			"step 7/30: run_tests → ok, tests ok — 2 passed (go test ./... exit 0)"},
		{"tests after", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "test", Output: mustJSON(t, map[string]any{"tests": passing, "tests_step": 3})},
			"tests after step 3: ok — 2 passed (go test ./... exit 0)"},
		{"report", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "report", Output: mustJSON(t, map[string]any{"outcome": "finished"})}, "report written"},
		{"committed", lunad.RunEvent{Type: lunad.EventStageCommitted, Stage: "act", Writes: []lunad.ArtifactRef{{Path: "calc.go", Commit: "a4f7d692b419200c1fc0d0a0edd81039feecd796"}, {Path: "b.go", Commit: "a4f7d692b419200c1fc0d0a0edd81039feecd796"}}},
			"  committed a4f7d692: calc.go, b.go"},
		{"started", lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "act", Attempt: 1}, ""},
		{"retried", lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "act", Attempt: 2}, "act: attempt 2"},
		{"enqueued", lunad.RunEvent{Type: lunad.EventStageEnqueued, Stage: "act"}, ""},
		{"failed", lunad.RunEvent{Type: lunad.EventStageFailed, Stage: "act", Error: "no sandbox\nmore"}, "act: failed: no sandbox"},
		{"completed", lunad.RunEvent{Type: lunad.EventRunCompleted, Outcome: "finished"}, "finished"},
		{"not a goal's output", lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "act", Next: "test", Output: json.RawMessage(`"x"`)}, "act: done, next test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := follow.GoalProgress(tc.ev); got != tc.want {
				t.Errorf("GoalProgress:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
