package workspace

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/lunad/lunad"
)

// Stale evaluates every reference of the workspace: at 10,000 artifacts
// that is seconds of reading old versions from git and parsing them, and
// an ask asks twice (its supervisor's input, its follow-ups). The answer
// depends only on the state it is evaluated at — the HEAD commit (acks
// are commits), the reference index synced with it and the slug rule —
// so it is kept for that state, evaluated once however many callers ask
// at the same time, and evaluated again when any of the three moves.

// staleKey is the state a Stale answer was evaluated at.
type staleKey struct {
	head  string // the HEAD commit
	gen   uint64 // the reference index's generation (refindex.Live.Generation)
	loose bool   // the slug rule ([refs] slugs = "loose")
}

// staleFlight is one evaluation: in flight until done is closed.
type staleFlight struct {
	key  staleKey
	done chan struct{}
	refs []lunad.Reference
	err  error
}

// staleCache keeps the latest evaluation (singleflight-style: callers at
// the state of the one in flight wait for it).
type staleCache struct {
	mu    sync.Mutex
	cur   *staleFlight // the latest evaluation started; nil for none
	evals atomic.Int64 // evaluations run, for tests
}

// staleKey reads the state Stale's answer depends on, after bringing the
// index up to date with HEAD (so that the evaluation itself does not
// change the generation it is keyed by).
func (s *Service) staleKey(ctx context.Context) (staleKey, error) {
	if _, err := s.refIndex(ctx); err != nil {
		return staleKey{}, err
	}
	_, head, err := s.store.Head()
	if err != nil {
		return staleKey{}, err
	}
	return staleKey{head: head, gen: s.refs.Generation(), loose: s.looseSlugs.Load()}, nil
}

// cachedStale returns the Stale answer for the current state: kept, in
// flight, or evaluated now. An answer is kept only if the state did not
// move while it was evaluated. Callers get their own slice; the
// References' pointed-to values are shared and must not be changed.
func (s *Service) cachedStale(ctx context.Context) ([]lunad.Reference, error) {
	c := &s.stale
	for {
		key, err := s.staleKey(ctx)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		f := c.cur
		if f != nil && f.key == key {
			c.mu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if f.err != nil && isCanceled(f.err) && ctx.Err() == nil {
				continue // the evaluating caller gave up; this one has not
			}
			return clone(f.refs), f.err
		}
		f = &staleFlight{key: key, done: make(chan struct{})}
		c.cur = f
		c.mu.Unlock()

		f.refs, f.err = s.evaluateStale(ctx)
		after, err := s.staleKey(ctx)
		keep := f.err == nil && err == nil && after == key
		c.mu.Lock()
		if !keep && c.cur == f {
			c.cur = nil // the next caller evaluates again
		}
		c.mu.Unlock()
		close(f.done)
		return clone(f.refs), f.err
	}
}

func isCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func clone(refs []lunad.Reference) []lunad.Reference {
	if refs == nil {
		return nil
	}
	return append(make([]lunad.Reference, 0, len(refs)), refs...)
}
