package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// TestGoalConfig: [tests] commands and [agents.goal] (the goal's model
// over [llm], its budget) from the file, LUNAD_TESTS over the file, the
// defaults without them, and the snapshot every run records.
func TestGoalConfig(t *testing.T) {
	const file = `[llm]
provider = "openai"
base_url = "http://user:secret@127.0.0.1:11434/v1"
model = "qwen2.5-coder"

[agents.goal]
model = "qwen2.5-coder:32b"
base_url = "http://127.0.0.1:8080/v1"

[agents.goal.budget]
tokens = 300000
calls = 50
time = "45m"

[tests]
commands = [["go", "test", "./..."], ["pytest", "-q"]]
`
	t.Run("file", func(t *testing.T) {
		c, err := Load(agentsRoot(t, strings.Replace(file, "user:secret@", "", 1)), envOf())
		if err != nil {
			t.Fatal(err)
		}
		if want := [][]string{{"go", "test", "./..."}, {"pytest", "-q"}}; !slices.EqualFunc(c.Tests.Commands, want, slices.Equal) {
			t.Errorf("tests %q", c.Tests.Commands)
		}
		if b := c.Agents.Goal.Budget; b != (Budget{Tokens: 300000, Calls: 50, Time: 45 * time.Minute}) {
			t.Errorf("goal budget %+v", b)
		}
		l, err := c.LLMFor("goal")
		if err != nil || l.Provider != "openai" || l.Model != "qwen2.5-coder:32b" || l.BaseURL != "http://127.0.0.1:8080/v1" || l.APIKeyEnv != "OPENAI_API_KEY" {
			t.Errorf("the goal's model %+v, %v", l, err)
		}
		if l, _ := c.LLMFor("coder"); l.Model != "qwen2.5-coder" {
			t.Errorf("[agents.goal] leaked into the coder's: %+v", l)
		}
	})
	t.Run("defaults", func(t *testing.T) {
		c, err := Load(agentsRoot(t, ""), envOf())
		if err != nil {
			t.Fatal(err)
		}
		if c.Tests.Commands != nil || c.Agents.Goal.Budget != DefaultGoalAgent().Budget {
			t.Errorf("tests %q, goal budget %+v", c.Tests.Commands, c.Agents.Goal.Budget)
		}
		if _, err := c.LLMFor("goal"); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "no model provider configured") {
			t.Errorf("no [llm]: %v", err)
		}
	})
	t.Run("environment", func(t *testing.T) {
		c, err := Load(agentsRoot(t, strings.Replace(file, "user:secret@", "", 1)), envOf("LUNAD_TESTS", `[["make", "check"]]`))
		if err != nil || !slices.EqualFunc(c.Tests.Commands, [][]string{{"make", "check"}}, slices.Equal) {
			t.Fatalf("LUNAD_TESTS: %q, %v", c.Tests.Commands, err)
		}
		c, err = Load(agentsRoot(t, strings.Replace(file, "user:secret@", "", 1)), envOf("LUNAD_TESTS", `[]`))
		if err != nil || len(c.Tests.Commands) != 0 {
			t.Fatalf("LUNAD_TESTS=[]: %q, %v", c.Tests.Commands, err)
		}
	})
	t.Run("snapshot", func(t *testing.T) {
		c, err := Load(agentsRoot(t, strings.Replace(file, "user:secret@", "", 1)), envOf())
		if err != nil {
			t.Fatal(err)
		}
		c.Agents.Goal.BaseURL = "http://user:secret@127.0.0.1:8080/v1"
		snap, err := c.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(snap), "secret") || !strings.Contains(string(snap), "[agents.goal.budget]") || !strings.Contains(string(snap), `commands = [["go", "test", "./..."], ["pytest", "-q"]]`) {
			t.Errorf("snapshot:\n%s", snap)
		}
	})
}

// TestGoalConfigErrors: a bad value names its key and says what to give.
func TestGoalConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		env        []string
		want       string
	}{
		{"empty command", "[tests]\ncommands = [[]]\n", nil, "config: tests.commands: test command 1 is empty"},
		{"empty program", "[tests]\ncommands = [[\"go\", \"test\"], [\"\", \"x\"]]\n", nil, "tests.commands: test command 2 is empty"},
		{"one string", "[tests]\ncommands = [\"go test ./...\"]\n", nil, "config"},
		{"program with a space", "[tests]\ncommands = [[\"go test ./...\"]]\n", nil, `tests.commands: test command 1: the program "go test ./..." holds a space`},
		{"unknown key", "[tests]\ncommand = [[\"go\"]]\n", nil, "unknown key tests.command"},
		{"negative budget", "[agents.goal.budget]\ntokens = -1\n", nil, "agents.goal.budget tokens -1"},
		{"goal provider", "[agents.goal]\nprovider = \"nope\"\n", nil, `agents.goal.provider "nope" is not a provider`},
		{"LUNAD_TESTS not JSON", "", []string{"LUNAD_TESTS", "go test ./..."}, `LUNAD_TESTS="go test ./..." is not a JSON array of commands`},
		{"LUNAD_TESTS empty command", "", []string{"LUNAD_TESTS", "[[]]"}, "tests.commands: test command 1 is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(agentsRoot(t, tc.file), envOf(tc.env...))
			if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), lunad.ErrInvalid.Error()) != 1 {
				t.Fatalf("want an ErrInvalid saying %q, got %v", tc.want, err)
			}
		})
	}
}
