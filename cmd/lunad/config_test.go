package main

import (
	"strings"
	"testing"

	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/config/configtest"
)

// agentsRoot is a directory whose .luna/config.toml is toml; envOf a
// getenv over pairs of names and values.
var agentsRoot, envOf = configtest.Root, configtest.Env

// TestNoProviderExitCode: an ask without a configured model provider is
// the user's input to fix, and exits as such.
func TestNoProviderExitCode(t *testing.T) {
	c, err := config.Load(t.TempDir(), envOf())
	if err != nil {
		t.Fatal(err) // lunad works without agents
	}
	_, err = c.LLMFor("supervisor")
	if ExitCode(err) != exitError {
		t.Errorf("exit code %d", ExitCode(err))
	}
}

// TestAgentsConfigRefused: every bad value is refused with the setting to
// fix; a key put where a variable's name belongs is never repeated.
func TestAgentsConfigRefused(t *testing.T) {
	const secret = "sk-proj-abcdef0123456789"
	for _, tc := range []struct {
		name, toml string
		env        []string
		want       string
	}{
		{"unknown provider", "[llm]\nprovider = \"gpt\"\n", nil, `llm.provider (or LUNAD_LLM_PROVIDER) "gpt" is not a provider`},
		{"unknown provider from env", "", []string{"LUNAD_LLM_PROVIDER", "bard"}, "LUNAD_LLM_PROVIDER"},
		{"base_url not http", "[llm]\nprovider = \"openai\"\nbase_url = \"ftp://x\"\n", nil, "llm.base_url (or LUNAD_LLM_BASE_URL)"},
		{"base_url with credentials", "[llm]\nprovider = \"openai\"\nbase_url = \"http://u:" + secret + "@127.0.0.1/v1\"\n", nil, "must not carry credentials"},
		{"a key as api_key_env", "[llm]\nprovider = \"openai\"\napi_key_env = \"" + secret + "\"\n", nil, "not the key itself"},
		{"a key as api_key_env from env", "", []string{"LUNAD_LLM_API_KEY_ENV", secret}, "LUNAD_LLM_API_KEY_ENV"},
		{"an api_key in the file", "[llm]\nprovider = \"openai\"\napi_key = \"" + secret + "\"\n", nil, "unknown key llm.api_key"},
		{"a role's api_key", "[agents.coder]\napi_key = \"" + secret + "\"\n", nil, "unknown key agents.coder.api_key"},
		{"temperature", "[llm]\ntemperature = 3.5\n", nil, "llm.temperature 3.5 must be between 0 and 2"},
		{"max_tokens", "[agents.writer]\nmax_tokens = -1\n", nil, "agents.writer.max_tokens"},
		{"fallback not a role", "[agents.coder]\nfallback = \"gpt\"\n", nil, `agents.coder.fallback "gpt" must name a role`},
		{"fallback itself", "[agents.coder]\nfallback = \"coder\"\n", nil, "names the role itself"},
		{"process without command", "[llm]\nprovider = \"process\"\n", nil, "llm.command must be set"},
		{"scripted without script", "[agents.reviewer]\nprovider = \"scripted\"\n", nil, "agents.reviewer.script must be set"},
		{"negative budget", "[agents.budget]\ncalls = -1\n", nil, "agents.budget"},
		{"stall limit", "[agents.stall]\nno_progress_steps = -2\n", nil, "agents.stall.no_progress_steps -2"},
		{"budget time", "[agents.budget]\ntime = \"soon\"\n", nil, "config"},
		{"unknown role", "[agents.poet]\nmodel = \"x\"\n", nil, "unknown key agents.poet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(agentsRoot(t, tc.toml), envOf(tc.env...))
			if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != exitError {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("the error repeats the key: %v", err)
			}
		})
	}
}
