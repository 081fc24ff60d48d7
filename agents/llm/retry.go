package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryOptions is lunad's retry policy. Zero fields take the defaults.
type RetryOptions struct {
	Attempts      int           // calls in all, the first included; default 4
	Base          time.Duration // backoff before the second attempt's jitter; default 500ms
	Max           time.Duration // cap of the exponential backoff; default 30s
	MaxRetryAfter time.Duration // cap of a server's Retry-After; default 60s
	// Sleep waits d or until ctx is done (default: a timer). Tests inject it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a duration in [0, d] (default: uniform, "full jitter").
	Jitter func(d time.Duration) time.Duration
	// Clock times the attempts (default time.Now).
	Clock func() time.Time
	// OnAttempt sees every attempt, failed or not, before the next one is
	// scheduled. (lunad's agents guard and count each attempt by wrapping
	// the provider Retry calls: package agents/guard.)
	OnAttempt func(Attempt)
}

// Attempt is one call made by Retry.
type Attempt struct {
	N        int           // 1-based
	Err      error         // nil on success
	Usage    Usage         // of a successful call
	Duration time.Duration // the call's wall time
	Delay    time.Duration // the wait before the next attempt; 0 if none follows
}

// Retry wraps p with lunad's retry policy: Transient errors are retried up
// to Attempts calls with exponential backoff and full jitter, or after the
// server's Retry-After (capped at MaxRetryAfter) when it gave one; Auth
// and Permanent errors, and a done ctx, end at once. The error returned is
// the last attempt's *Error, its message saying how many attempts were made.
func Retry(p Provider, o RetryOptions) Provider {
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.Base <= 0 {
		o.Base = 500 * time.Millisecond
	}
	if o.Max <= 0 {
		o.Max = 30 * time.Second
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 60 * time.Second
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Jitter == nil {
		o.Jitter = func(d time.Duration) time.Duration {
			if d <= 0 {
				return 0
			}
			return rand.N(d + 1)
		}
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &retrier{p: p, o: o}
}

type retrier struct {
	p Provider
	o RetryOptions
}

func (r *retrier) Name() string { return r.p.Name() }

func (r *retrier) Chat(ctx context.Context, req Request) (Response, error) {
	for n := 1; ; n++ {
		start := r.o.Clock()
		resp, err := r.p.Chat(ctx, req)
		a := Attempt{N: n, Err: err, Duration: r.o.Clock().Sub(start)}
		if err == nil {
			a.Usage = resp.Usage
			r.report(a)
			return resp, nil
		}
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Provider: r.p.Name(), Kind: Permanent, Err: err}
		}
		switch {
		case e.Kind != Transient:
			r.report(a)
			return Response{}, e
		case ctx.Err() != nil:
			r.report(a)
			return Response{}, stopped(e, n, ctx.Err())
		case n >= r.o.Attempts:
			r.report(a)
			if n == 1 {
				return Response{}, e
			}
			return Response{}, gaveUp(e, n)
		}
		a.Delay = r.delay(n, e.RetryAfter)
		r.report(a)
		if err := r.o.Sleep(ctx, a.Delay); err != nil {
			return Response{}, stopped(e, n, err)
		}
	}
}

func (r *retrier) report(a Attempt) {
	if r.o.OnAttempt != nil {
		r.o.OnAttempt(a)
	}
}

// delay is the wait after the n-th failed attempt: the server's
// Retry-After (capped), else full jitter over Base·2^(n-1) capped at Max.
func (r *retrier) delay(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, r.o.MaxRetryAfter)
	}
	d := r.o.Base
	for i := 1; i < n && d < r.o.Max; i++ {
		d *= 2
	}
	return r.o.Jitter(min(d, r.o.Max))
}

// gaveUp is e, saying how many attempts were made.
func gaveUp(e *Error, n int) *Error {
	out := *e
	out.Err = fmt.Errorf("gave up after %d attempts: %w", n, e.cause())
	return &out
}

// stopped is e, ended by ctx (cause) before the next attempt.
func stopped(e *Error, n int, cause error) *Error {
	out := *e
	out.RetryAfter = 0
	out.Err = fmt.Errorf("stopped (%w) after %d attempts: %w", cause, n, e.cause())
	return &out
}

func (e *Error) cause() error {
	if e.Err != nil {
		return e.Err
	}
	return errors.New(string(e.Kind) + " error")
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
