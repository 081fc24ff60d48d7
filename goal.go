package lunad

import (
	"encoding/json"
	"fmt"
	"time"
)

// The vocabulary of autonomous goals: `lunad goal`, the MCP tool goal and
// the LSP command luna.goal all start a run of the built-in workflow
// GoalWorkflow with the params below. A goal's run is isolated: its
// writes are commits on its own branch (RunInfo.Branch, made from the
// user's branch at RunInfo.Base when the run starts, checked out in a
// worktree of its own where its commands run), and the user's branch is
// untouched until the run is accepted (Runner.AcceptRun) or discarded
// (Runner.DiscardRun). The run's terminal event carries the GoalResult
// (GoalResultOf); the run file report.md is its Markdown report, and the
// files trace/NNNN.json each step's action and observation.

// GoalWorkflow is the built-in workflow a goal runs.
const GoalWorkflow = "goal"

// The params of a goal run (RunRequest.Params).
const (
	// GoalParamGoal is the goal, as typed.
	GoalParamGoal = "goal"
	// GoalParamMaxSteps bounds the actions the model may take (decimal).
	GoalParamMaxSteps = "max_steps"
	// GoalParamTests are the test commands, a JSON array of argv arrays
	// (--test, or [tests] commands of .luna/config.toml); "[]" or absent:
	// no tests (the report says none ran).
	GoalParamTests = "tests"
	// GoalParamDryRun ("true") executes nothing that writes or runs: each
	// proposed action is checked by the policy and recorded, not done.
	GoalParamDryRun = "dry_run"
	// GoalParamPlan ("true") asks the model for a plan and ends with it.
	GoalParamPlan = "plan"
)

// GoalStatus is how a goal ended (the run's status, RunInfo.Status).
type GoalStatus string

const (
	// GoalFinished: the model called finish; Summary is its summary.
	GoalFinished GoalStatus = "finished"
	// GoalMaxSteps: the step limit was reached.
	GoalMaxSteps GoalStatus = "max_steps"
	// GoalFailures: too many consecutive actions failed.
	GoalFailures GoalStatus = "failures"
	// GoalBudgetExhausted: a token, call or time budget ran out.
	GoalBudgetExhausted GoalStatus = "budget_exhausted"
	// GoalStopped: the stall or loop guard stopped the run (Reason).
	GoalStopped GoalStatus = "stopped"
	// GoalFailed: the run could not go on (a provider error, a sandbox
	// the policy refuses to run without).
	GoalFailed GoalStatus = "failed"
	// GoalPlanned: --plan: Plan is the model's plan; nothing ran.
	GoalPlanned GoalStatus = "planned"
	// GoalDryRun: --dry-run: the actions were proposed and checked only.
	GoalDryRun GoalStatus = "dry_run"
)

// GoalResult is what a goal's terminal event carries (a contract: the
// JSON of `lunad goal --json` and of `lunad goal show RUN --json`'s
// "result").
type GoalResult struct {
	Run     string     `json:"run"`
	Goal    string     `json:"goal"`
	Outcome GoalStatus `json:"outcome"`
	// Summary is the model's finish summary; Reason why a guard or limit
	// stopped the run; Plan the plan of a --plan run.
	Summary string `json:"summary,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Plan    string `json:"plan,omitempty"`
	// Branch is the goal's branch, Base the commit it was made from, Head
	// its last commit, Commits the commits the goal made (oldest first).
	Branch  string   `json:"branch"`
	Base    string   `json:"base"`
	Head    string   `json:"head"`
	Commits []string `json:"commits"`
	Steps   int      `json:"steps"`
	// TestsBefore and TestsAfter are the test results when the goal
	// started and at its end (nil: no tests configured).
	TestsBefore *TestSummary  `json:"tests_before,omitempty"`
	TestsAfter  *TestSummary  `json:"tests_after,omitempty"`
	Commands    []GoalCommand `json:"commands,omitempty"`
	Denials     []GoalDenial  `json:"denials,omitempty"`
	Tokens      int           `json:"tokens"`
	Calls       int           `json:"calls"`
	Duration    time.Duration `json:"duration_ns"`
	// Sandbox says how commands ran: "bwrap" (with what it isolated), or
	// the warning of a run the policy let run unsandboxed.
	Sandbox string `json:"sandbox"`
	// Report is the run file holding the Markdown report ("report.md").
	Report string `json:"report"`
}

// GoalCommand is one command a goal ran (run_command or a test command).
type GoalCommand struct {
	Step     int           `json:"step"`
	Argv     []string      `json:"argv"`
	Dir      string        `json:"dir"` // relative to the workspace root
	ExitCode int           `json:"exit_code"`
	Ended    string        `json:"ended,omitempty"` // why it was stopped: timeout, cpu, memory, processes, file_size, output
	Duration time.Duration `json:"duration_ns"`
	// OutputCut is the bytes of its output (stdout and stderr) left out
	// by the output cap: what was read of it (a test runner's report
	// among it) may be partial.
	OutputCut int64 `json:"output_cut,omitempty"`
}

// GoalDenial is one action the policy refused.
type GoalDenial struct {
	Step    int    `json:"step"`
	Tool    string `json:"tool"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// TestSummary is one run of the test commands, parsed where the runner
// allows (go test -json, pytest's JUnit XML); otherwise only the exit
// codes count.
type TestSummary struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errored int `json:"errored"`
	Skipped int `json:"skipped"`
	// OK: every command exited 0 and no test failed or errored.
	OK bool `json:"ok"`
	// Failures are the first failures, with their messages (trimmed).
	Failures []TestFailure `json:"failures,omitempty"`
	// Commands are the test commands with their exit codes.
	Commands []GoalCommand `json:"commands"`
}

// TestFailure is one failed or errored test.
type TestFailure struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// GoalStep is one entry of a goal's trace: the action the model
// proposed and what came of it.
type GoalStep struct {
	Step        int             `json:"step"`
	Action      GoalAction      `json:"action"`
	Observation GoalObservation `json:"observation"`
}

// GoalTrace is a goal's result and every step, oldest first: what `lunad
// goal show RUN --json` prints and the trace file a finished goal is kept
// as holds.
type GoalTrace struct {
	Result GoalResult `json:"result"`
	Trace  []GoalStep `json:"trace"`
}

// GoalAction is one tool call the model proposed.
type GoalAction struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// GoalObservation is what the model is told about its action.
type GoalObservation struct {
	// Status: "ok", "error" (the action failed), "denied" (the policy
	// refused it; Rule names the rule) or "skipped" (--dry-run).
	Status   string        `json:"status"`
	Output   string        `json:"output"`
	ExitCode *int          `json:"exit_code,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Rule     string        `json:"rule,omitempty"`
	// Files are the paths the action changed (committed after the
	// stage, one commit per mutating step).
	Files []string     `json:"files,omitempty"`
	Tests *TestSummary `json:"tests,omitempty"`
}

// GoalResultOf reads the GoalResult of a finished goal run.
func GoalResultOf(info RunInfo) (GoalResult, error) {
	var r GoalResult
	if info.Workflow != GoalWorkflow {
		return r, fmt.Errorf("%w: run %s is a run of workflow %q, not a goal", ErrInvalid, info.ID, info.Workflow)
	}
	if !info.Status.Finished() || len(info.Events) == 0 {
		return r, fmt.Errorf("%w: goal %s has not finished (it is %s); follow it with `lunad goal show %s`", ErrInvalid, info.ID, info.Status, info.ID)
	}
	// The terminal event carries the result; an accepted or discarded
	// goal's RUN_ACCEPTED or RUN_DISCARDED follows it.
	last := info.Events[len(info.Events)-1]
	for i := len(info.Events) - 1; i >= 0; i-- {
		if t := info.Events[i].Type; t == EventRunCompleted || t == EventRunAborted || t == EventRunCancelled {
			last = info.Events[i]
			break
		}
	}
	if len(last.Output) == 0 {
		return r, fmt.Errorf("%w: goal %s ended (%s) without a result: %s", ErrInvalid, info.ID, info.Status, last.Error)
	}
	if err := json.Unmarshal(last.Output, &r); err != nil {
		return r, fmt.Errorf("%w: goal %s's result does not decode: %v", ErrInvalid, info.ID, err)
	}
	return r, nil
}
