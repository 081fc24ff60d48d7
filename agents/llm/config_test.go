package llm_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
)

func ptr[T any](v T) *T { return &v }

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  llm.Config
		want string // substring of the error; "" = valid
	}{
		{name: "no provider", cfg: llm.Config{}, want: "no model provider configured: set [llm] provider in .luna/config.toml or LUNAD_LLM_PROVIDER"},
		{name: "unknown provider", cfg: llm.Config{Provider: "gemini"}, want: `unknown model provider "gemini"`},
		{name: "openai without model", cfg: llm.Config{Provider: "openai"}, want: "set [llm] model in .luna/config.toml or LUNAD_LLM_MODEL"},
		{name: "anthropic without model", cfg: llm.Config{Provider: "anthropic"}, want: "LUNAD_LLM_MODEL"},
		{name: "process without command", cfg: llm.Config{Provider: "process"}, want: "[llm] command"},
		{name: "scripted without script", cfg: llm.Config{Provider: "scripted"}, want: "[llm] script"},
		{name: "base url not http", cfg: llm.Config{Provider: "openai", Model: "m", BaseURL: "localhost:11434"}, want: "not an http(s) URL"},
		{name: "unparsable base url with credentials", cfg: llm.Config{Provider: "openai", Model: "m", BaseURL: "htp//user:sk-secret@host:port:x"}, want: `"REDACTED@host:port:x" is not an http(s) URL`},
		{name: "base url with credentials", cfg: llm.Config{Provider: "openai", Model: "m", BaseURL: "https://u:sk-1@example.com/v1"}, want: "must not carry credentials"},
		{name: "key in api_key_env", cfg: llm.Config{Provider: "openai", Model: "m", APIKeyEnv: "sk-proj-abc-123"}, want: "not hold the key itself"},
		{name: "temperature", cfg: llm.Config{Provider: "openai", Model: "m", Temperature: ptr(2.5)}, want: "temperature 2.5 is out of range"},
		{name: "max tokens", cfg: llm.Config{Provider: "openai", Model: "m", MaxTokens: -1}, want: "max_tokens -1"},
		{name: "timeout", cfg: llm.Config{Provider: "openai", Model: "m", Timeout: -time.Second}, want: "timeout -1s"},
		{name: "max response too small", cfg: llm.Config{Provider: "openai", Model: "m", MaxResponse: 1 << 10}, want: "[llm] max_response 1KiB must be between 64KiB and 1GiB (0: 4MiB)"},
		{name: "max response too large", cfg: llm.Config{Provider: "openai", Model: "m", MaxResponse: 2 << 30}, want: "max_response 2GiB"},
		{name: "base url with a key in its query", cfg: llm.Config{Provider: "openai", Model: "m", BaseURL: "localhost:1/v1?api-key=sk-1"}, want: "not an http(s) URL"},
		{name: "openai ok", cfg: llm.Config{Provider: "openai", Model: "gpt-5", BaseURL: "http://127.0.0.1:8080/v1", APIKeyEnv: "MY_KEY", Temperature: ptr(0.0)}},
		{name: "process ok", cfg: llm.Config{Provider: "process", Command: []string{"ollama-bridge"}}},
		{name: "scripted ok", cfg: llm.Config{Provider: "scripted", Script: "demo.jsonl"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			if c.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("Validate = %v, want ErrInvalid containing %q", err, c.want)
			}
			if strings.Contains(err.Error(), "sk-1") {
				t.Errorf("the error quotes a credential: %v", err)
			}
		})
	}
}

func TestMergeAndEnv(t *testing.T) {
	base := llm.Config{Provider: "openai", Model: "gpt-5", BaseURL: "http://127.0.0.1:11434/v1", APIKeyEnv: "K", Temperature: ptr(0.3), MaxTokens: 100, Timeout: time.Minute}
	cases := []struct {
		name string
		over llm.Config
		want llm.Config
	}{
		{name: "empty override keeps the base", over: llm.Config{}, want: base},
		{name: "max response", over: llm.Config{MaxResponse: 8 << 20},
			want: llm.Config{Provider: "openai", Model: "gpt-5", BaseURL: base.BaseURL, APIKeyEnv: "K", Temperature: ptr(0.3), MaxTokens: 100, Timeout: time.Minute, MaxResponse: 8 << 20}},
		{name: "same provider, other model", over: llm.Config{Model: "gpt-5-mini", Seed: ptr(int64(1))},
			want: llm.Config{Provider: "openai", Model: "gpt-5-mini", BaseURL: base.BaseURL, APIKeyEnv: "K", Temperature: ptr(0.3), Seed: ptr(int64(1)), MaxTokens: 100, Timeout: time.Minute}},
		{name: "other provider drops the base's endpoint", over: llm.Config{Provider: "anthropic", Model: "claude-x", Fallback: "coder"},
			want: llm.Config{Provider: "anthropic", Model: "claude-x", Temperature: ptr(0.3), MaxTokens: 100, Timeout: time.Minute, Fallback: "coder"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := base.Merge(c.over)
			if g, w := llmtest.JSON(t, got), llmtest.JSON(t, c.want); g != w {
				t.Errorf("Merge\n got %s\nwant %s", g, w)
			}
		})
	}

	env := map[string]string{"LUNAD_LLM_PROVIDER": "anthropic", "LUNAD_LLM_MODEL": "claude-env", "LUNAD_LLM_BASE_URL": "http://127.0.0.1:9/", "LUNAD_LLM_API_KEY_ENV": "MY_KEY"}
	getenv := func(k string) string { return env[k] }
	got := llm.Config{}.WithEnv(getenv)
	if got.Provider != "anthropic" || got.Model != "claude-env" || got.BaseURL != "http://127.0.0.1:9/" || got.KeyEnv() != "MY_KEY" {
		t.Errorf("WithEnv on an empty config: %+v", got)
	}
	got = llm.Config{Provider: "openai", Model: "file-model"}.WithEnv(getenv)
	if got.Provider != "openai" || got.Model != "file-model" {
		t.Errorf("the file's settings must come first: %+v", got)
	}
	for provider, want := range map[string]string{"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "process": ""} {
		if got := (llm.Config{Provider: provider}).KeyEnv(); got != want {
			t.Errorf("KeyEnv(%s) = %q, want %q", provider, got, want)
		}
	}
	req := (llm.Config{Model: "m", Temperature: ptr(0.5), MaxTokens: 10}).Apply(llm.Request{MaxTokens: 20})
	if req.Model != "m" || *req.Temperature != 0.5 || req.MaxTokens != 20 || req.Seed != nil {
		t.Errorf("Apply: %+v", req)
	}
}
