package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestKnownKeys: the error for an unknown key lists every key of the
// configuration, read from the toml tags, each role's override of [llm]
// said once.
func TestKnownKeys(t *testing.T) {
	_, err := Load(agentsRoot(t, "colour = \"blue\"\n"), envOf())
	for _, want := range []string{
		"unknown key colour (known: lock_timeout, max_content, author.name, author.email, daemon.idle_timeout,",
		"daemon.memory_limit, mcp.rate,", "refs.slugs", "queue.credentials", "llm.provider, llm.base_url,",
		"llm.max_response, the same under agents.supervisor, agents.coder, agents.writer, agents.reviewer and agents.goal,",
		"agents.goal.budget.tokens, agents.goal.budget.calls, agents.goal.budget.time, the same under agents.budget, agents.stall.no_progress_steps, tests.commands;",
		"api_key_env names the environment variable",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant it to hold %q", err, want)
		}
	}
}

// TestKnownKeysFollowFields: a field added to the configuration is a
// known key without being written down anywhere else.
func TestKnownKeysFollowFields(t *testing.T) {
	type extended struct {
		Config
		Retention struct {
			KeepDays int `toml:"keep_days"`
		} `toml:"retention"`
		Verbose bool `toml:"verbose"`
	}
	keys := keyList(reflect.TypeFor[extended]())
	for _, want := range []string{"retention.keep_days", "verbose", "daemon.idle_timeout", "tests.commands"} {
		if !strings.Contains(keys, want) {
			t.Errorf("keys lack %s: %s", want, keys)
		}
	}
}
