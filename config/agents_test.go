package config

import (
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/config/configtest"
)

// agentsRoot is a directory whose .luna/config.toml is toml; envOf a
// getenv over pairs of names and values.
var agentsRoot, envOf = configtest.Root, configtest.Env

// TestAgentsConfig: [llm] then the environment, each role's override over
// it (another provider starts over from that provider), the budget, and
// the default key variable by provider.
func TestAgentsConfig(t *testing.T) {
	const file = `[llm]
provider = "openai"
base_url = "http://127.0.0.1:11434/v1"
model = "qwen2.5-coder"
temperature = 0.2
seed = 7
max_tokens = 2048

[agents.writer]
provider = "anthropic"
model = "claude-sonnet-4-5"

[agents.reviewer]
model = "qwen2.5:32b"
temperature = 0.0
fallback = "coder"

[agents.budget]
tokens = 50000
calls = 12
time = "2m"
`
	c, err := Load(agentsRoot(t, file), envOf())
	if err != nil {
		t.Fatal(err)
	}
	if b := c.Agents.Budget; b != (Budget{Tokens: 50000, Calls: 12, Time: 2 * time.Minute}) {
		t.Errorf("budget %+v", b)
	}
	for _, tc := range []struct {
		role, provider, url, model, keyEnv string
		temp                               float64
		fallback                           string
	}{
		{"supervisor", "openai", "http://127.0.0.1:11434/v1", "qwen2.5-coder", "OPENAI_API_KEY", 0.2, ""},
		{"coder", "openai", "http://127.0.0.1:11434/v1", "qwen2.5-coder", "OPENAI_API_KEY", 0.2, ""},
		// Another provider: the base's URL does not carry over; its key variable is the provider's.
		{"writer", "anthropic", "", "claude-sonnet-4-5", "ANTHROPIC_API_KEY", 0.2, ""},
		{"reviewer", "openai", "http://127.0.0.1:11434/v1", "qwen2.5:32b", "OPENAI_API_KEY", 0, "coder"},
	} {
		t.Run(tc.role, func(t *testing.T) {
			l, err := c.LLMFor(tc.role)
			if err != nil {
				t.Fatal(err)
			}
			if l.Provider != tc.provider || l.BaseURL != tc.url || l.Model != tc.model || l.APIKeyEnv != tc.keyEnv ||
				l.Temperature == nil || *l.Temperature != tc.temp || l.Seed == nil || *l.Seed != 7 || l.MaxTokens != 2048 || l.Fallback != tc.fallback {
				t.Fatalf("%s: %+v", tc.role, l)
			}
		})
	}

	t.Run("environment over the file", func(t *testing.T) {
		c, err := Load(agentsRoot(t, file), envOf("LUNAD_LLM_PROVIDER", "anthropic", "LUNAD_LLM_BASE_URL", "http://127.0.0.1:9/",
			"LUNAD_LLM_MODEL", "claude-haiku-4-5", "LUNAD_LLM_API_KEY_ENV", "MY_KEY"))
		if err != nil {
			t.Fatal(err)
		}
		l, _ := c.LLMFor("coder")
		if l.Provider != "anthropic" || l.BaseURL != "http://127.0.0.1:9/" || l.Model != "claude-haiku-4-5" || l.APIKeyEnv != "MY_KEY" {
			t.Fatalf("coder %+v", l)
		}
	})
	t.Run("no provider", func(t *testing.T) {
		c, err := Load(t.TempDir(), envOf())
		if err != nil {
			t.Fatal(err) // lunad works without agents
		}
		_, err = c.LLMFor("supervisor")
		for _, want := range []string{"no model provider configured", "[llm] provider", ".luna/config.toml", "LUNAD_LLM_PROVIDER", "LUNAD_LLM_MODEL", "docs/agents.md"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want it to name %q", err, want)
			}
		}
		c.LLM.Provider = "openai"
		if _, err := c.LLMFor("coder"); err == nil || !strings.Contains(err.Error(), "the coder's model: invalid input: no model configured for provider openai: set [llm] model in .luna/config.toml or LUNAD_LLM_MODEL") {
			t.Errorf("no model: %v", err)
		}
		if _, err := c.LLMFor("poet"); err == nil || !strings.Contains(err.Error(), "roles: supervisor, coder, writer, reviewer") {
			t.Errorf("unknown role: %v", err)
		}
	})
}

// snapshotOf loads the configuration of a workspace whose config.toml is
// toml and returns it with its snapshot.
func snapshotOf(t *testing.T, toml string, getenv func(string) string) (Config, string) {
	t.Helper()
	c, err := Load(agentsRoot(t, toml), getenv)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return c, string(snap)
}

// TestSnapshotHoldsNoKey: the configuration every run records names the
// key's variable, never a key — with the key in the environment.
func TestSnapshotHoldsNoKey(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	_, s := snapshotOf(t, "[llm]\nprovider = \"openai\"\nmodel = \"gpt-5\"\n[agents.writer]\nprovider = \"anthropic\"\n",
		envOf("OPENAI_API_KEY", key, "ANTHROPIC_API_KEY", key, "LUNAD_LLM_API_KEY_ENV", "OPENAI_API_KEY"))
	if strings.Contains(s, key) || strings.Contains(s, "sk-") {
		t.Fatalf("the snapshot holds the key:\n%s", s)
	}
	for _, want := range []string{"[llm]", `provider = "openai"`, `api_key_env = "OPENAI_API_KEY"`, "[agents.writer]", `provider = "anthropic"`, "[agents.budget]"} {
		if !strings.Contains(s, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, s)
		}
	}
}

// TestSnapshotHoldsNoURLSecret attacks the snapshot every run records in
// refs/luna/runs/* with credentials in URLs: an api-key in a gateway's
// query (Azure style), a signature in a role's base_url, a NATS token
// written as the user. None may reach it; the rest of the URLs must.
func TestSnapshotHoldsNoURLSecret(t *testing.T) {
	const key, sig, token = "azkey0123456789", "sig0123456789", "natstok0123456789"
	c, s := snapshotOf(t, "[llm]\nprovider = \"openai\"\nmodel = \"gpt-5\"\nbase_url = \"https://gw.example/openai/v1?api-version=2024-02-01&api-key="+key+"\"\n"+
		"[agents.coder]\nbase_url = \"http://127.0.0.1:8080/v1?sig="+sig+"\"\n[queue]\nurl = \"nats://"+token+"@127.0.0.1:4222\"\n", envOf())
	for _, secret := range []string{key, sig, token} {
		if strings.Contains(s, secret) {
			t.Errorf("the snapshot holds %q:\n%s", secret, s)
		}
	}
	for _, want := range []string{"https://gw.example/openai/v1?api-version=2024-02-01&api-key=REDACTED", "http://127.0.0.1:8080/v1?sig=REDACTED", "nats://REDACTED@127.0.0.1:4222"} {
		if !strings.Contains(s, want) {
			t.Errorf("the snapshot lacks %q:\n%s", want, s)
		}
	}
	if c.LLM.BaseURL != "https://gw.example/openai/v1?api-version=2024-02-01&api-key="+key {
		t.Errorf("the configuration itself lost the key: %q", c.LLM.BaseURL)
	}
}

// TestMaxResponse: [llm] max_response from the file, the environment over
// it, a role's over [llm], and the bounds.
func TestMaxResponse(t *testing.T) {
	const base = "[llm]\nprovider = \"openai\"\nmodel = \"m\"\n"
	for _, c := range []struct {
		name, toml string
		env        []string
		role       string
		want       int64
		err        string
	}{
		{name: "default", toml: base, role: "coder", want: llm.DefaultMaxResponse},
		{name: "file", toml: base + "max_response = \"8MiB\"\n", role: "coder", want: 8 << 20},
		{name: "integer", toml: base + "max_response = 131072\n", role: "coder", want: 128 << 10},
		{name: "environment", toml: base + "max_response = \"8MiB\"\n", env: []string{"LUNAD_LLM_MAX_RESPONSE", "16MiB"}, role: "coder", want: 16 << 20},
		{name: "role", toml: base + "max_response = \"8MiB\"\n[agents.writer]\nmax_response = \"1MiB\"\n", role: "writer", want: 1 << 20},
		{name: "too small", toml: base + "max_response = \"1KiB\"\n", err: "llm.max_response (or LUNAD_LLM_MAX_RESPONSE) 1KiB must be between 64KiB and 1GiB"},
		{name: "too large for a role", toml: base + "[agents.goal]\nmax_response = \"2GiB\"\n", err: "agents.goal.max_response 2GiB must be between"},
		{name: "not a size", toml: base, env: []string{"LUNAD_LLM_MAX_RESPONSE", "lots"}, err: `LUNAD_LLM_MAX_RESPONSE="lots" is not a size`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(agentsRoot(t, c.toml), envOf(c.env...))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			l, err := cfg.LLMFor(c.role)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.ResponseLimit(); got != c.want {
				t.Errorf("ResponseLimit = %d, want %d", got, c.want)
			}
		})
	}
}
