package guard

import (
	"context"
	"errors"
	"sync"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
)

// RefusedError is a call the working memory refused: Err is its
// *memory.BudgetError or *memory.BreakerOpenError, Last the provider's
// failure that came before it in the same call, if any (the cause of an
// open breaker).
type RefusedError struct {
	Err  error
	Last error
}

func (e *RefusedError) Error() string {
	if e.Last == nil {
		return e.Err.Error()
	}
	return e.Err.Error() + " (the last failure: " + e.Last.Error() + ")"
}

// Unwrap returns the memory's error.
func (e *RefusedError) Unwrap() error { return e.Err }

// Refused returns the *RefusedError in err's chain, nil if there is none.
func Refused(err error) *RefusedError {
	var r *RefusedError
	if errors.As(err, &r) {
		return r
	}
	return nil
}

// Retried is p under m's guards as role, behind lunad's retry policy o:
// llm.Retry(Provider(p, m, role), o).
func Retried(p llm.Provider, m *memory.Memory, role string, o llm.RetryOptions) llm.Provider {
	return llm.Retry(Provider(p, m, role), o)
}

// Provider is p with every call passing m's guards as role: m.Before
// admits it (a refusal is a Permanent *llm.Error wrapping a *RefusedError,
// and p is not called), m.After records its usage and outcome. A failure
// that opened p's breaker is returned as the breaker's refusal at once,
// so a retry does not wait for an attempt that would be refused.
func Provider(p llm.Provider, m *memory.Memory, role string) llm.Provider {
	return &guarded{p: p, m: m, role: role}
}

type guarded struct {
	p    llm.Provider
	m    *memory.Memory
	role string

	mu   sync.Mutex
	last error // the last failure of p through this guard
}

func (g *guarded) Name() string { return g.p.Name() }

func (g *guarded) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	name := g.p.Name()
	if err := g.m.Before(g.role, name); err != nil {
		return llm.Response{}, g.refused(err)
	}
	resp, err := g.p.Chat(ctx, req)
	g.m.After(g.role, name, resp.Usage.InputTokens, resp.Usage.OutputTokens, err)
	if err == nil {
		g.mu.Lock()
		g.last = nil
		g.mu.Unlock()
		return resp, nil
	}
	g.mu.Lock()
	g.last = err
	g.mu.Unlock()
	if llm.Retryable(err) {
		if open := g.m.BreakerRefusal(name); open != nil {
			return resp, g.refused(open)
		}
	}
	return resp, err
}

// refused is the memory's refusal as a Permanent *llm.Error: Retry ends
// at once.
func (g *guarded) refused(err error) error {
	g.mu.Lock()
	last := g.last
	g.mu.Unlock()
	return &llm.Error{Provider: g.p.Name(), Kind: llm.Permanent, Err: &RefusedError{Err: err, Last: last}}
}
