package goal

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
)

// The outcomes of a goal: the state's "outcome" once the goal ends (""
// while it goes on); the report stage ends the run with it as its status.
const (
	outFinished = string(lunad.GoalFinished)
	outMaxSteps = string(lunad.GoalMaxSteps)
	outFailures = string(lunad.GoalFailures)
	outBudget   = string(lunad.GoalBudgetExhausted)
	outStopped  = string(lunad.GoalStopped)
	outFailed   = string(lunad.GoalFailed)
	outPlanned  = string(lunad.GoalPlanned)
	outDryRun   = string(lunad.GoalDryRun)
)

// recentSteps is how many of the latest steps the model is shown in full.
const recentSteps = 2

// state is the goal's progress as every stage's output carries it (a
// contract with goal.toml and OnFinish): the output of the latest stage
// visit is the run's current state, so each stage is a function of its
// request, its recorded clock, model calls and observations.
type state struct {
	Stage string `json:"stage"`
	Visit int    `json:"visit"`
	// Outcome is how the goal ended ("" while it goes on); Reason why a
	// guard or limit ended it, Summary the model's finish summary, Plan
	// the plan of a --plan run.
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	Summary string `json:"summary,omitempty"`
	Plan    string `json:"plan,omitempty"`
	// Mutated: this act's action changed files; Tested: the goal has
	// tests to run after it (configured, and not a dry run). The workflow
	// runs the tests after such an act.
	Mutated bool   `json:"mutated"`
	Tested  bool   `json:"tested"`
	DryRun  bool   `json:"dry_run,omitempty"`
	Branch  string `json:"branch,omitempty"`
	Model   string `json:"model,omitempty"`
	// Steps are the actions taken, Failures the failed ones in a row.
	Steps    int `json:"steps"`
	MaxSteps int `json:"max_steps"`
	Failures int `json:"failures"`
	// History is every step in a line; Recent the latest recentSteps in
	// full, as the model is shown them.
	History  []entry             `json:"history"`
	Recent   []lunad.GoalStep    `json:"recent,omitempty"`
	Changes  []change            `json:"changes,omitempty"`
	Commands []lunad.GoalCommand `json:"commands,omitempty"`
	Denials  []lunad.GoalDenial  `json:"denials,omitempty"`
	// TestsBefore is the test result when the goal started, Tests the
	// latest one (after step TestsStep).
	TestsBefore *lunad.TestSummary `json:"tests_before,omitempty"`
	Tests       *lunad.TestSummary `json:"tests,omitempty"`
	TestsStep   int                `json:"tests_step"`
	// Notes are what the goal could not commit or had to undo, said once
	// each (for the report).
	Notes   []string        `json:"notes,omitempty"`
	Sandbox string          `json:"sandbox,omitempty"`
	Memory  memory.Snapshot `json:"memory"`
}

// entry is one step in a line: what the model did and how it went.
type entry struct {
	Step   int      `json:"step"`
	Tool   string   `json:"tool"`
	Args   string   `json:"args"`
	Status string   `json:"status"`
	Brief  string   `json:"brief"`
	Files  []string `json:"files,omitempty"`
}

// change is one file a step changed: Undo is the diff that takes the new
// content back to the old (editor.Diff of after → before), from which the
// report recovers each file's content at the branch's base; "" with Lost
// set when it was too large to keep.
type change struct {
	Step    int    `json:"step"`
	Path    string `json:"path"`
	Created bool   `json:"created,omitempty"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Undo    string `json:"undo,omitempty"`
	Lost    bool   `json:"lost,omitempty"`
}

// changed are the paths the goal changed, sorted.
func (s *state) changed() []string {
	var out []string
	for _, c := range s.Changes {
		if !slices.Contains(out, c.Path) {
			out = append(out, c.Path)
		}
	}
	slices.Sort(out)
	return out
}

// note adds a note once.
func (s *state) note(n string) {
	if !slices.Contains(s.Notes, n) {
		s.Notes = append(s.Notes, n)
	}
}

// record adds a step to the history.
func (s *state) record(gs lunad.GoalStep) {
	e := entry{Step: gs.Step, Tool: gs.Action.Tool, Args: clipLine(llm.CanonicalArgs(gs.Action.Args), 160), Status: gs.Observation.Status, Brief: clipLine(lunad.FirstLine(strings.TrimSpace(gs.Observation.Output)), 160), Files: gs.Observation.Files}
	s.History = append(s.History, e)
	gs.Observation.Output = clip(gs.Observation.Output, 4000)
	s.Recent = append(s.Recent, gs)
	if len(s.Recent) > recentSteps {
		s.Recent = slices.Clone(s.Recent[len(s.Recent)-recentSteps:])
	}
}

func decodeState(raw json.RawMessage) (state, error) {
	var s state
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("%w: a goal stage's output does not decode: %v", lunad.ErrInvalid, err)
	}
	return s, nil
}

// latest is the state of the latest stage visit before req's (nil for
// the first stage).
func latest(outputs map[string]json.RawMessage) (*state, error) {
	var best *state
	for _, name := range sortedKeys(outputs) {
		raw := outputs[name]
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		s, err := decodeState(raw)
		if err != nil {
			return nil, err
		}
		if best == nil || s.Visit > best.Visit {
			best = &s
		}
	}
	return best, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// params are a goal run's parameters, read and checked.
type params struct {
	goal     string
	maxSteps int
	tests    [][]string
	dryRun   bool
	plan     bool
}

// parseParams reads the run's params; a bad one is ErrInvalid saying
// which flag or setting gives it.
func parseParams(p map[string]string, maxSteps int) (params, error) {
	out := params{goal: strings.TrimSpace(p[lunad.GoalParamGoal]), maxSteps: maxSteps}
	if out.goal == "" {
		return out, fmt.Errorf("%w: the goal is empty: say what to achieve, as in lunad goal \"make the failing test pass\" (the run param %q)", lunad.ErrInvalid, lunad.GoalParamGoal)
	}
	if s, ok := p[lunad.GoalParamMaxSteps]; ok && s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 10000 {
			return out, fmt.Errorf("%w: max steps %q: give a whole number from 1 to 10000 (--max-steps, the run param %q)", lunad.ErrInvalid, s, lunad.GoalParamMaxSteps)
		}
		out.maxSteps = n
	}
	if s := strings.TrimSpace(p[lunad.GoalParamTests]); s != "" {
		if err := json.Unmarshal([]byte(s), &out.tests); err != nil {
			return out, fmt.Errorf("%w: the test commands %q are not a JSON array of argv arrays such as [[\"go\",\"test\",\"./...\"]] (--test, or [tests] commands in .luna/config.toml; the run param %q)", lunad.ErrInvalid, s, lunad.GoalParamTests)
		}
		for i, argv := range out.tests {
			if len(argv) == 0 || argv[0] == "" {
				return out, fmt.Errorf("%w: test command %d is empty: give the program and its arguments (--test, or [tests] commands in .luna/config.toml)", lunad.ErrInvalid, i+1)
			}
		}
	}
	for _, f := range []struct {
		name string
		to   *bool
		flag string
	}{{lunad.GoalParamDryRun, &out.dryRun, "--dry-run"}, {lunad.GoalParamPlan, &out.plan, "--plan"}} {
		switch p[f.name] {
		case "", "false":
		case "true":
			*f.to = true
		default:
			return out, fmt.Errorf("%w: the run param %q is %q: give \"true\" or \"false\" (%s)", lunad.ErrInvalid, f.name, p[f.name], f.flag)
		}
	}
	return out, nil
}
