package openai_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
)

// TestRecordedAnswers: llama-server's answers, replayed byte for byte from
// testdata, come out as lunad reads them: several tool calls in order, a
// cut answer (streamed or not) as the one error naming max_tokens whatever
// its partial tool call holds, a 500 as a transient failure quoting the
// server's message.
func TestRecordedAnswers(t *testing.T) {
	t.Run("several tool calls", func(t *testing.T) {
		s := llmtest.New(t, llmtest.Fixture(t, "testdata/llamacpp_tool_calls.http"))
		resp, err := newProvider(t, s, nil).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "edit"}}})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range resp.Message.ToolCalls {
			names = append(names, c.Name)
		}
		if got, want := llmtest.JSON(t, names), `["edit_artifact","finish","create_artifact","read_artifact","create_artifact"]`; got != want || resp.StopReason != llm.StopToolCalls {
			t.Errorf("tool calls %s (stop %s), want %s", got, resp.StopReason, want)
		}
		if got := string(resp.Message.ToolCalls[1].Arguments); got != `{"summary":"edited the notes"}` {
			t.Errorf("finish's arguments %s", got)
		}
		if resp.Usage != (llm.Usage{InputTokens: 812, OutputTokens: 171}) || resp.Model != "tiny-q8_0.gguf" {
			t.Errorf("usage %+v, model %q", resp.Usage, resp.Model)
		}
	})
	for _, c := range []struct{ name, file string }{
		{"cut", "testdata/llamacpp_cut.http"},
		{"cut while streaming", "testdata/llamacpp_stream_cut.http"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := llmtest.New(t, llmtest.Fixture(t, c.file))
			_, err := newProvider(t, s, func(cfg *llm.Config) { cfg.MaxTokens = 64 }).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "write"}}})
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != llm.Permanent {
				t.Fatalf("err = %v, want a permanent *llm.Error", err)
			}
			if got, want := err.Error(), "openai: the model's answer was cut at max_tokens (64): raise [llm] max_tokens"; got != want {
				t.Errorf("err = %q\nwant  %q", got, want)
			}
		})
	}
	t.Run("500 from llama-server", func(t *testing.T) {
		s := llmtest.New(t, llmtest.Fixture(t, "testdata/llamacpp_500.http"))
		_, err := newProvider(t, s, nil).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "write"}}})
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != llm.Transient || e.Status != 500 {
			t.Fatalf("err = %v, want a transient HTTP 500", err)
		}
		if got, want := err.Error(), "openai: HTTP 500 Internal Server Error: Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 42: syntax error while parsing object - unexpected end of input; expected '}'"; got != want {
			t.Errorf("err = %q\nwant  %q", got, want)
		}
	})
}

// TestDefaultMaxTokens: without [llm] max_tokens a call still bounds the
// answer, at llm.DefaultMaxTokens; the setting overrides it.
func TestDefaultMaxTokens(t *testing.T) {
	for _, c := range []struct {
		name string
		set  int
		want float64
	}{{"unset", 0, llm.DefaultMaxTokens}, {"set", 300, 300}} {
		t.Run(c.name, func(t *testing.T) {
			s := llmtest.New(t, llmtest.Fixture(t, "testdata/llamacpp_tool_calls.http"))
			p := newProvider(t, s, func(cfg *llm.Config) { cfg.MaxTokens = c.set })
			if _, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
				t.Fatal(err)
			}
			if got := s.Body(0)["max_tokens"]; got != c.want {
				t.Errorf("max_tokens %v, want %v", got, c.want)
			}
		})
	}
}

// TestStreamThatDoesNotDecode: an event stream whose events are not
// chunks fails the call for good, saying so, with the base URL to check.
func TestStreamThatDoesNotDecode(t *testing.T) {
	s := llmtest.New(t, llmtest.Reply{Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":3}]}}]}\n\ndata: [DONE]\n\n"})
	_, err := newProvider(t, s, nil).Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Permanent {
		t.Fatalf("err = %v, want a permanent *llm.Error", err)
	}
	if got, want := err.Error(), "openai: the answer's stream gives tool call 3 before tool call 0 (check [llm] base_url)"; got != want {
		t.Errorf("err = %q\nwant  %q", got, want)
	}
}
