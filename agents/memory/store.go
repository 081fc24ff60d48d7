package memory

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/lunad/lunad"
)

// DefaultTTL is how long a memory with no activity is kept.
const DefaultTTL = time.Hour

// StoreOptions configure a Store.
type StoreOptions struct {
	TTL      time.Duration    // idle time after which a memory is abandoned; DefaultTTL if 0
	Clock    func() time.Time // time.Now if nil
	Interval time.Duration    // how often the janitor sweeps; TTL/4 if 0
	Ticks    <-chan time.Time // the janitor's ticks, injected by tests; a ticker of Interval if nil
	Logger   *slog.Logger     // discards if nil
}

// Store holds the memories of live runs by run ID. A run puts its memory
// when it starts and deletes it when it ends; memories whose run went away
// without a Delete (a crash, a lost worker) are removed once idle for
// longer than the TTL, by Sweep or by the janitor Start runs. Safe for
// concurrent use.
type Store struct {
	o StoreOptions

	mu      sync.Mutex
	runs    map[string]*Memory
	started bool
	closed  bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// NewStore is an empty store.
func NewStore(o StoreOptions) *Store {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Interval <= 0 {
		o.Interval = o.TTL / 4
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Store{o: o, runs: map[string]*Memory{}}
}

// Put adds the memory of a run. ErrExists if the run has one.
func (s *Store) Put(m *Memory) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.runs[m.Run()]; ok {
		return fmt.Errorf("%w: run %s already has a working memory (Delete it when the run ends)", lunad.ErrExists, m.Run())
	}
	s.runs[m.Run()] = m
	return nil
}

// Get is the memory of a live run. ErrNotFound if it has none: it ended,
// or its memory was removed as abandoned (restore it from the run's
// snapshot).
func (s *Store) Get(run string) (*Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.runs[run]
	if !ok {
		return nil, fmt.Errorf("%w: no working memory for run %s: the run ended or was idle for more than %s (restore it from the run's last snapshot)", lunad.ErrNotFound, run, s.o.TTL)
	}
	return m, nil
}

// Delete removes a run's memory; false if it had none.
func (s *Store) Delete(run string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.runs[run]
	delete(s.runs, run)
	return ok
}

// Runs are the IDs of the runs with a memory, sorted.
func (s *Store) Runs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedKeys(s.runs)
}

// Sweep removes the memories idle (no call, step or transfer) for the TTL
// or longer at now, and returns their run IDs, sorted.
func (s *Store) Sweep(now time.Time) []string {
	s.mu.Lock()
	var gone []string
	for id, m := range s.runs {
		if now.Sub(m.LastActivity()) >= s.o.TTL {
			gone = append(gone, id)
			delete(s.runs, id)
		}
	}
	s.mu.Unlock()
	slices.Sort(gone)
	for _, id := range gone {
		s.o.Logger.Info("working memory of an abandoned run removed", "run", id, "ttl", s.o.TTL)
	}
	return gone
}

// Start runs the janitor: a goroutine that sweeps on every tick until ctx
// is done or Close. ErrInvalid if it was started before or the store is
// closed.
func (s *Store) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closed {
		return fmt.Errorf("%w: the working memory janitor is already started or closed", lunad.ErrInvalid)
	}
	s.started = true
	ctx, s.cancel = context.WithCancel(ctx)
	ticks := s.o.Ticks
	var stop func()
	if ticks == nil {
		t := time.NewTicker(s.o.Interval)
		ticks, stop = t.C, t.Stop
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if stop != nil {
			defer stop()
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticks:
				s.Sweep(s.o.Clock())
			}
		}
	}()
	return nil
}

// Close stops the janitor and waits for it. Idempotent.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed = true
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.wg.Wait()
	return nil
}
