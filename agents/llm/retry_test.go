package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
)

// flaky fails with errs in order, then answers.
type flaky struct {
	errs  []error
	calls int
}

func (f *flaky) Name() string { return "flaky" }

func (f *flaky) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	f.calls++
	if f.calls <= len(f.errs) {
		return llm.Response{}, f.errs[f.calls-1]
	}
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "ok"}, Usage: llm.Usage{InputTokens: 3, OutputTokens: 2}}, nil
}

func transient(retryAfter time.Duration) error {
	return &llm.Error{Provider: "flaky", Kind: llm.Transient, Status: 503, RetryAfter: retryAfter, Err: errors.New("overloaded")}
}

func TestRetry(t *testing.T) {
	cases := []struct {
		name      string
		errs      []error
		attempts  int
		wantCalls int
		wantSleep []time.Duration
		wantKind  llm.ErrorKind // "" = success
	}{
		{name: "success at once", wantCalls: 1},
		{name: "exponential backoff with jitter", errs: []error{transient(0), transient(0), transient(0)}, wantCalls: 4,
			wantSleep: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}},
		{name: "backoff capped at Max", errs: []error{transient(0), transient(0), transient(0), transient(0), transient(0), transient(0), transient(0)}, attempts: 8, wantCalls: 8,
			wantSleep: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}},
		{name: "Retry-After honoured", errs: []error{transient(5 * time.Second)}, wantCalls: 2, wantSleep: []time.Duration{5 * time.Second}},
		{name: "Retry-After capped", errs: []error{transient(time.Hour)}, wantCalls: 2, wantSleep: []time.Duration{20 * time.Second}},
		{name: "gives up", errs: []error{transient(0), transient(0), transient(0), transient(0)}, wantCalls: 4,
			wantSleep: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}, wantKind: llm.Transient},
		{name: "auth never retried", errs: []error{&llm.Error{Kind: llm.Auth, Status: http.StatusUnauthorized, Setting: "OPENAI_API_KEY"}}, wantCalls: 1, wantKind: llm.Auth},
		{name: "permanent never retried", errs: []error{&llm.Error{Kind: llm.Permanent, Status: 400}}, wantCalls: 1, wantKind: llm.Permanent},
		{name: "a foreign error is permanent", errs: []error{errors.New("boom")}, wantCalls: 1, wantKind: llm.Permanent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &flaky{errs: c.errs}
			var slept []time.Duration
			var seen []llm.Attempt
			p := llm.Retry(f, llm.RetryOptions{
				Attempts:      c.attempts,
				Max:           10 * time.Second,
				MaxRetryAfter: 20 * time.Second,
				Sleep:         func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil },
				Jitter:        func(d time.Duration) time.Duration { return d / 2 }, // deterministic: half the backoff window
				OnAttempt:     func(a llm.Attempt) { seen = append(seen, a) },
			})
			resp, err := p.Chat(context.Background(), llm.Request{})
			if f.calls != c.wantCalls {
				t.Errorf("%d calls, want %d", f.calls, c.wantCalls)
			}
			if len(seen) != f.calls {
				t.Errorf("OnAttempt saw %d attempts of %d", len(seen), f.calls)
			}
			want := c.wantSleep
			if llmtest.JSON(t, slept) != llmtest.JSON(t, want) {
				t.Errorf("slept %v, want %v", slept, want)
			}
			for i, a := range seen {
				if i < len(slept) && a.Delay != slept[i] {
					t.Errorf("attempt %d reported delay %s, slept %s", a.N, a.Delay, slept[i])
				}
			}
			if c.wantKind == "" {
				if err != nil || resp.Message.Content != "ok" || seen[len(seen)-1].Usage.InputTokens != 3 {
					t.Fatalf("resp %+v err %v", resp, err)
				}
				return
			}
			if llm.KindOf(err) != c.wantKind {
				t.Fatalf("err %v, want kind %s", err, c.wantKind)
			}
			if c.wantKind == llm.Transient && !strings.Contains(err.Error(), "gave up after 4 attempts") {
				t.Errorf("err %q does not say how many attempts", err)
			}
		})
	}
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &flaky{errs: []error{transient(0), transient(0)}}
	p := llm.Retry(f, llm.RetryOptions{Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}})
	_, err := p.Chat(ctx, llm.Request{})
	if !errors.Is(err, context.Canceled) || f.calls != 1 {
		t.Fatalf("err %v after %d calls, want context.Canceled after 1", err, f.calls)
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("err %T is not an *llm.Error", err)
	}
}

func TestRetryDefaultSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &flaky{errs: []error{transient(time.Hour)}}
	_, err := llm.Retry(f, llm.RetryOptions{}).Chat(ctx, llm.Request{})
	if !errors.Is(err, context.Canceled) || f.calls != 1 {
		t.Fatalf("err %v after %d calls", err, f.calls)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		"0.5":                           500 * time.Millisecond,
		"-3":                            0,
		"soon":                          0,
		"Fri, 02 Jan 2026 03:04:35 GMT": 30 * time.Second,
		"Fri, 02 Jan 2026 03:00:00 GMT": 0,
	}
	for in, want := range cases {
		if got := llm.ParseRetryAfter(in, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %s, want %s", in, got, want)
		}
	}
	h := http.Header{}
	h.Set("Retry-After-Ms", "250")
	h.Set("Retry-After", "3")
	if got := llm.RetryAfterHeader(h, now); got != 250*time.Millisecond {
		t.Errorf("RetryAfterHeader = %s, want 250ms", got)
	}
}

func TestErrorWording(t *testing.T) {
	cases := []struct {
		err  *llm.Error
		want string
	}{
		{&llm.Error{Provider: "openai", Kind: llm.Auth, Status: 401, Setting: "OPENAI_API_KEY", Err: errors.New("Incorrect API key provided")},
			"openai: HTTP 401 Unauthorized: Incorrect API key provided (the API key was refused: check the key in the environment variable OPENAI_API_KEY; [llm] api_key_env or LUNAD_LLM_API_KEY_ENV names the variable)"},
		{&llm.Error{Provider: "openai", Kind: llm.Permanent, Status: 404, Setting: "[llm] model", Err: errors.New("model gpt-x does not exist")},
			"openai: HTTP 404 Not Found: model gpt-x does not exist (check [llm] model)"},
		{&llm.Error{Provider: "process", Kind: llm.Permanent, Err: errors.New("exit status 2")}, "process: exit status 2"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error()\n got %s\nwant %s", got, c.want)
		}
	}
}
