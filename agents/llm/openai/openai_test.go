package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
	"github.com/lunad/lunad/agents/llm/openai"
)

const secret = "sk-test-SECRET-0123456789"

func newProvider(t *testing.T, s *llmtest.Server, mod func(*llm.Config)) *openai.Provider {
	t.Helper()
	return newProviderAt(t, s.URL, mod)
}

// newProviderAt is newProvider over the server at url.
func newProviderAt(t *testing.T, url string, mod func(*llm.Config)) *openai.Provider {
	t.Helper()
	cfg := llm.Config{Provider: "openai", BaseURL: url + "/v1", Model: "gpt-test", APIKeyEnv: "TEST_OPENAI_KEY"}
	if mod != nil {
		mod(&cfg)
	}
	p, err := openai.New(cfg, llmtest.Env(map[string]string{"TEST_OPENAI_KEY": secret}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func completion(message string, finish string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-test-2025",
"choices":[{"index":0,"finish_reason":"` + finish + `","message":{"role":"assistant","content":` + message + `,"refusal":null}}],
"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`
}

const toolCallCompletion = `{"id":"chatcmpl-2","object":"chat.completion","created":1700000000,"model":"gpt-test-2025",
"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"refusal":null,
"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_artifact","arguments":"{\"id\":\"a1\"}"}},
{"id":"call_2","type":"function","function":{"name":"finish","arguments":"{not json"}}]}}],
"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29}}`

func ptr[T any](v T) *T { return &v }

func TestChatRequestBody(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Status: 200, Body: completion(`"{\"intent\":\"create\"}"`, "stop")})
	p := newProvider(t, s, func(c *llm.Config) { c.Temperature = ptr(0.2); c.Seed = ptr(int64(7)); c.MaxTokens = 512 })
	req := llm.Request{
		System: "you route",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "write a parser"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_0", Name: "list_artifacts", Arguments: json.RawMessage(`{"type":"code"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_0", Content: "no such type", IsError: true},
		},
		Tools:  []llm.Tool{{Name: "list_artifacts", Description: "lists artifacts", Schema: json.RawMessage(`{"type":"object","properties":{"type":{"type":"string"}}}`)}},
		Format: &llm.ResponseFormat{Name: "route", Schema: json.RawMessage(`{"type":"object","properties":{"intent":{"type":"string"}},"required":["intent"],"additionalProperties":false}`)},
	}
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{
		Message:    llm.Message{Role: llm.RoleAssistant, Content: `{"intent":"create"}`},
		Usage:      llm.Usage{InputTokens: 11, OutputTokens: 7},
		Model:      "gpt-test-2025",
		StopReason: llm.StopEnd,
	}
	if g, w := llmtest.JSON(t, resp), llmtest.JSON(t, want); g != w {
		t.Errorf("response\n got %s\nwant %s", g, w)
	}
	if s.Count() != 1 {
		t.Fatalf("%d requests, want 1", s.Count())
	}
	if got := s.Path(0); got != "/v1/chat/completions" {
		t.Errorf("path %s, want /v1/chat/completions", got)
	}
	if got := s.Header(0).Get("Authorization"); got != "Bearer "+secret {
		t.Errorf("Authorization = %q, want the key from TEST_OPENAI_KEY", got)
	}
	body := s.Body(0)
	wantBody := `{
  "max_tokens": 512,
  "messages": [
    {"content": "you route", "role": "system"},
    {"content": "write a parser", "role": "user"},
    {"role": "assistant", "tool_calls": [{"function": {"arguments": "{\"type\":\"code\"}", "name": "list_artifacts"}, "id": "call_0", "type": "function"}]},
    {"content": "error: no such type", "role": "tool", "tool_call_id": "call_0"}
  ],
  "model": "gpt-test",
  "response_format": {"json_schema": {"name": "route", "schema": {"additionalProperties": false, "properties": {"intent": {"type": "string"}}, "required": ["intent"], "type": "object"}, "strict": true}, "type": "json_schema"},
  "seed": 7,
  "temperature": 0.2,
  "tools": [{"function": {"description": "lists artifacts", "name": "list_artifacts", "parameters": {"properties": {"type": {"type": "string"}}, "type": "object"}}, "type": "function"}]
}`
	var wb map[string]any
	if err := json.Unmarshal([]byte(wantBody), &wb); err != nil {
		t.Fatal(err)
	}
	if g, w := llmtest.JSON(t, body), llmtest.JSON(t, wb); g != w {
		t.Errorf("request body\n got %s\nwant %s", g, w)
	}
}

func TestMaxCompletionTokensForOpenAI(t *testing.T) {
	// Only the official host gets max_completion_tokens; the params are
	// built the same way, so check the local-server branch sends max_tokens
	// and never max_completion_tokens.
	s := llmtest.New(t, llmtest.Reply{Status: 200, Body: completion(`"hi"`, "stop")})
	p := newProvider(t, s, func(c *llm.Config) { c.MaxTokens = 9 })
	if _, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	b := s.Body(0)
	if _, ok := b["max_completion_tokens"]; ok {
		t.Errorf("a local server got max_completion_tokens: %v", b)
	}
	if b["max_tokens"] != 9.0 {
		t.Errorf("max_tokens = %v, want 9", b["max_tokens"])
	}
}

func TestToolCallRoundTrip(t *testing.T) {
	s := llmtest.New(t,
		llmtest.Reply{Status: 200, Body: toolCallCompletion},
		llmtest.Reply{Status: 200, Body: completion(`"done"`, "stop")})
	p := newProvider(t, s, nil)
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "read a1"}},
		Tools: []llm.Tool{{Name: "read_artifact", Schema: json.RawMessage(`{"type":"object"}`)}, {Name: "finish"}}}
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopToolCalls || len(resp.Message.ToolCalls) != 2 {
		t.Fatalf("response %+v, want two tool calls", resp)
	}
	c0, c1 := resp.Message.ToolCalls[0], resp.Message.ToolCalls[1]
	if c0.ID != "call_1" || c0.Name != "read_artifact" || string(c0.Arguments) != `{"id":"a1"}` {
		t.Errorf("first call %+v", c0)
	}
	if c1.Name != "finish" || string(c1.Arguments) != `{not json` {
		t.Errorf("invalid arguments must reach the tool layer as written: %+v", c1)
	}
	// Send the calls back with their results: the server sees the same
	// calls, and the results tied to their IDs.
	req.Messages = append(req.Messages, resp.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Content: "content of a1"},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_2", Content: "invalid JSON arguments", IsError: true})
	if _, err := p.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	msgs := s.Body(1)["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("second request has %d messages, want 4: %v", len(msgs), msgs)
	}
	calls := msgs[1].(map[string]any)["tool_calls"].([]any)
	fn := calls[1].(map[string]any)["function"].(map[string]any)
	if calls[1].(map[string]any)["id"] != "call_2" || fn["arguments"] != "{not json" {
		t.Errorf("echoed tool call %v", calls[1])
	}
	if m := msgs[3].(map[string]any); m["tool_call_id"] != "call_2" || m["content"] != "error: invalid JSON arguments" {
		t.Errorf("tool result %v", m)
	}
}

func TestErrors(t *testing.T) {
	errBody := func(msg string) string {
		return `{"error":{"message":"` + msg + `","type":"invalid_request_error","param":null,"code":null}}`
	}
	cases := []llmtest.ErrorCase{
		{Name: "401 names the env var", Reply: llmtest.Reply{Status: 401, Body: errBody("Incorrect API key provided: " + secret)},
			Kind: llm.Auth, Status: 401, Setting: "TEST_OPENAI_KEY", Contains: "TEST_OPENAI_KEY"},
		{Name: "403", Reply: llmtest.Reply{Status: 403, Body: errBody("forbidden")}, Kind: llm.Auth, Status: 403, Setting: "TEST_OPENAI_KEY"},
		{Name: "400 permanent", Reply: llmtest.Reply{Status: 400, Body: errBody("Invalid schema for response_format 'route'")},
			Kind: llm.Permanent, Status: 400, Contains: "Invalid schema"},
		{Name: "404 names the model", Reply: llmtest.Reply{Status: 404, Body: errBody("The model `gpt-test` does not exist")},
			Kind: llm.Permanent, Status: 404, Setting: "[llm] model and [llm] base_url"},
		{Name: "429 with Retry-After", Reply: llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: errBody("Rate limit")},
			Kind: llm.Transient, Status: 429, RetryIn: 7 * time.Second},
		{Name: "429 with Retry-After-Ms", Reply: llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After-Ms": "1500", "Retry-After": "9"}, Body: errBody("Rate limit")},
			Kind: llm.Transient, Status: 429, RetryIn: 1500 * time.Millisecond},
		{Name: "500", Reply: llmtest.Reply{Status: 500, Body: errBody("boom")}, Kind: llm.Transient, Status: 500},
		{Name: "502 with an HTML body", Reply: llmtest.Reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html>bad gateway</html>"},
			Kind: llm.Transient, Status: 502},
		{Name: "invalid JSON body", Reply: llmtest.Reply{Status: 200, Body: `{"id": "x", "choices": [`},
			Kind: llm.Permanent, Status: 200, Setting: "[llm] base_url", Contains: "invalid response body"},
		{Name: "no choices", Reply: llmtest.Reply{Status: 200, Body: `{"id":"x","object":"chat.completion","model":"m","choices":[]}`},
			Kind: llm.Permanent, Setting: "[llm] base_url", Contains: "no choices"},
	}
	llmtest.RunErrorCases(t, cases, secret, func(t *testing.T, s *llmtest.Server) llm.Provider { return newProvider(t, s, nil) })
}

func TestTimeout(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	s := llmtest.New(t, llmtest.Reply{Status: 200, Body: completion(`"late"`, "stop"), Wait: block})
	p := newProvider(t, s, func(c *llm.Config) { c.Timeout = 50 * time.Millisecond })
	_, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Transient || e.Setting != "[llm] timeout" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a transient timeout naming [llm] timeout", err)
	}
	if s.Count() != 1 {
		t.Errorf("%d requests, want 1", s.Count())
	}
}

func TestConnectionRefused(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Status: 200})
	url := s.URL
	s.Close()
	p, err := openai.New(llm.Config{Provider: "openai", BaseURL: url + "/v1", Model: "m"}, llmtest.Env(nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Transient || e.Setting != "[llm] base_url" {
		t.Fatalf("err = %v, want transient naming [llm] base_url", err)
	}
}

func TestNewNeedsKeyForOpenAI(t *testing.T) {
	_, err := openai.New(llm.Config{Provider: "openai", Model: "gpt-5"}, llmtest.Env(nil))
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Auth || e.Setting != "OPENAI_API_KEY" || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("err = %v, want an auth error naming OPENAI_API_KEY", err)
	}
	// A local server (Ollama, llama.cpp) needs no key.
	if _, err := openai.New(llm.Config{Provider: "openai", Model: "llama3", BaseURL: "http://127.0.0.1:11434/v1"}, llmtest.Env(nil)); err != nil {
		t.Fatalf("local server without a key: %v", err)
	}
}

func TestRetryThroughProvider(t *testing.T) {
	t.Run("429 then success", func(t *testing.T) {
		s := llmtest.New(t,
			llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: `{"error":{"message":"slow down"}}`},
			llmtest.Reply{Status: 200, Body: completion(`"ok"`, "stop")})
		var slept []time.Duration
		var attempts []llm.Attempt
		p := llm.Retry(newProvider(t, s, nil), llm.RetryOptions{
			Sleep:     func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil },
			OnAttempt: func(a llm.Attempt) { attempts = append(attempts, a) },
		})
		resp, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
		if err != nil || resp.Message.Content != "ok" {
			t.Fatalf("resp %+v err %v", resp, err)
		}
		if s.Count() != 2 || len(attempts) != 2 || len(slept) != 1 || slept[0] != 3*time.Second {
			t.Errorf("requests %d attempts %d slept %v; want 2, 2, [3s] (Retry-After honoured)", s.Count(), len(attempts), slept)
		}
		if attempts[0].Err == nil || attempts[1].Err != nil || attempts[1].Usage.InputTokens != 11 {
			t.Errorf("attempts %+v", attempts)
		}
	})
	t.Run("500s exhaust the attempts", func(t *testing.T) {
		s := llmtest.New(t, llmtest.Reply{Status: 500, Body: `{"error":{"message":"internal"}}`})
		p := llm.Retry(newProvider(t, s, nil), llm.RetryOptions{Attempts: 3,
			Sleep:  func(context.Context, time.Duration) error { return nil },
			Jitter: func(d time.Duration) time.Duration { return d }})
		_, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
		if !llm.Retryable(err) || !strings.Contains(err.Error(), "gave up after 3 attempts") {
			t.Fatalf("err = %v", err)
		}
		if s.Count() != 3 {
			t.Errorf("%d requests, want 3", s.Count())
		}
	})
	t.Run("401 is not retried", func(t *testing.T) {
		s := llmtest.New(t, llmtest.Reply{Status: 401, Body: `{"error":{"message":"bad key ` + secret + `"}}`})
		p := llm.Retry(newProvider(t, s, nil), llm.RetryOptions{Sleep: func(context.Context, time.Duration) error {
			t.Error("slept before retrying an auth error")
			return nil
		}})
		_, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
		if llm.KindOf(err) != llm.Auth || s.Count() != 1 || strings.Contains(err.Error(), secret) {
			t.Fatalf("err = %v after %d requests", err, s.Count())
		}
	})
}

// TestErrorsHideBaseURLSecrets attacks the errors with a gateway that
// echoes the api-key of the base URL's query in its error: the key must
// not reach the error (which a run's events and the logs keep).
func TestErrorsHideBaseURLSecrets(t *testing.T) {
	const querySecret = "az-QUERY-SECRET-0123456789"
	s := llmtest.New(t, llmtest.Reply{Status: 400, Body: `{"error":{"message":"bad request to /v1?api-key=` + querySecret + `"}}`})
	p := newProvider(t, s, func(c *llm.Config) { c.BaseURL = s.URL + "/v1?api-version=2024-02-01&api-key=" + querySecret })
	_, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err == nil || strings.Contains(err.Error(), querySecret) || !strings.Contains(err.Error(), "bad request") {
		t.Fatalf("err = %v, want the server's message without the key", err)
	}
}
