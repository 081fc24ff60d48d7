package memory

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestConcurrent drives one memory from many goroutines (run with -race):
// the call budget admits exactly its number of calls, however they race.
func TestConcurrent(t *testing.T) {
	clk := newClock()
	m := New("r1", Options{Clock: clk.Now, Budget: Budget{Calls: 100}, Stall: StallOptions{NoProgressSteps: -1}})
	s := NewStore(StoreOptions{TTL: time.Hour, Clock: clk.Now})
	if err := s.Put(m); err != nil {
		t.Fatal(err)
	}
	var (
		wg                sync.WaitGroup
		mu                sync.Mutex
		admitted, refused int
	)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			role := fmt.Sprintf("w%d", g%3)
			for i := range 25 {
				err := m.Before(role, "openai")
				mu.Lock()
				if err == nil {
					admitted++
				} else if errors.Is(err, ErrBudget) {
					refused++
				} else {
					t.Errorf("Before: %v", err)
				}
				mu.Unlock()
				if err == nil {
					clk.Advance(time.Millisecond)
					m.After(role, "openai", 3, 4, nil)
				}
				_ = m.Step(role, Step{Tool: "read_artifact", Args: fmt.Sprint(i), Observation: "x", Read: fmt.Sprint(g, i)})
				_ = m.Summary()
				_ = m.Snapshot()
				_ = m.WindowCalls()
				s.Sweep(clk.Now())
			}
		}()
	}
	wg.Wait()
	u := m.Usage()
	if admitted != 100 || refused != 100 || u.Calls != 100 || u.Tokens != 700 {
		t.Errorf("admitted %d, refused %d, usage %+v; want 100 calls of 7 tokens and 100 refusals", admitted, refused, u)
	}
}
