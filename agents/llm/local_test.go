package llm_test

import (
	"testing"

	"github.com/lunad/lunad/agents/llm"
)

// TestLocalServer: the base URLs taken as a local server, which needs no
// key, and those that are not — a name is never resolved.
func TestLocalServer(t *testing.T) {
	for _, c := range []struct {
		name, url string
		local     bool
	}{
		{"loopback v4", "http://127.0.0.1:8080/v1", true},
		{"loopback v4 elsewhere in 127/8", "http://127.1.2.3:8080/v1", true},
		{"loopback v6", "http://[::1]:11434/v1", true},
		{"localhost", "http://localhost:11434/v1", true},
		{"localhost upper case, dot", "http://LOCALHOST.:11434/v1", true},
		{"under .localhost", "http://llama.localhost:8080/v1", true},
		{"private 10/8", "http://10.0.0.7:8000/v1", true},
		{"private 172.16/12", "http://172.20.1.1:8000/v1", true},
		{"private 192.168/16", "https://192.168.1.20/v1", true},
		{"private v6 fd00::/8", "http://[fd12:3456::1]:8000/v1", true},
		{"OpenAI", "https://api.openai.com/v1", false},
		{"unset: the provider's API", "", false},
		{"a name that looks local", "http://localhost.example.com/v1", false},
		{"public address", "http://8.8.8.8/v1", false},
		{"172.32 is public", "http://172.32.0.1/v1", false},
		{"link-local is not private", "http://169.254.169.254/v1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := llm.Config{Provider: "openai", BaseURL: c.url, Model: "m"}
			if got := cfg.LocalServer(); got != c.local {
				t.Errorf("LocalServer(%q) = %t, want %t", c.url, got, c.local)
			}
			if got := cfg.KeyNeeded(); got != !c.local {
				t.Errorf("KeyNeeded(%q) = %t, want %t", c.url, got, !c.local)
			}
		})
	}
}
