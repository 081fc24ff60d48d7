package memory

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

func TestStoreSweep(t *testing.T) {
	clk := newClock()
	s := NewStore(StoreOptions{TTL: time.Hour, Clock: clk.Now})
	idle := New("r-idle", Options{Clock: clk.Now})
	busy := New("r-busy", Options{Clock: clk.Now})
	done := New("r-done", Options{Clock: clk.Now})
	for _, m := range []*Memory{idle, busy, done} {
		if err := s.Put(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put(New("r-busy", Options{Clock: clk.Now})); !errors.Is(err, lunad.ErrExists) {
		t.Errorf("a second memory for a run = %v, want ErrExists", err)
	}
	if !s.Delete("r-done") || s.Delete("r-done") {
		t.Error("Delete of a run's memory: want true once, then false")
	}
	clk.Advance(50 * time.Minute)
	if err := busy.Before("coder", "openai"); err != nil { // activity keeps it
		t.Fatal(err)
	}
	clk.Advance(10*time.Minute - time.Nanosecond)
	if gone := s.Sweep(clk.Now()); len(gone) != 0 {
		t.Fatalf("swept %v before the TTL", gone)
	}
	clk.Advance(time.Nanosecond)
	if gone := s.Sweep(clk.Now()); !slices.Equal(gone, []string{"r-idle"}) {
		t.Fatalf("swept %v, want [r-idle]", gone)
	}
	if _, err := s.Get("r-idle"); !errors.Is(err, lunad.ErrNotFound) {
		t.Errorf("Get of a swept run = %v, want ErrNotFound", err)
	}
	if m, err := s.Get("r-busy"); err != nil || m != busy {
		t.Errorf("Get(r-busy) = %v, %v", m, err)
	}
	if !slices.Equal(s.Runs(), []string{"r-busy"}) {
		t.Errorf("runs %v", s.Runs())
	}
}

func TestStoreJanitor(t *testing.T) {
	clk := newClock()
	ticks := make(chan time.Time) // unbuffered: a send returns when the janitor has it
	s := NewStore(StoreOptions{TTL: time.Minute, Clock: clk.Now, Ticks: ticks})
	if err := s.Put(New("r1", Options{Clock: clk.Now})); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); !errors.Is(err, lunad.ErrInvalid) {
		t.Errorf("a second Start = %v, want ErrInvalid", err)
	}
	ticks <- clk.Now()
	ticks <- clk.Now() // the first sweep is over once the janitor takes the second tick
	if len(s.Runs()) != 1 {
		t.Fatalf("swept a live memory: %v", s.Runs())
	}
	clk.Advance(time.Minute)
	ticks <- clk.Now()
	ticks <- clk.Now()
	if len(s.Runs()) != 0 {
		t.Fatalf("the janitor left an abandoned memory: %v", s.Runs())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case ticks <- clk.Now():
		t.Fatal("the janitor still runs after Close")
	default:
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

func TestStoreJanitorStopsWithContext(t *testing.T) {
	s := NewStore(StoreOptions{TTL: time.Minute, Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	s.wg.Wait() // returns only once the janitor has stopped
	s.Close()
}
