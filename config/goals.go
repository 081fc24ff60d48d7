package config

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
)

// The goals' part of the configuration (docs/goals.md; a contract):
//
//	[tests]
//	commands = [["go", "test", "./..."], ["pytest", "-q"]]
//	[agents.goal]          the goal's model over [llm] (as [agents.coder])
//	[agents.goal.budget]   tokens, calls, time: what one goal may spend
//
// and the environment LUNAD_TESTS (the commands as JSON, the same array
// of arrays) over [tests]. The policy — what a goal's commands may do, the
// sandbox — is .luna/policy.toml's (package policy).

// Tests is [tests].
type Tests struct {
	// Commands are the test commands a goal runs when it starts and after
	// each change, each a program and its arguments; none: a goal runs no
	// tests (its report says so). `lunad goal --test` replaces them.
	Commands [][]string `toml:"commands"`
}

// GoalAgent is [agents.goal]: the goal's model, over [llm], and
// its budget.
type GoalAgent struct {
	llm.Config
	Budget Budget `toml:"budget"`
}

// DefaultGoalAgent is what one goal may spend by default: a goal takes up
// to 30 steps, each a model call shown up to 12,000 tokens of state.
func DefaultGoalAgent() GoalAgent {
	return GoalAgent{Budget: Budget{Tokens: 1000000, Time: 2 * time.Hour}}
}

// loadTestsEnv reads LUNAD_TESTS over [tests] commands.
func (c *Config) loadTestsEnv(getenv func(string) string) error {
	v := getenv("LUNAD_TESTS")
	if v == "" {
		return nil
	}
	var cmds [][]string
	if err := json.Unmarshal([]byte(v), &cmds); err != nil {
		return fmt.Errorf("%w: LUNAD_TESTS=%q is not a JSON array of commands such as [[\"go\",\"test\",\"./...\"]] ([] for none)", lunad.ErrInvalid, v)
	}
	c.Tests.Commands = cmds
	return nil
}

// validate checks the test commands.
func (t Tests) validate(bad func(string, ...any) error) error {
	if err := lunad.CheckTestCommands(t.Commands, "tests.commands"); err != nil {
		return bad("%v", trimInvalid(err))
	}
	return nil
}

// trimInvalid is err's message without the ErrInvalid it starts with, for
// a message that wraps ErrInvalid itself.
func trimInvalid(err error) string {
	return strings.TrimPrefix(err.Error(), lunad.ErrInvalid.Error()+": ")
}
