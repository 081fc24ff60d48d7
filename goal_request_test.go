package lunad_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

func TestGoalSpecRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec lunad.GoalSpec
		want map[string]string
		err  string
	}{
		{"defaults", lunad.GoalSpec{Goal: "make the tests pass"},
			map[string]string{"goal": "make the tests pass", "tests": "[]"}, ""},
		{"everything", lunad.GoalSpec{Goal: "g", MaxSteps: 12, Tests: [][]string{{"go", "test", "./..."}, {"pytest", "-q"}}, DryRun: true},
			map[string]string{"goal": "g", "tests": `[["go","test","./..."],["pytest","-q"]]`, "max_steps": "12", "dry_run": "true"}, ""},
		{"plan", lunad.GoalSpec{Goal: "g", Plan: true}, map[string]string{"goal": "g", "tests": "[]", "plan": "true"}, ""},
		{"empty goal", lunad.GoalSpec{Goal: " \n"}, nil, "the goal is empty"},
		{"long goal", lunad.GoalSpec{Goal: strings.Repeat("x", lunad.MaxGoalBytes+1)}, nil, "say it in at most 16384"},
		{"negative steps", lunad.GoalSpec{Goal: "g", MaxSteps: -1}, nil, "--max-steps -1: give a whole number from 1 to 10000"},
		{"too many steps", lunad.GoalSpec{Goal: "g", MaxSteps: 10001}, nil, "--max-steps 10001"},
		{"dry run and plan", lunad.GoalSpec{Goal: "g", DryRun: true, Plan: true}, nil, "--dry-run and --plan together"},
		{"empty test command", lunad.GoalSpec{Goal: "g", Tests: [][]string{{}}}, nil, "--test: test command 1 is empty"},
		{"a command line as a program", lunad.GoalSpec{Goal: "g", Tests: [][]string{{"go test"}}}, nil, `the program "go test" holds a space`},
		{"NUL", lunad.GoalSpec{Goal: "g", Tests: [][]string{{"go", "a\x00"}}}, nil, "holds a NUL"},
		{"too many commands", lunad.GoalSpec{Goal: "g", Tests: make([][]string, 33)}, nil, "33 test commands; give at most 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := tc.spec.Request()
			if tc.err != "" {
				if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want ErrInvalid saying %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil || req.Workflow != lunad.GoalWorkflow || !maps.Equal(req.Params, tc.want) {
				t.Fatalf("request %+v, %v; want params %v", req, err, tc.want)
			}
		})
	}
}
