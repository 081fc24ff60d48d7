package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var errDown = errors.New("connection refused")

func TestBreaker(t *testing.T) {
	clk := newClock()
	m := New("r1", Options{Clock: clk.Now, Breaker: BreakerOptions{
		Failures: 3, Cooldown: 30 * time.Second, Fallback: map[string]string{"openai": "ollama"},
	}})
	fail := func(p string) {
		t.Helper()
		if err := m.Before("coder", p); err != nil {
			t.Fatalf("Before(%s): %v", p, err)
		}
		m.After("coder", p, 0, 0, errDown)
	}
	open := func(p, fallback string) *BreakerOpenError {
		t.Helper()
		err := m.Before("coder", p)
		var be *BreakerOpenError
		if !errors.As(err, &be) || !errors.Is(err, ErrBreakerOpen) {
			t.Fatalf("Before(%s) = %v, want a *BreakerOpenError", p, err)
		}
		if be.Fallback != fallback {
			t.Errorf("fallback %q, want %q", be.Fallback, fallback)
		}
		return be
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"closed until N consecutive failures", func(t *testing.T) {
			fail("openai")
			fail("openai")
			if err := m.Before("coder", "openai"); err != nil {
				t.Fatalf("after 2 failures: %v", err)
			}
			m.After("coder", "openai", 5, 5, nil) // a success resets the count
			fail("openai")
			fail("openai")
			if s := m.BreakerState("openai"); s != Closed {
				t.Fatalf("state %s after 2 failures, want closed", s)
			}
		}},
		{"open after the 3rd, naming the fallback", func(t *testing.T) {
			fail("openai")
			be := open("openai", "ollama")
			if !be.Until.Equal(clk.Now().Add(30*time.Second)) || be.Failures != 3 {
				t.Errorf("open until %s after %d failures", be.Until, be.Failures)
			}
			if !strings.Contains(be.Error(), "calling the fallback ollama instead") {
				t.Errorf("error %q does not name the fallback", be)
			}
		}},
		{"a late success of a call from before the trip leaves it open", func(t *testing.T) {
			m.After("coder", "openai", 0, 0, nil)
			open("openai", "ollama")
		}},
		{"the fallback is called while open", func(t *testing.T) {
			if err := m.Before("coder", "ollama"); err != nil {
				t.Fatalf("the fallback: %v", err)
			}
			m.After("coder", "ollama", 10, 10, nil)
			clk.Advance(30*time.Second - time.Nanosecond)
			open("openai", "ollama")
		}},
		{"half-open after the cooldown: one trial", func(t *testing.T) {
			clk.Advance(time.Nanosecond)
			if s := m.BreakerState("openai"); s != HalfOpen {
				t.Fatalf("state %s after the cooldown, want half_open", s)
			}
			if err := m.Before("coder", "openai"); err != nil {
				t.Fatalf("the trial call: %v", err)
			}
			open("openai", "ollama") // a second call waits for the trial's outcome
		}},
		{"closed when the trial succeeds", func(t *testing.T) {
			m.After("coder", "openai", 1, 1, nil)
			if s := m.BreakerState("openai"); s != Closed {
				t.Fatalf("state %s after the trial succeeded, want closed", s)
			}
			if err := m.Before("writer", "openai"); err != nil {
				t.Fatalf("closed again: %v", err)
			}
			m.After("writer", "openai", 1, 1, nil)
		}},
		{"half-open → open when the trial fails", func(t *testing.T) {
			fail("openai")
			fail("openai")
			fail("openai")
			open("openai", "ollama")
			clk.Advance(30 * time.Second)
			fail("openai") // the trial
			if s := m.BreakerState("openai"); s != Open {
				t.Fatalf("state %s after the trial failed, want open", s)
			}
			open("openai", "ollama")
		}},
		{"a trial whose outcome never came is given up after a cooldown", func(t *testing.T) {
			clk.Advance(30 * time.Second)
			if err := m.Before("coder", "openai"); err != nil {
				t.Fatalf("trial: %v", err)
			}
			open("openai", "ollama")
			clk.Advance(30 * time.Second)
			if err := m.Before("coder", "openai"); err != nil {
				t.Fatalf("a new trial after the lost one: %v", err)
			}
			m.After("coder", "openai", 0, 0, nil)
			m.After("coder", "openai", 0, 0, nil) // the lost one, late
		}},
		{"no fallback configured", func(t *testing.T) {
			for range 3 {
				fail("anthropic")
			}
			be := open("anthropic", "")
			if !strings.Contains(be.Error(), "set a fallback with [agents.ROLE] fallback") {
				t.Errorf("error %q does not say how to configure a fallback", be)
			}
		}},
		{"a cancelled call is not the provider's failure", func(t *testing.T) {
			for range 5 {
				if err := m.Before("coder", "ollama"); err != nil {
					t.Fatal(err)
				}
				m.After("coder", "ollama", 0, 0, fmt.Errorf("chat: %w", context.Canceled))
			}
			if s := m.BreakerState("ollama"); s != Closed {
				t.Errorf("state %s after cancelled calls, want closed", s)
			}
		}},
		{"summary: trips and the last 10 outcomes", func(t *testing.T) {
			// openai saw - - + - - -(trip) +(late) + + - - -(trip) -(trip) + +: the last 10 are kept.
			got := m.Summary().Breakers
			want := []BreakerSummary{
				{Provider: "anthropic", State: Open, Trips: 1, Failures: 3, Outcomes: "---"},
				{Provider: "ollama", State: Closed, Outcomes: "+"},
				{Provider: "openai", State: Closed, Trips: 3, Outcomes: "-+++----++"},
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("breakers\n got %+v\nwant %+v", got, want)
			}
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.do) {
			return // the later steps build on this one
		}
	}
}

// TestBreakerRefusal: BreakerRefusal says what Before would answer about
// the breaker, and admits and counts nothing.
func TestBreakerRefusal(t *testing.T) {
	clk := newClock()
	m := New("r1", Options{Clock: clk.Now, Breaker: BreakerOptions{Failures: 2, Cooldown: 30 * time.Second, Fallback: map[string]string{"openai": "ollama"}}})
	refusal := func() *BreakerOpenError {
		t.Helper()
		err := m.BreakerRefusal("openai")
		if err == nil {
			return nil
		}
		var be *BreakerOpenError
		if !errors.As(err, &be) {
			t.Fatalf("BreakerRefusal = %v, want a *BreakerOpenError", err)
		}
		return be
	}
	if refusal() != nil {
		t.Fatal("a provider never called is refused")
	}
	for range 2 {
		if err := m.Before("coder", "openai"); err != nil {
			t.Fatal(err)
		}
		m.After("coder", "openai", 0, 0, errDown)
		if m.Usage().Failures == 1 && refusal() != nil {
			t.Fatal("refused after one failure of two")
		}
	}
	be := refusal()
	if be == nil || be.Fallback != "ollama" || be.Failures != 2 || !be.Until.Equal(clk.Now().Add(30*time.Second)) {
		t.Fatalf("refusal %+v after two failures", be)
	}
	if u := m.Usage(); u.Calls != 2 {
		t.Errorf("BreakerRefusal counted calls: %+v", u)
	}
	clk.Advance(30 * time.Second)
	if refusal() != nil {
		t.Fatal("refused once the cooldown passed (a half-open trial would be admitted)")
	}
	if err := m.Before("coder", "openai"); err != nil {
		t.Fatalf("the trial was not admitted: %v", err)
	}
	if be := refusal(); be == nil || !be.Until.Equal(clk.Now().Add(30*time.Second)) {
		t.Fatalf("a second call while the trial is in flight: %+v", be)
	}
	m.After("coder", "openai", 0, 0, nil)
	if refusal() != nil || m.BreakerState("openai") != Closed {
		t.Fatalf("refused after a successful trial (%s)", m.BreakerState("openai"))
	}
}
