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
// last tool_use block looks.
func TestCutAnswer(t *testing.T) {
	s := llmtest.New(t, llmtest.Fixture(t, "testdata/max_tokens_cut.http"))
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
