package worker_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/openai"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/tools"
	"github.com/lunad/lunad/agents/worker"
)

// modelServer is an OpenAI chat-completions server answering every
// request with status and body; requests counts what it saw.
func modelServer(t *testing.T, status int, body string) (llm.Provider, *atomic.Int64) {
	t.Helper()
	var requests atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(hs.Close)
	p, err := openai.New(llm.Config{Provider: llm.ProviderOpenAI, Model: "m", BaseURL: hs.URL}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return p, &requests
}

const finishAnswer = `{"id":"2","object":"chat.completion","created":1,"model":"m2","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,` +
	`"tool_calls":[{"id":"c1","type":"function","function":{"name":"finish","arguments":"{\"summary\":\"from the fallback\"}"}}]}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`

// named is a provider under another name (a breaker of its own).
type named struct {
	llm.Provider
	name string
}

func (n named) Name() string { return n.name }

// TestRetries: the worker's model calls are retried by lunad's policy
// with the memory inside it: every HTTP request is a call the memory
// admitted and counted, with backoff between them, and a breaker that
// opens switches to the fallback at once.
func TestRetries(t *testing.T) {
	ctx := context.Background()
	t.Run("a provider that is down opens its breaker after 3 requests; the fallback answers", func(t *testing.T) {
		e := newEnv(t, memory.Options{Breaker: memory.BreakerOptions{Failures: 3}})
		primary, down := modelServer(t, 503, `{"error":{"message":"overloaded"}}`)
		backup, up := modelServer(t, 200, finishAnswer)
		o := e.options(t, tools.Coder, e.code, primary)
		o.Retry.Attempts = 10
		o.Fallback = func(string) (worker.Model, bool) {
			return worker.Model{Provider: named{backup, "backup"}, Name: "m2"}, true
		}
		out, err := worker.Run(ctx, o, worker.Task{Request: "r"})
		if err != nil || out.Status != worker.Finished || out.Summary != "from the fallback" {
			t.Fatalf("%+v %v", out, err)
		}
		if down.Load() != 3 || up.Load() != 1 {
			t.Errorf("the primary saw %d requests (want 3), the fallback %d (want 1)", down.Load(), up.Load())
		}
		if u := e.mem.Usage(); u.Calls != 4 || u.Failures != 3 {
			t.Errorf("the memory counted %d calls, %d failures; want 4 (one per request), 3", u.Calls, u.Failures)
		}
		if want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}; !slices.Equal(e.slept, want) {
			t.Errorf("slept %v, want %v (backoff between the failed attempts, none once the breaker opened)", e.slept, want)
		}
		if st := e.mem.BreakerState("openai"); st != memory.Open {
			t.Errorf("the primary's breaker is %s", st)
		}
	})
	// downRun runs a coder whose provider answers 503 to everything.
	downRun := func(t *testing.T, mo memory.Options, attempts int) (*env, worker.Outcome, *atomic.Int64, error) {
		e := newEnv(t, mo)
		primary, down := modelServer(t, 503, `{"error":{"message":"overloaded"}}`)
		o := e.options(t, tools.Coder, e.code, primary)
		o.Retry.Attempts = attempts
		out, err := worker.Run(ctx, o, worker.Task{Request: "r"})
		return e, out, down, err
	}
	t.Run("a call budget of 3 against a provider that is down stops after 3 requests", func(t *testing.T) {
		e, out, down, err := downRun(t, memory.Options{Budget: memory.Budget{Calls: 3}}, 10)
		if err != nil || out.Status != worker.BudgetExhausted || !strings.Contains(out.Reason, "calls budget is spent (3 of 3 model calls made") {
			t.Fatalf("%+v %v", out, err)
		}
		if down.Load() != 3 || e.mem.Usage().Calls != 3 {
			t.Errorf("the server saw %d requests, the memory counted %d calls; want 3", down.Load(), e.mem.Usage().Calls)
		}
	})
	t.Run("a provider that stays down fails after the retries, each request counted", func(t *testing.T) {
		e, out, down, err := downRun(t, memory.Options{}, 3)
		if err != nil || out.Status != worker.Failed || !strings.Contains(out.Reason, "gave up after 3 attempts") {
			t.Fatalf("%+v %v", out, err)
		}
		if down.Load() != 3 || e.mem.Usage().Calls != 3 || len(e.slept) != 2 {
			t.Errorf("the server saw %d requests, the memory counted %d calls, slept %v", down.Load(), e.mem.Usage().Calls, e.slept)
		}
	})
}
