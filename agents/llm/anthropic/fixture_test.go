package anthropic_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
)

// TestCutAnswer: an answer stopped at max_tokens, replayed byte for byte
// from testdata, is the one error naming max_tokens, however whole its
// last tool_use block looks, whole or streamed.
func TestCutAnswer(t *testing.T) {
	for _, file := range []string{"testdata/max_tokens_cut.http", "testdata/max_tokens_cut_stream.http"} {
		t.Run(file, func(t *testing.T) { checkCut(t, file) })
	}
}

func checkCut(t *testing.T, file string) {
	s := llmtest.New(t, llmtest.Fixture(t, file))
	_, err := newProvider(t, s, func(c *llm.Config) { c.MaxTokens = 64 }).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "write"}}})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Permanent {
		t.Fatalf("err = %v, want a permanent *llm.Error", err)
	}
	if got, want := err.Error(), "anthropic: the model's answer was cut at max_tokens (64): raise [llm] max_tokens"; got != want {
		t.Errorf("err = %q\nwant  %q", got, want)
	}
	if got := s.Body(0)["max_tokens"]; got != float64(64) {
		t.Errorf("max_tokens %v, want 64", got)
	}
}

// TestStreamedToolUse: a whole answer streamed as events is read as the
// answer its blocks and deltas add up to.
func TestStreamedToolUse(t *testing.T) {
	s := llmtest.New(t, llmtest.Fixture(t, "testdata/tool_use_stream.http"))
	resp, err := newProvider(t, s, nil).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "edit"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Model: "claude-sonnet-4-5-20250929", StopReason: llm.StopToolCalls, Usage: llm.Usage{InputTokens: 472, OutputTokens: 41},
		Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "toolu_01A", Name: "edit_artifact", Arguments: []byte(`{"id":"notes.md","blocks":[]}`)},
			{ID: "toolu_01B", Name: "finish", Arguments: []byte(`{"summary":"done"}`)}}}}
	if g, w := llmtest.JSON(t, resp), llmtest.JSON(t, want); g != w {
		t.Errorf("response\n got %s\nwant %s", g, w)
	}
}

// TestStreamErrors: a stream that does not add up to an answer fails the
// call for good, saying why; the server's error event is quoted.
func TestStreamErrors(t *testing.T) {
	for _, c := range []struct{ name, stream, want string }{
		{"error event", "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
			"anthropic: the server ended the answer's stream with an error: overloaded_error: Overloaded (check [llm] base_url)"},
		{"no message_start", "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", "anthropic: the answer's stream has no message_start (check [llm] base_url)"},
		{"a delta of a block never started", "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n",
			"anthropic: the answer's stream gives a delta of content block 2, which it did not start (check [llm] base_url)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := llmtest.New(t, llmtest.Reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: c.stream})
			_, err := newProvider(t, s, nil).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != llm.Permanent || err.Error() != c.want {
				t.Errorf("err = %v\nwant  %s (permanent)", err, c.want)
			}
		})
	}
}
