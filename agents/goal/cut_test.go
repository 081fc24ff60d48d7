package goal_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/openai"
)

// TestCutAnswer: llama-server's answer cut at max_tokens, its tool call's
// arguments a prefix (the provider's recorded fixture, served by a real
// HTTP server), ends the goal at once with the one message that names the
// setting — not as actions failing on invalid JSON, not asked again.
func TestCutAnswer(t *testing.T) {
	raw, err := os.ReadFile("../llm/openai/testdata/llamacpp_cut.http")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := bytes.Cut(raw, []byte("\n\n"))
	if !ok {
		t.Fatal("the fixture has no body")
	}
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	cfg := llm.Config{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "tiny", MaxTokens: 64}
	p, err := openai.New(cfg, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, p, cfg, envOptions{project: pyProject})
	info, res := e.goal("make the failing test pass", nil)
	if want := "openai: the model's answer was cut at max_tokens (64): raise [llm] max_tokens"; res.Outcome != lunad.GoalFailed || res.Reason != want || res.Steps != 0 {
		t.Errorf("outcome %s (run %s), %d steps, reason %q; want failed, 0 steps, %q", res.Outcome, info.Status, res.Steps, res.Reason, want)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d model calls, want 1: a cut answer is not retried", n)
	}
}
