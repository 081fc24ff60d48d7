package daemon

import (
	"context"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// TestSetMemoryLimit: the runtime's limit is the configured one (none for
// 0) unless GOMEMLIMIT is set, and restore puts the previous one back.
func TestSetMemoryLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(orig)
	for _, tc := range []struct {
		name  string
		limit lunad.ByteSize
		env   []string
		want  int64
		set   bool
	}{
		{"configured", 96 << 20, nil, 96 << 20, true},
		{"none", 0, nil, math.MaxInt64, false},
		{"GOMEMLIMIT set", 96 << 20, []string{"GOMEMLIMIT", "300MiB"}, 555 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetMemoryLimit(555 << 20) // stands for what the runtime read from GOMEMLIMIT, or its default
			got, set, restore := setMemoryLimit(tc.limit, envOf(tc.env...))
			if now := debug.SetMemoryLimit(-1); got != tc.want || now != tc.want || set != tc.set {
				t.Fatalf("limit %d (set %v), runtime's %d; want %d (set %v)", got, set, now, tc.want, tc.set)
			}
			restore()
			if now := debug.SetMemoryLimit(-1); now != 555<<20 {
				t.Fatalf("after restore %d, want %d", now, 555<<20)
			}
		})
	}
}

// TestGovernMemory: with a live heap the configured limit leaves no room
// for, the limit rises to headroomFloor after a collection (the collector
// does not run without pause), and comes back to the configured one once
// the heap is freed; the governor stops with its context.
func TestGovernMemory(t *testing.T) {
	const limit = 32 << 20
	orig := debug.SetMemoryLimit(limit)
	defer debug.SetMemoryLimit(orig)
	ctx, cancel := context.WithCancel(context.Background())
	limits := make(chan int64, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		governMemory(ctx, limit, slog.New(slog.DiscardHandler), func(n int64) { limits <- n })
	}()
	await := func(what string, ok func(int64) bool) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			runtime.GC() // a collection is what the governor waits for
			select {
			case <-limits:
				if ok(debug.SetMemoryLimit(-1)) {
					return
				}
			case <-deadline:
				t.Fatalf("no limit %s", what)
			case <-time.After(50 * time.Millisecond): // collect again: one collection may come before the governor waits
			}
		}
	}
	live := make([]byte, 96<<20)
	for i := range live {
		live[i] = 1 // resident and live
	}
	await("raised above 96 MiB live", func(n int64) bool { return n >= headroomFloor(96<<20) })
	runtime.KeepAlive(live)
	live = nil
	await("back to the configured one", func(n int64) bool { return n == limit })
	cancel()
	runtime.GC()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("governMemory did not return after its context was done")
	}
}

func TestHeadroomFloor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int64
	}{
		{0, 16 << 20},
		{40 << 20, 66 << 20},
		{400 << 20, 516 << 20},
	} {
		if got := headroomFloor(tc.live); got != tc.want {
			t.Errorf("headroomFloor(%d MiB) = %d MiB, want %d MiB", tc.live>>20, got>>20, tc.want>>20)
		}
	}
}
