package ask

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/lunad/lunad/agents/memory"
)

// store holds the working memories of live runs, each with when a stage
// last used it.
type store struct {
	mu      sync.Mutex
	entries map[string]*entry
}

type entry struct {
	mem  *memory.Memory
	used time.Time
}

func newStore() *store { return &store{entries: map[string]*entry{}} }

func (s *store) put(run string, m *memory.Memory, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[run] = &entry{mem: m, used: now}
}

func (s *store) remove(run string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.entries, run)
}

// sweep removes the memories idle for longer than ttl, and returns their
// runs, sorted.
func (s *store) sweep(now time.Time, ttl time.Duration) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []string
	for _, run := range slices.Sorted(maps.Keys(s.entries)) {
		if now.Sub(s.entries[run].used) > ttl {
			delete(s.entries, run)
			gone = append(gone, run)
		}
	}
	return gone
}

func (s *store) runs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.entries))
}
