package config

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestChanged checks which top-level keys a change touches and which of
// them need the daemon to restart.
func TestChanged(t *testing.T) {
	for _, tc := range []struct {
		name             string
		change           func(*Config)
		changed, restart []string
	}{
		{"nothing", func(*Config) {}, nil, nil},
		{"llm base_url", func(c *Config) { c.LLM.BaseURL = "http://127.0.0.1:2/v1" }, []string{"llm"}, nil},
		{"llm model and max_tokens", func(c *Config) { c.LLM.Model, c.LLM.MaxTokens = "m2", 99 }, []string{"llm"}, nil},
		{"author", func(c *Config) { c.Author.Name = "bob" }, []string{"author"}, []string{"author"}},
		{"run slots", func(c *Config) { c.Runs.Slots = 9 }, []string{"runs"}, []string{"runs"}},
		{"mcp rate", func(c *Config) { c.MCP.Rate = 1 }, []string{"mcp"}, nil},
		{"lock timeout and llm", func(c *Config) { c.LockTimeout, c.LLM.Model = time.Minute, "m3" }, []string{"lock_timeout", "llm"}, []string{"lock_timeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, new := Default(), Default()
			tc.change(&new)
			changed := Changed(old, new)
			if !slices.Equal(changed, tc.changed) {
				t.Fatalf("Changed = %q, want %q", changed, tc.changed)
			}
			if got := NeedsRestart(changed); !slices.Equal(got, tc.restart) {
				t.Fatalf("NeedsRestart = %q, want %q", got, tc.restart)
			}
		})
	}
}

// TestReloadNamesEveryKey checks that Reload decides for every top-level
// key of Config, so that a new section is not reloaded by accident.
func TestReloadNamesEveryKey(t *testing.T) {
	typ := reflect.TypeFor[Config]()
	for i := range typ.NumField() {
		if k := tomlKey(typ.Field(i)); Reload[k] == "" {
			t.Errorf("config.Reload does not say how %q reloads", k)
		}
	}
	if len(Reload) != typ.NumField() {
		t.Errorf("config.Reload has %d keys, Config %d", len(Reload), typ.NumField())
	}
}
