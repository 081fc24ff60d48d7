package config

import (
	"reflect"
	"strings"
)

// How a running daemon takes a change of one part of the configuration
// file (Reload).
const (
	// ReloadLive: the daemon takes it at once; the next stage that calls
	// a model uses it.
	ReloadLive = "live"
	// ReloadRestart: the daemon restarts to take it, once it is idle.
	ReloadRestart = "restart"
	// ReloadClient: read by the commands (lunad mcp), not by the daemon.
	ReloadClient = "client"
)

// Reload says, per top-level key of the configuration (its section or
// setting, as the file names it), how a running daemon takes a change:
// a model provider is made afresh for each stage that calls one, so [llm]
// (provider, base_url, model, max_tokens, api_key_env, ...) is live; the
// rest is what the daemon opened with it (the store's author and limits,
// the socket's limits, the engine's slots, the queue's connection, the
// agents' budgets and roles, the goal's tests, the reference rules), so a
// change restarts it. A key missing here restarts the daemon too.
var Reload = map[string]string{
	"lock_timeout": ReloadRestart,
	"max_content":  ReloadRestart,
	"author":       ReloadRestart,
	"daemon":       ReloadRestart,
	"mcp":          ReloadClient,
	"runs":         ReloadRestart,
	"queue":        ReloadRestart,
	"refs":         ReloadRestart,
	"llm":          ReloadLive,
	"agents":       ReloadRestart,
	"tests":        ReloadRestart,
}

// Changed returns the top-level keys whose values differ between old
// and new, in the order of Config's fields.
func Changed(old, new Config) []string {
	var keys []string
	o, n := reflect.ValueOf(old), reflect.ValueOf(new)
	for i := range o.NumField() {
		if !reflect.DeepEqual(o.Field(i).Interface(), n.Field(i).Interface()) {
			keys = append(keys, tomlKey(o.Type().Field(i)))
		}
	}
	return keys
}

// NeedsRestart returns the keys among changed that a running daemon
// cannot take live (Reload).
func NeedsRestart(changed []string) []string {
	var keys []string
	for _, k := range changed {
		if r, ok := Reload[k]; !ok || r == ReloadRestart {
			keys = append(keys, k)
		}
	}
	return keys
}

func tomlKey(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}
