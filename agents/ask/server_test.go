package ask_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/openai"
	"github.com/lunad/lunad/agents/memory"
)

// chatServer is a model server speaking OpenAI's chat completions: it
// answers each request with the next of its answers, each a turn's
// response put on the wire.
type chatServer struct {
	srv *httptest.Server
	mu  sync.Mutex
	// answers are the chat.completion bodies, in order.
	answers []string
	n       int
}

func newChatServer(t *testing.T, turns ...turn) *chatServer {
	t.Helper()
	var answers []string
	for i, tr := range turns {
		answers = append(answers, completionBody(t, i, tr(llm.Request{})))
	}
	return newRawChatServer(t, answers...)
}

// newRawChatServer answers with the chat.completion bodies given.
func newRawChatServer(t *testing.T, answers ...string) *chatServer {
	t.Helper()
	s := &chatServer{answers: answers}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		i := s.n
		s.n++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if i >= len(s.answers) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"the server has %d answers, this is request %d","type":"invalid_request_error"}}`, len(s.answers), i+1)
			return
		}
		io.WriteString(w, s.answers[i])
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// completionBody is resp as a chat.completion body.
func completionBody(t *testing.T, i int, resp llm.Response) string {
	t.Helper()
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if resp.Message.Content != "" {
		msg["content"] = resp.Message.Content
	}
	var calls []call
	for _, c := range resp.Message.ToolCalls {
		calls = append(calls, call{ID: c.ID, Type: "function", Function: function{Name: c.Name, Arguments: string(c.Arguments)}})
	}
	finish := "stop"
	if len(calls) > 0 {
		msg["tool_calls"], finish = calls, "tool_calls"
	}
	b, err := json.Marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", i), "object": "chat.completion", "created": 1700000000, "model": "served-1",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
		"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (s *chatServer) count() int { s.mu.Lock(); defer s.mu.Unlock(); return s.n }

// provider is an OpenAI provider at the server, as [llm] would make it.
func (s *chatServer) provider(t *testing.T) func(*ask.Options) {
	t.Helper()
	cfg := llm.Config{Provider: "openai", BaseURL: s.srv.URL + "/v1", Model: "served-1"}
	p, err := openai.New(cfg, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return func(o *ask.Options) {
		o.Providers = func(string) (llm.Provider, llm.Config, error) { return p, cfg, nil }
	}
}

// TestLiveReplayOnRealClock: an ask of several model calls, each a real
// HTTP exchange, timed by the real clock as lunad runs it, replays live
// as identical: the same path, tree and outputs (the memory's elapsed
// times included), no model called.
func TestLiveReplayOnRealClock(t *testing.T) {
	s := newChatServer(t,
		route(lunad.AskRoute{Intent: "create", Worker: "writer", NewArtifact: &lunad.NewArtifact{Title: "Notes", Type: "text/markdown", Path: "notes.md"}, Reason: "prose"}),
		tool("create_artifact", map[string]string{"title": "Notes", "path": "notes.md", "content": "# Notes\n\nfirst\n"}),
		tool("read_artifact", map[string]string{"id": "notes.md"}),
		finish("wrote the notes"))
	e := newEnv(t, memory.Options{}, 0, s.provider(t), func(o *ask.Options) { o.Clock = time.Now })
	info, res := e.ask("write notes", "", false)
	if info.Status != lunad.RunCompleted || res.Status != lunad.AskDone || len(res.Changes) != 1 || s.count() != 4 {
		t.Fatalf("status %s, %d calls, result %+v", info.Status, s.count(), res)
	}
	rep, err := e.s.ReplayRun(context.Background(), info.ID, true)
	if err != nil || !rep.Identical || rep.Divergence != 0 || rep.Tree != rep.ReplayTree || rep.Tree == "" {
		t.Errorf("live replay: %+v, %v", rep, err)
	}
	if s.count() != 4 {
		t.Errorf("the live replay called the model %d times", s.count()-4)
	}
}
