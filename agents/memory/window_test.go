package memory

import (
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	clk := newClock()
	start := clk.Now()
	m := New("r1", Options{Clock: clk.Now, Window: 10 * time.Second})
	for _, at := range []time.Duration{0, 3 * time.Second, 9 * time.Second} {
		clk.Advance(at - clk.Now().Sub(start))
		if err := m.Before("coder", "openai"); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		at    time.Duration
		calls int
	}{
		{9 * time.Second, 3},
		{10*time.Second - time.Nanosecond, 3},
		{10 * time.Second, 2}, // the first call is 10s old: out
		{13 * time.Second, 1},
		{19 * time.Second, 0},
	}
	for _, s := range steps {
		clk.Advance(s.at - clk.Now().Sub(start))
		if got := m.WindowCalls(); got != s.calls {
			t.Errorf("at %s, %d calls in the window, want %d", s.at, got, s.calls)
		}
	}
	if got, want := m.LastActivity(), start.Add(9*time.Second); !got.Equal(want) {
		t.Errorf("last activity %s, want the last call's %s", got, want)
	}
	m.After("coder", "openai", 1, 1, nil)
	if err := m.Step("coder", Step{Tool: "list_artifacts", Args: "{}"}); err != nil {
		t.Fatal(err)
	}
	if got := m.LastActivity(); !got.Equal(clk.Now()) {
		t.Errorf("a step is activity: last activity %s, want %s", got, clk.Now())
	}
}

func TestBudgetDetectedOnce(t *testing.T) {
	clk := newClock()
	m := New("r1", Options{Clock: clk.Now, Budget: Budget{Calls: 1}})
	call(t, m, clk, "coder", 1, 1, time.Second)
	for range 3 {
		if err := m.Before("coder", "openai"); err == nil {
			t.Fatal("a call past the budget was admitted")
		}
	}
	if d := m.Summary().Detections; len(d) != 1 {
		t.Errorf("%d detections for one spent budget, want 1: %+v", len(d), d)
	}
}
