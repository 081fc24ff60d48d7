package supervisor_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/openai"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/supervisor"
)

// TestRetries: the supervisor's call is retried by lunad's policy with
// the memory inside it — each HTTP request is a call the memory counted,
// the server's Retry-After is the wait — where it used to fail at once.
func TestRetries(t *testing.T) {
	answer, _ := json.Marshal(map[string]any{"id": "1", "object": "chat.completion", "created": 1, "model": "m1",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant",
			"content": `{"intent":"answer","worker":"writer","target":null,"new_artifact":null,"read_deps":[],"reason":"r","question":null}`}}},
		"usage": map[string]int{"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}})
	var (
		mu       sync.Mutex
		requests int
	)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n <= 2 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(503)
			io.WriteString(w, `{"error":{"message":"overloaded"}}`)
			return
		}
		w.Write(answer)
	}))
	defer hs.Close()
	p, err := openai.New(llm.Config{Provider: llm.ProviderOpenAI, Model: "m1", BaseURL: hs.URL}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.New("r1", memory.Options{Clock: func() time.Time { return time.Unix(0, 0) }})
	var slept []time.Duration
	retry := llm.RetryOptions{Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
	dec, err := supervisor.Decide(context.Background(), supervisor.Deps{Provider: p, Model: "m1", Memory: mem, Retry: retry}, supervisor.Input{Request: "what is this?"})
	if err != nil || dec.Route == nil || dec.Route.Intent != "answer" {
		t.Fatalf("decision %+v err %v", dec, err)
	}
	if u := mem.Usage(); u.Calls != 3 || requests != 3 || u.Failures != 2 || u.InputTokens != 40 {
		t.Errorf("the memory counted %+v; the server saw %d requests", u, requests)
	}
	if want := []time.Duration{2 * time.Second, 2 * time.Second}; !slices.Equal(slept, want) {
		t.Errorf("slept %v, want %v (the server's Retry-After)", slept, want)
	}
}
