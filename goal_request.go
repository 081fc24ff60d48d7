package lunad

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// GoalSpec is a goal as the surfaces take it: `lunad goal`'s flags, the
// MCP tool goal's params, the LSP command luna.goal's arguments. Request
// turns it into the run request of the built-in workflow GoalWorkflow.
type GoalSpec struct {
	// Goal is what to achieve, in words.
	Goal string `json:"goal"`
	// MaxSteps bounds the actions (0: the goal workflow's default, 30).
	MaxSteps int `json:"max_steps,omitempty"`
	// Tests are the test commands, each a program and its arguments; an
	// empty list runs no tests (the report says none ran).
	Tests [][]string `json:"tests"`
	// DryRun executes nothing that writes or runs; Plan asks for a plan
	// and ends with it.
	DryRun bool `json:"dry_run,omitempty"`
	Plan   bool `json:"plan,omitempty"`
}

// Bounds of a GoalSpec.
const (
	MaxGoalSteps    = 10000
	MaxGoalBytes    = 16 << 10
	MaxTestCommands = 32
	maxTestArgs     = 256
	maxTestArgBytes = 4096
)

// Request checks s and returns its run request. Errors wrap ErrInvalid
// and name what to fix with the flag that gives it (--max-steps, --test).
func (s GoalSpec) Request() (RunRequest, error) {
	goal := strings.TrimSpace(s.Goal)
	switch {
	case goal == "":
		return RunRequest{}, fmt.Errorf("%w: the goal is empty: say what to achieve, e.g. lunad goal \"make the failing test in parser_test.go pass\"", ErrInvalid)
	case len(s.Goal) > MaxGoalBytes:
		return RunRequest{}, fmt.Errorf("%w: the goal is %d bytes; say it in at most %d (put long instructions in a file of the workspace and name it)", ErrInvalid, len(s.Goal), MaxGoalBytes)
	case s.MaxSteps < 0 || s.MaxSteps > MaxGoalSteps:
		return RunRequest{}, fmt.Errorf("%w: --max-steps %d: give a whole number from 1 to %d (0 or none: the default, 30)", ErrInvalid, s.MaxSteps, MaxGoalSteps)
	case s.DryRun && s.Plan:
		return RunRequest{}, fmt.Errorf("%w: --dry-run and --plan together: --plan only asks for a plan; choose one", ErrInvalid)
	}
	if err := CheckTestCommands(s.Tests, "--test"); err != nil {
		return RunRequest{}, err
	}
	tests := s.Tests
	if tests == nil {
		tests = [][]string{}
	}
	b, err := json.Marshal(tests)
	if err != nil {
		return RunRequest{}, fmt.Errorf("%w: the test commands: %v", ErrInvalid, err)
	}
	p := map[string]string{GoalParamGoal: s.Goal, GoalParamTests: string(b)}
	if s.MaxSteps > 0 {
		p[GoalParamMaxSteps] = strconv.Itoa(s.MaxSteps)
	}
	if s.DryRun {
		p[GoalParamDryRun] = "true"
	}
	if s.Plan {
		p[GoalParamPlan] = "true"
	}
	return RunRequest{Workflow: GoalWorkflow, Params: p}, nil
}

// CheckTestCommands checks test commands: at most MaxTestCommands, each
// a program and its arguments, no argument empty as a program or holding
// a NUL. where names the setting or flag they come from, for the error
// (ErrInvalid).
func CheckTestCommands(cmds [][]string, where string) error {
	if len(cmds) > MaxTestCommands {
		return fmt.Errorf("%w: %s: %d test commands; give at most %d", ErrInvalid, where, len(cmds), MaxTestCommands)
	}
	for i, argv := range cmds {
		at := fmt.Sprintf("%s: test command %d", where, i+1)
		switch {
		case len(argv) == 0 || strings.TrimSpace(argv[0]) == "":
			return fmt.Errorf("%w: %s is empty: give the program and its arguments, e.g. [\"go\", \"test\", \"./...\"]", ErrInvalid, at)
		case len(argv) > maxTestArgs:
			return fmt.Errorf("%w: %s has %d arguments; at most %d", ErrInvalid, at, len(argv), maxTestArgs)
		case strings.IndexFunc(argv[0], unicode.IsSpace) >= 0 && !filepath.IsAbs(argv[0]):
			return fmt.Errorf("%w: %s: the program %q holds a space: give the program and each argument separately, e.g. [\"go\", \"test\", \"./...\"]", ErrInvalid, at, argv[0])
		}
		for _, a := range argv {
			if len(a) > maxTestArgBytes || strings.ContainsRune(a, 0) {
				return fmt.Errorf("%w: %s: an argument is longer than %d bytes or holds a NUL", ErrInvalid, at, maxTestArgBytes)
			}
		}
	}
	return nil
}
