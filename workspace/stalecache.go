package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/workspace/refindex"
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
// the state of the one in flight wait for it), and the answer a process
// saved (refindex.SaveStale), read at the first call.
type staleCache struct {
	mu    sync.Mutex
	cur   *staleFlight // the latest evaluation started; nil for none
	evals atomic.Int64 // evaluations run, for tests

	loaded    bool              // the saved answer was looked for
	saved     refindex.StaleKey // its key; the zero key for none
	savedRefs []lunad.Reference
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
	if refs, ok := s.SavedStale(); ok {
		return refs, nil
	}
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

// The answer outlives the process: Close saves the latest one kept, and
// the next process's first Stale at the same HEAD, slug rule and lunad
// returns it without building the reference index (refindex.StaleKey).

// staleFile is where the answer is saved, beside the parse cache.
func (s *Service) staleFile() string { return filepath.Join(s.store.CacheDir(), "stale.answer") }

// savedKey is the key of an answer evaluated now.
func (s *Service) savedKey(head string, loose bool) refindex.StaleKey {
	return refindex.StaleKey{Version: refindex.AnswerVersion(), Head: head, Loose: loose}
}

// SavedStale returns the Stale answer a former process saved, if it was
// evaluated at the current state (Stale returns it too): what a command
// asks before it shows the index being built for Stale. The file is read
// at the first call; one that cannot be used is logged and left for Close
// to replace.
func (s *Service) SavedStale() ([]lunad.Reference, bool) {
	_, head, err := s.store.Head()
	if err != nil {
		return nil, false // the evaluation reports it
	}
	want := s.savedKey(head, s.looseSlugs.Load())
	c := &s.stale
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		c.loaded = true
		refs, ok, err := refindex.LoadStale(s.staleFile(), want)
		if err != nil {
			s.log.Warn("saved stale answer ignored; evaluating again", "err", err)
		}
		if ok {
			c.saved, c.savedRefs = want, refs
		}
	}
	if c.saved.Version == "" || c.saved != want {
		return nil, false
	}
	return clone(c.savedRefs), true
}

// saveStale saves the latest answer kept, unless it is the one on disk or
// none was evaluated. A cache: failing to write it is logged, not an error.
func (s *Service) saveStale() {
	c := &s.stale
	c.mu.Lock()
	f, onDisk := c.cur, c.saved
	c.mu.Unlock()
	if f == nil {
		return
	}
	select {
	case <-f.done:
	default:
		return // still being evaluated: nothing to save
	}
	key := s.savedKey(f.key.head, f.key.loose)
	if f.err != nil || key == onDisk {
		return
	}
	if err := refindex.SaveStale(s.staleFile(), key, f.refs); err != nil {
		s.log.Warn("stale answer not saved", "err", err)
	}
}
