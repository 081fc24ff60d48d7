package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/anthropic"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
)

const secret = "sk-ant-test-SECRET-42"

func newProvider(t *testing.T, s *llmtest.Server, mod func(*llm.Config)) *anthropic.Provider {
	t.Helper()
	return newProviderAt(t, s.URL, mod)
}

// newProviderAt is newProvider over the server at url.
func newProviderAt(t *testing.T, url string, mod func(*llm.Config)) *anthropic.Provider {
	t.Helper()
	cfg := llm.Config{Provider: "anthropic", BaseURL: url, Model: "claude-test", APIKeyEnv: "TEST_ANTHROPIC_KEY"}
	if mod != nil {
		mod(&cfg)
	}
	p, err := anthropic.New(cfg, llmtest.Env(map[string]string{"TEST_ANTHROPIC_KEY": secret}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func message(content, stop string) string {
	return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test-2026","content":` + content + `,
"stop_reason":"` + stop + `","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":5,"cache_read_input_tokens":3,"cache_creation_input_tokens":0}}`
}

func ptr[T any](v T) *T { return &v }

var hi = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}

func TestStructuredOutputIsAForcedTool(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Status: 200, Body: message(`[{"type":"tool_use","id":"toolu_1","name":"route","input":{"intent":"create","worker":"coder"}}]`, "tool_use")})
	p := newProvider(t, s, func(c *llm.Config) { c.Temperature = ptr(0.0); c.Seed = ptr(int64(5)) })
	resp, err := p.Chat(context.Background(), llm.Request{
		System:   "you route requests",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "write a parser"}},
		Format:   &llm.ResponseFormat{Name: "route", Schema: json.RawMessage(`{"type":"object","properties":{"intent":{"type":"string"}},"required":["intent"],"additionalProperties":false}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: `{"intent":"create","worker":"coder"}`},
		Usage: llm.Usage{InputTokens: 15, OutputTokens: 5}, Model: "claude-test-2026", StopReason: llm.StopEnd}
	if g, w := llmtest.JSON(t, resp), llmtest.JSON(t, want); g != w {
		t.Errorf("response\n got %s\nwant %s", g, w)
	}
	if s.Count() != 1 || s.Path(0) != "/v1/messages" {
		t.Fatalf("%d requests, path %s", s.Count(), s.Path(0))
	}
	if got := s.Header(0).Get("Authorization"); got != "Bearer "+secret {
		t.Errorf("Authorization = %q, want the key from TEST_ANTHROPIC_KEY", got)
	}
	wantBody := `{
  "max_tokens": 4096,
  "messages": [{"content": [{"text": "write a parser", "type": "text"}], "role": "user"}],
  "model": "claude-test",
  "system": [{"text": "you route requests", "type": "text"}],
  "temperature": 0,
  "tool_choice": {"name": "route", "type": "tool"},
  "tools": [{"description": "Answer with this tool: its input is your answer.", "input_schema": {"additionalProperties": false, "properties": {"intent": {"type": "string"}}, "required": ["intent"], "type": "object"}, "name": "route"}]
}`
	var wb map[string]any
	if err := json.Unmarshal([]byte(wantBody), &wb); err != nil {
		t.Fatal(err)
	}
	if g, w := llmtest.JSON(t, s.Body(0)), llmtest.JSON(t, wb); g != w {
		t.Errorf("request body\n got %s\nwant %s", g, w)
	}
}

func TestToolUseRoundTrip(t *testing.T) {
	s := llmtest.New(t,
		llmtest.Reply{Status: 200, Body: message(`[{"type":"text","text":"Reading it."},{"type":"tool_use","id":"toolu_1","name":"read_artifact","input":{"id":"a1"}}]`, "tool_use")},
		llmtest.Reply{Status: 200, Body: message(`[{"type":"text","text":"Done."}]`, "end_turn")})
	p := newProvider(t, s, func(c *llm.Config) { c.MaxTokens = 300 })
	req := llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "read a1"}},
		Tools:    []llm.Tool{{Name: "read_artifact", Description: "reads", Schema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}},
	}
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantMsg := llm.Message{Role: llm.RoleAssistant, Content: "Reading it.", ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "read_artifact", Arguments: json.RawMessage(`{"id":"a1"}`)}}}
	if resp.StopReason != llm.StopToolCalls || llmtest.JSON(t, resp.Message) != llmtest.JSON(t, wantMsg) {
		t.Fatalf("response %+v", resp)
	}
	if _, ok := s.Body(0)["tool_choice"]; ok {
		t.Errorf("tool_choice sent without a response format: %v", s.Body(0))
	}
	req.Messages = append(req.Messages, resp.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_1", Content: "no such artifact", IsError: true},
		llm.Message{Role: llm.RoleUser, Content: "try a2"})
	resp, err = p.Chat(context.Background(), req)
	if err != nil || resp.Message.Content != "Done." || resp.StopReason != llm.StopEnd {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	want := `[{"content":[{"text":"read a1","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"Reading it.","type":"text"},{"id":"toolu_1","input":{"id":"a1"},"name":"read_artifact","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":[{"text":"no such artifact","type":"text"}],"is_error":true,"tool_use_id":"toolu_1","type":"tool_result"},{"text":"try a2","type":"text"}],"role":"user"}]`
	if got := llmtest.JSON(t, s.Body(1)["messages"]); got != want {
		t.Errorf("second request's messages\n got %s\nwant %s", got, want)
	}
	if s.Body(1)["max_tokens"] != 300.0 {
		t.Errorf("max_tokens %v", s.Body(1)["max_tokens"])
	}
}

func TestErrors(t *testing.T) {
	errBody := func(typ, msg string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"}}`
	}
	cases := []llmtest.ErrorCase{
		{Name: "401 names the env var", Reply: llmtest.Reply{Status: 401, Body: errBody("authentication_error", "invalid x-api-key "+secret)},
			Kind: llm.Auth, Status: 401, Setting: "TEST_ANTHROPIC_KEY", Contains: "TEST_ANTHROPIC_KEY"},
		{Name: "403", Reply: llmtest.Reply{Status: 403, Body: errBody("permission_error", "no access")}, Kind: llm.Auth, Status: 403, Setting: "TEST_ANTHROPIC_KEY"},
		{Name: "400", Reply: llmtest.Reply{Status: 400, Body: errBody("invalid_request_error", "tools.0.input_schema: invalid")},
			Kind: llm.Permanent, Status: 400, Contains: "input_schema"},
		{Name: "404 model", Reply: llmtest.Reply{Status: 404, Body: errBody("not_found_error", "model: claude-test")},
			Kind: llm.Permanent, Status: 404, Setting: "[llm] model and [llm] base_url"},
		{Name: "429 Retry-After", Reply: llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "12"}, Body: errBody("rate_limit_error", "slow")},
			Kind: llm.Transient, Status: 429, RetryIn: 12 * time.Second},
		{Name: "529 overloaded", Reply: llmtest.Reply{Status: 529, Body: errBody("overloaded_error", "Overloaded")}, Kind: llm.Transient, Status: 529},
		{Name: "503 plain text", Reply: llmtest.Reply{Status: 503, Header: map[string]string{"Content-Type": "text/plain"}, Body: "upstream down"}, Kind: llm.Transient, Status: 503},
		{Name: "invalid JSON body", Reply: llmtest.Reply{Status: 200, Body: `{"id":"msg_1","content":[`},
			Kind: llm.Permanent, Status: 200, Setting: "[llm] base_url", Contains: "invalid response body"},
	}
	llmtest.RunErrorCases(t, cases, secret, func(t *testing.T, s *llmtest.Server) llm.Provider { return newProvider(t, s, nil) })
}

func TestForcedToolMissing(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Status: 200, Body: message(`[{"type":"text","text":"I think create."}]`, "end_turn")})
	_, err := newProvider(t, s, nil).Chat(context.Background(), llm.Request{Messages: hi.Messages, Format: &llm.ResponseFormat{Name: "route"}})
	if llm.KindOf(err) != llm.Permanent || !strings.Contains(err.Error(), "did not call the forced tool route") {
		t.Fatalf("err = %v", err)
	}
}

func TestTimeoutAndRetry(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	s := llmtest.New(t, llmtest.Reply{Status: 200, Body: message(`[]`, "end_turn"), Wait: block})
	p := newProvider(t, s, func(c *llm.Config) { c.Timeout = 50 * time.Millisecond })
	_, err := p.Chat(context.Background(), hi)
	if llm.KindOf(err) != llm.Transient || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "[llm] timeout") {
		t.Fatalf("err = %v", err)
	}

	s2 := llmtest.New(t,
		llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}`},
		llmtest.Reply{Status: 200, Body: message(`[{"type":"text","text":"ok"}]`, "end_turn")})
	var slept []time.Duration
	r := llm.Retry(newProvider(t, s2, nil), llm.RetryOptions{Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }})
	resp, err := r.Chat(context.Background(), hi)
	if err != nil || resp.Message.Content != "ok" || s2.Count() != 2 || len(slept) != 1 || slept[0] != 2*time.Second {
		t.Fatalf("resp %+v err %v requests %d slept %v", resp, err, s2.Count(), slept)
	}
}

func TestNewNeedsKey(t *testing.T) {
	_, err := anthropic.New(llm.Config{Provider: "anthropic", Model: "claude"}, llmtest.Env(nil))
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Auth || e.Setting != "ANTHROPIC_API_KEY" || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
}
