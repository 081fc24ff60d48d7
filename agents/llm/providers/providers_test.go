package providers_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
	"github.com/lunad/lunad/agents/llm/providers"
)

func TestNewPicksByName(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(script, []byte(`{"content":"scripted hello"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oa := llmtest.New(t, llmtest.Reply{Status: 200, Body: `{"id":"1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"openai hello"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`})
	an := llmtest.New(t, llmtest.Reply{Status: 200, Body: `{"id":"m1","type":"message","role":"assistant","model":"c","content":[{"type":"text","text":"anthropic hello"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`})
	env := llmtest.Env(map[string]string{"ANTHROPIC_API_KEY": "k-anthropic"})
	cases := []struct {
		name string
		cfg  llm.Config
		env  func(string) string
		want string
	}{
		{"openai (a local server, no key)", llm.Config{Provider: "openai", Model: "m", BaseURL: oa.URL + "/v1"}, env, "openai hello"},
		{"anthropic", llm.Config{Provider: "anthropic", Model: "c", BaseURL: an.URL}, env, "anthropic hello"},
		{"process", llm.Config{Provider: "process", Command: []string{"/bin/sh", "-c", `cat >/dev/null; echo '{"message":{"content":"process hello"}}'`}}, env, "process hello"},
		{"scripted", llm.Config{Provider: "scripted", Script: script}, env, "scripted hello"},
		{"scripted from the environment", llm.Config{Script: script}, llmtest.Env(map[string]string{"LUNAD_LLM_PROVIDER": "scripted"}), "scripted hello"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := providers.New(c.cfg, c.env)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			if err != nil || resp.Message.Content != c.want {
				t.Fatalf("resp %+v err %v", resp, err)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	_, err := providers.New(llm.Config{}, llmtest.Env(nil))
	if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "set [llm] provider in .luna/config.toml or LUNAD_LLM_PROVIDER") {
		t.Errorf("no provider: %v", err)
	}
	_, err = providers.New(llm.Config{Provider: "anthropic", Model: "c", APIKeyEnv: "TEAM_CLAUDE_KEY"}, llmtest.Env(nil))
	if llm.KindOf(err) != llm.Auth || !strings.Contains(err.Error(), "TEAM_CLAUDE_KEY") {
		t.Errorf("no key: %v", err)
	}
}

func TestNewRetries(t *testing.T) {
	s := llmtest.New(t,
		llmtest.Reply{Status: 503, Header: map[string]string{"Retry-After": "1"}, Body: `{"error":{"message":"busy"}}`},
		llmtest.Reply{Status: 200, Body: `{"id":"1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`})
	var attempts []llm.Attempt
	p, err := providers.New(llm.Config{Provider: "openai", Model: "m", BaseURL: s.URL}, llmtest.Env(nil), providers.WithRetry(llm.RetryOptions{
		Sleep:     func(context.Context, time.Duration) error { return nil },
		OnAttempt: func(a llm.Attempt) { attempts = append(attempts, a) },
	}))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err != nil || resp.Message.Content != "ok" || len(attempts) != 2 || attempts[0].Delay != time.Second || s.Count() != 2 {
		t.Fatalf("resp %+v err %v attempts %+v requests %d", resp, err, attempts, s.Count())
	}
	bare, err := providers.New(llm.Config{Provider: "openai", Model: "m", BaseURL: s.URL}, llmtest.Env(nil), providers.WithoutRetry())
	if err != nil || bare.Name() != "openai" {
		t.Fatalf("%v %v", bare, err)
	}
}
