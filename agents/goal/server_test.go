package goal_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lunad/lunad/agents/goal"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/openai"
)

// server is a model behind a real HTTP server on 127.0.0.1 speaking
// OpenAI's chat completions (POST /v1/chat/completions): it answers the
// scenario's steps in order, each only if the request is what a goal
// sends — the goal's system prompt, its tools, and a state that shows
// what the step's when names (the last observation, the tests) — and a
// 400 saying what was wrong otherwise.
type server struct {
	srv   *httptest.Server
	steps []act

	mu   sync.Mutex
	n    int
	errs []string
}

func newServer(t *testing.T, steps []act) *server {
	t.Helper()
	s := &server{steps: steps}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.srv.Close()
		for _, e := range s.errors() {
			t.Errorf("model server: %s", e)
		}
	})
	return s
}

func (s *server) provider(t *testing.T) (llm.Provider, llm.Config) {
	t.Helper()
	cfg := llm.Config{Provider: "openai", BaseURL: s.srv.URL + "/v1", Model: "scripted-1", APIKeyEnv: "GOAL_TEST_KEY"}
	p, err := openai.New(cfg, func(k string) string {
		if k == "GOAL_TEST_KEY" {
			return "k-test"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, cfg
}

func (s *server) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *server) errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.errs)
}

func (s *server) fail(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.errs = append(s.errs, msg)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": msg, "type": "invalid_request_error"}})
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.fail(w, "%s %s: not the chat completions endpoint", r.Method, r.URL.Path)
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer k-test" {
		s.fail(w, "authorization %q", got)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.fail(w, "the request is not JSON: %v", err)
		return
	}
	s.mu.Lock()
	s.n++
	k := s.n
	s.mu.Unlock()
	if k > len(s.steps) {
		s.fail(w, "call %d: the scenario has %d steps", k, len(s.steps))
		return
	}
	step := s.steps[k-1]
	_, system := goal.Prompt()
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Function.Name)
		if t.Type != "function" || !json.Valid(t.Function.Parameters) {
			s.fail(w, "call %d: tool %s is not a function with a JSON schema", k, t.Function.Name)
			return
		}
	}
	switch {
	case req.Model != "scripted-1":
		s.fail(w, "call %d: model %q", k, req.Model)
	case len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[0].Content != system || req.Messages[1].Role != "user":
		s.fail(w, "call %d: want the goal's system prompt and one user message, got %d messages", k, len(req.Messages))
	case !slices.Equal(tools, []string{"read_artifact", "search", "edit_artifact", "apply_patch", "write_file", "run_command", "run_tests", "finish"}):
		s.fail(w, "call %d: tools %v", k, tools)
	case !strings.Contains(req.Messages[1].Content, fmt.Sprintf("Step %d of at most", k)) || !strings.Contains(req.Messages[1].Content, step.when):
		s.fail(w, "call %d: the state does not show step %d and %q:\n%s", k, k, step.when, req.Messages[1].Content)
	default:
		args, _ := json.Marshal(step.args)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", k), "object": "chat.completion", "created": 1767225600, "model": "scripted-1",
			"choices": []map[string]any{{"index": 0, "finish_reason": "tool_calls", "logprobs": nil, "message": map[string]any{
				"role": "assistant", "content": nil,
				"tool_calls": []map[string]any{{"id": fmt.Sprintf("call_%d", k), "type": "function", "function": map[string]string{"name": step.tool, "arguments": string(args)}}}}}},
			"usage": map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
	}
}
