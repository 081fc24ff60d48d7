package guard_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/guard"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/openai"
	"github.com/lunad/lunad/agents/memory"
)

// reply is one HTTP answer of a model server.
type reply struct {
	status     int
	retryAfter string
	body       string
}

var (
	busy = reply{status: 503, body: `{"error":{"message":"overloaded"}}`}
	ok   = reply{status: 200, body: `{"id":"1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hello"}}],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`}
)

// server is an OpenAI chat-completions server answering its replies in
// order (the last repeats) and counting the requests it saw.
type server struct {
	mu      sync.Mutex
	replies []reply
	n       int
}

func newServer(t *testing.T, replies ...reply) (*server, llm.Provider) {
	t.Helper()
	s := &server{replies: replies}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		rep := s.replies[min(s.n, len(s.replies)-1)]
		s.n++
		s.mu.Unlock()
		if rep.retryAfter != "" {
			w.Header().Set("Retry-After", rep.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
	}))
	t.Cleanup(hs.Close)
	p, err := openai.New(llm.Config{Provider: llm.ProviderOpenAI, Model: "m", BaseURL: hs.URL}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

func (s *server) requests() int { s.mu.Lock(); defer s.mu.Unlock(); return s.n }

// sleeper records the backoff waits instead of waiting.
type sleeper struct {
	mu    sync.Mutex
	slept []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.slept = append(s.slept, d)
	s.mu.Unlock()
	return ctx.Err()
}

func retryOptions(attempts int, s *sleeper) llm.RetryOptions {
	return llm.RetryOptions{Attempts: attempts, Base: 100 * time.Millisecond, Sleep: s.Sleep,
		Jitter: func(d time.Duration) time.Duration { return d }} // no jitter: the waits are exact
}

func newMemory(o memory.Options) *memory.Memory {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	o.Clock = func() time.Time { mu.Lock(); defer mu.Unlock(); now = now.Add(time.Millisecond); return now }
	return memory.New("run1", o)
}

const ms = time.Millisecond

func TestRetried(t *testing.T) {
	cases := []struct {
		name     string
		mem      memory.Options
		attempts int
		chats    int // calls made through the guard (default 1)
		replies  []reply
		requests int             // the HTTP requests the server saw, and the calls the memory counted
		failures int             // the failures the memory counted
		slept    []time.Duration // the waits between attempts
		check    func(t *testing.T, m *memory.Memory, resp llm.Response, err error)
	}{
		{name: "a provider that is down: every attempt counted, backoff between them", attempts: 4,
			replies: []reply{busy}, requests: 4, failures: 4, slept: []time.Duration{100 * ms, 200 * ms, 400 * ms},
			check: func(t *testing.T, m *memory.Memory, _ llm.Response, err error) {
				if llm.KindOf(err) != llm.Transient || !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), "gave up after 4 attempts") {
					t.Errorf("err %v", err)
				}
				if st := m.BreakerState("openai"); st != memory.Closed {
					t.Errorf("breaker %s after 4 failures of 5", st)
				}
			}},
		{name: "Retry-After is honoured", attempts: 3,
			replies:  []reply{{status: 429, retryAfter: "3", body: `{"error":{"message":"slow down"}}`}, {status: 503, retryAfter: "7"}, ok},
			requests: 3, failures: 2, slept: []time.Duration{3 * time.Second, 7 * time.Second},
			check: func(t *testing.T, m *memory.Memory, resp llm.Response, err error) {
				if err != nil || resp.Message.Content != "hello" {
					t.Fatalf("resp %+v err %v", resp, err)
				}
				if u := m.Usage(); u.InputTokens != 7 || u.OutputTokens != 3 {
					t.Errorf("usage %+v", u)
				}
			}},
		{name: "a call budget of 3 stops after 3 requests", mem: memory.Options{Budget: memory.Budget{Calls: 3}}, attempts: 10,
			replies: []reply{busy}, requests: 3, failures: 3, slept: []time.Duration{100 * ms, 200 * ms, 400 * ms},
			check: func(t *testing.T, _ *memory.Memory, _ llm.Response, err error) {
				var be *memory.BudgetError
				if !errors.As(err, &be) || be.Kind != memory.KindCalls || !errors.Is(err, memory.ErrBudget) || llm.Retryable(err) {
					t.Fatalf("err %v", err)
				}
				r := guard.Refused(err)
				if r == nil || r.Last == nil || !strings.Contains(r.Error(), "3 of 3 model calls made") || !strings.Contains(r.Error(), "the last failure: openai: HTTP 503") {
					t.Errorf("refusal %v", r)
				}
			}},
		{name: "the breaker opens after 3 failed attempts: no wait for a refused attempt", mem: memory.Options{Breaker: memory.BreakerOptions{Failures: 3}}, attempts: 10,
			replies: []reply{busy}, requests: 3, failures: 3, slept: []time.Duration{100 * ms, 200 * ms},
			check: func(t *testing.T, m *memory.Memory, _ llm.Response, err error) {
				var open *memory.BreakerOpenError
				if !errors.As(err, &open) || open.Failures != 3 || llm.Retryable(err) || !strings.Contains(err.Error(), "the last failure: openai: HTTP 503") {
					t.Fatalf("err %v", err)
				}
				if st := m.BreakerState("openai"); st != memory.Open {
					t.Errorf("breaker %s", st)
				}
			}},
		{name: "a refused call makes no request", mem: memory.Options{Budget: memory.Budget{Calls: 1}}, attempts: 4, chats: 2,
			replies: []reply{ok}, requests: 1, slept: []time.Duration{},
			check: func(t *testing.T, _ *memory.Memory, _ llm.Response, err error) {
				if !errors.Is(err, memory.ErrBudget) || guard.Refused(err).Last != nil {
					t.Fatalf("err %v", err)
				}
			}},
		{name: "a 401 is not retried", attempts: 4,
			replies: []reply{{status: 401, body: `{"error":{"message":"bad key"}}`}}, requests: 1, failures: 1, slept: []time.Duration{},
			check: func(t *testing.T, _ *memory.Memory, _ llm.Response, err error) {
				if llm.KindOf(err) != llm.Auth || guard.Refused(err) != nil {
					t.Errorf("err %v", err)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, p := newServer(t, c.replies...)
			m := newMemory(c.mem)
			var s sleeper
			s.slept = []time.Duration{}
			g := guard.Retried(p, m, "coder", retryOptions(c.attempts, &s))
			if g.Name() != "openai" {
				t.Errorf("name %q", g.Name())
			}
			var (
				resp llm.Response
				err  error
			)
			for range max(c.chats, 1) {
				resp, err = g.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			}
			if n := srv.requests(); n != c.requests {
				t.Errorf("the server saw %d requests, want %d", n, c.requests)
			}
			if u := m.Usage(); u.Calls != srv.requests() || u.Failures != c.failures {
				t.Errorf("the memory counted %d calls, %d failures; the server saw %d requests, want %d failures", u.Calls, u.Failures, srv.requests(), c.failures)
			}
			if !slices.Equal(s.slept, c.slept) {
				t.Errorf("slept %v, want %v", s.slept, c.slept)
			}
			if c.check != nil {
				c.check(t, m, resp, err)
			}
		})
	}
}

// TestCancelledNotAFailure: a call given up by its caller is counted but
// does not count against the provider's breaker, and is not retried.
func TestCancelledNotAFailure(t *testing.T) {
	srv, p := newServer(t, ok)
	m := newMemory(memory.Options{Breaker: memory.BreakerOptions{Failures: 1}})
	var s sleeper
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := guard.Retried(p, m, "coder", retryOptions(4, &s)).Chat(ctx, llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if !errors.Is(err, context.Canceled) || len(s.slept) != 0 || srv.requests() > 1 {
		t.Fatalf("err %v, slept %v, %d requests", err, s.slept, srv.requests())
	}
	if st := m.BreakerState("openai"); st != memory.Closed {
		t.Errorf("breaker %s", st)
	}
}
