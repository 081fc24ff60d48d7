package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
)

// echo answers with the last message's content and counts its calls.
type echo struct{ calls int }

func (e *echo) Name() string { return "echo" }

func (e *echo) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	e.calls++
	last := req.Messages[len(req.Messages)-1].Content
	if last == "fail" {
		return llm.Response{}, &llm.Error{Provider: "echo", Kind: llm.Auth, Status: 401, Setting: "KEY"}
	}
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "re: " + last,
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "finish", Arguments: json.RawMessage(`{bad json`)}}},
		Usage: llm.Usage{InputTokens: len(last), OutputTokens: 2}, Model: "echo-1", StopReason: llm.StopToolCalls}, nil
}

func baseRequest() llm.Request {
	return llm.Request{
		Model:  "m",
		System: "you are the writer",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "write an article"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c0", Name: "read_artifact", Arguments: json.RawMessage(`{"id": "a1", "from_line": 1}`)}}},
			{Role: llm.RoleTool, ToolCallID: "c0", Content: "def parse_config(): ..."},
		},
		Tools: []llm.Tool{
			{Name: "read_artifact", Description: "read", Schema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)},
			{Name: "finish", Description: "finish", Schema: json.RawMessage(`{"type":"object"}`)},
		},
		Temperature: ptr(0.0),
	}
}

func TestHashIsCanonical(t *testing.T) {
	a := baseRequest()
	b := baseRequest()
	b.Tools[0].Schema = json.RawMessage("{\n  \"properties\": {\"id\": {\"type\": \"string\"}},\n  \"type\": \"object\"\n}")
	b.Messages[1].ToolCalls[0].Arguments = json.RawMessage(`{"from_line":1,"id":"a1"}`)
	if llm.Hash(a) != llm.Hash(b) {
		t.Errorf("key order and spacing change the hash")
	}
	if !strings.HasPrefix(llm.Hash(a), "sha256:") || len(llm.Hash(a)) != len("sha256:")+64 {
		t.Errorf("hash %q", llm.Hash(a))
	}
	c := baseRequest()
	c.Messages[2].Content += " "
	if llm.Hash(a) == llm.Hash(c) {
		t.Errorf("a changed message keeps the hash")
	}
	d := baseRequest()
	d.Tools[1].Schema = json.RawMessage(`{not json`)
	if llm.Hash(d) == llm.Hash(a) || llm.Hash(d) != llm.Hash(d) {
		t.Errorf("an invalid schema must hash, stably and differently")
	}
}

func TestRecordReplayRoundTrip(t *testing.T) {
	inner := &echo{}
	rec := llm.NewRecorder(inner)
	ctx := context.Background()
	r1 := baseRequest()
	r2 := baseRequest()
	r2.Messages = append(r2.Messages, llm.Message{Role: llm.RoleUser, Content: "fail"})
	want1, err := rec.Chat(ctx, r1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Chat(ctx, r2); llm.KindOf(err) != llm.Auth {
		t.Fatalf("err %v, want auth", err)
	}
	files := rec.Files()
	if len(files) != 2 || files["llm/0001.json"] == "" || files["llm/0002.json"] == "" {
		t.Fatalf("files %v", keys(files))
	}
	var c llm.Call
	if err := json.Unmarshal([]byte(files["llm/0001.json"]), &c); err != nil || c.Seq != 1 || c.Hash != llm.Hash(r1) {
		t.Fatalf("call file: %v %+v", err, c)
	}

	rep, err := llm.NewReplayer("openai", files)
	if err != nil {
		t.Fatal(err)
	}
	got1, err := rep.Chat(ctx, r1)
	if err != nil {
		t.Fatal(err)
	}
	if llmtest.JSON(t, got1) != llmtest.JSON(t, want1) || string(got1.Message.ToolCalls[0].Arguments) != `{bad json` {
		t.Errorf("replayed\n%s\nwant\n%s", llmtest.JSON(t, got1), llmtest.JSON(t, want1))
	}
	_, err = rep.Chat(ctx, r2)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Auth || !strings.Contains(err.Error(), "replayed") {
		t.Errorf("replayed failure: %v", err)
	}
	if inner.calls != 2 || rep.Remaining() != 0 {
		t.Errorf("inner calls %d, remaining %d", inner.calls, rep.Remaining())
	}
	// A third call was never recorded.
	_, err = rep.Chat(ctx, r1)
	var miss *llm.MissError
	if !errors.As(err, &miss) || miss.Field != "" || miss.Call != 3 || !strings.Contains(err.Error(), "more model calls than the recording has") {
		t.Errorf("extra call: %v", err)
	}
	// Files are deterministic.
	rec2 := llm.NewRecorder(&echo{})
	rec2.Chat(ctx, r1)
	if rec2.Files()["llm/0001.json"] != files["llm/0001.json"] {
		t.Errorf("the same call renders differently")
	}
}

func TestReplayMissNamesFirstField(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*llm.Request)
		field string
	}{
		{"model", func(r *llm.Request) { r.Model = "other" }, "model"},
		{"system", func(r *llm.Request) { r.System = "you are the coder" }, "system"},
		{"message content", func(r *llm.Request) { r.Messages[2].Content = "def load_config(): ..." }, "messages[2].content"},
		{"message role", func(r *llm.Request) { r.Messages[0].Role = llm.RoleAssistant }, "messages[0].role"},
		{"tool call arguments", func(r *llm.Request) { r.Messages[1].ToolCalls[0].Arguments = json.RawMessage(`{"id":"a2"}`) }, "messages[1].tool_calls[0].arguments"},
		{"extra tool call", func(r *llm.Request) {
			r.Messages[1].ToolCalls = append(r.Messages[1].ToolCalls, llm.ToolCall{ID: "c9", Name: "finish"})
		}, "messages[1].tool_calls[1]"},
		{"tool call id", func(r *llm.Request) { r.Messages[2].ToolCallID = "c9" }, "messages[2].tool_call_id"},
		{"is error", func(r *llm.Request) { r.Messages[2].IsError = true }, "messages[2].is_error"},
		{"one more message", func(r *llm.Request) { r.Messages = append(r.Messages, llm.Message{Role: llm.RoleUser, Content: "x"}) }, "messages[3]"},
		{"one message less", func(r *llm.Request) { r.Messages = r.Messages[:2] }, "messages[2]"},
		{"tool schema", func(r *llm.Request) { r.Tools[1].Schema = json.RawMessage(`{"type":"object","required":["summary"]}`) }, "tools[1].schema"},
		{"tool description", func(r *llm.Request) { r.Tools[0].Description = "reads" }, "tools[0].description"},
		{"tool removed", func(r *llm.Request) { r.Tools = r.Tools[:1] }, "tools[1]"},
		{"format added", func(r *llm.Request) { r.Format = &llm.ResponseFormat{Name: "route"} }, "format"},
		{"temperature", func(r *llm.Request) { r.Temperature = ptr(0.7) }, "temperature"},
		{"seed", func(r *llm.Request) { r.Seed = ptr(int64(3)) }, "seed"},
		{"max tokens", func(r *llm.Request) { r.MaxTokens = 99 }, "max_tokens"},
		{"first of two", func(r *llm.Request) { r.System = "x"; r.Messages[2].Content = "y" }, "system"},
	}
	rec := llm.NewRecorder(&echo{})
	if _, err := rec.Chat(context.Background(), baseRequest()); err != nil {
		t.Fatal(err)
	}
	files := rec.Files()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := llm.NewReplayer("openai", files)
			if err != nil {
				t.Fatal(err)
			}
			req := baseRequest()
			c.edit(&req)
			_, err = rep.Chat(context.Background(), req)
			var miss *llm.MissError
			if !errors.As(err, &miss) || llm.KindOf(err) != llm.Permanent {
				t.Fatalf("err %v, want a permanent *MissError", err)
			}
			if miss.Field != c.field || !strings.Contains(err.Error(), c.field+" differs") {
				t.Errorf("field %q (%v), want %q", miss.Field, err, c.field)
			}
			if rep.Remaining() != 1 {
				t.Errorf("a miss consumed the recording")
			}
		})
	}
}

func TestReplayerRejectsBadFiles(t *testing.T) {
	rec := llm.NewRecorder(&echo{})
	rec.Chat(context.Background(), baseRequest())
	good := rec.Files()["llm/0001.json"]
	cases := map[string]map[string]string{
		"not JSON":        {"llm/0001.json": "{"},
		"hash mismatch":   {"llm/0001.json": strings.Replace(good, "you are the writer", "you are the coder", 1)},
		"arguments twice": {"llm/0001.json": strings.Replace(good, `"id": "c1",`, `"id": "c1", "arguments": {},`, 1)},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := llm.NewReplayer("x", files); !errors.Is(err, lunad.ErrInvalid) {
				t.Errorf("err %v, want ErrInvalid", err)
			}
		})
	}
	// Other files beside the run event are not the replayer's.
	rep, err := llm.NewReplayer("x", map[string]string{"notes.txt": "hello", "llm/0001.json": good})
	if err != nil || rep.Remaining() != 1 {
		t.Errorf("err %v remaining %d", err, rep.Remaining())
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCanonicalArgs(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"keys sorted, space dropped", `{ "b": [1, 2.50], "a": "<x>" }`, `{"a":"<x>","b":[1,2.50]}`},
		{"not JSON", `{"a": `, `{"a": `},
		{"two values", `{} {}`, `{} {}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := llm.CanonicalArgs(json.RawMessage(c.in)); got != c.want {
				t.Errorf("%s; want %s", got, c.want)
			}
		})
	}
}
