package daemon

import (
	"context"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/lunad/lunad"
)

// setMemoryLimit gives the Go runtime the daemon's soft memory limit
// (which governMemory then keeps above the live heap):
// the collector then runs more often as the heap nears it instead of
// letting the heap grow to twice what is live (GOGC=100). A GOMEMLIMIT in
// the environment is the user's choice and is left as the runtime read it.
// It returns the limit in effect (math.MaxInt64: none), whether lunad
// set it (and governs it), and what restores the previous one (the daemon
// also runs inside tests).
func setMemoryLimit(limit lunad.ByteSize, getenv func(string) string) (effective int64, set bool, restore func()) {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1), false, func() {}
	}
	n := int64(limit)
	if n == 0 {
		n = math.MaxInt64
	}
	prev := debug.SetMemoryLimit(n)
	return debug.SetMemoryLimit(-1), limit != 0, func() { debug.SetMemoryLimit(prev) }
}

// headroomFloor is the least room a limit leaves the collector over the
// live heap: a quarter of it (as GOGC=25 would) and 16 MiB for the
// runtime's own memory (stacks, metadata, free spans). A limit below it
// makes the collector run almost without pause — `lunad stale` on the
// 10,000-artifact workspace, whose live heap exceeds 80 MiB, took 4.8×
// the CPU under a fixed 80 MiB limit.
func headroomFloor(live uint64) int64 {
	return int64(live + live/4 + 16<<20)
}

// governMemory keeps the runtime's memory limit at limit while the live
// heap leaves the collector room under it (headroomFloor), and raises it
// to that floor when the live heap grows past, lowering it back as the
// heap shrinks: checked after every collection, until ctx is done. The
// limit then bounds what the daemon holds when idle and serving, without
// making a request that needs more live memory crawl. adjusted, if not
// nil, is called with each new limit.
func governMemory(ctx context.Context, limit int64, log *slog.Logger, adjusted func(int64)) {
	cycles := gcCycles(ctx)
	current, raised := limit, false
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for {
		select {
		case <-ctx.Done():
			return
		case <-cycles:
		}
		metrics.Read(sample)
		live := sample[0].Value.Uint64()
		want := max(limit, headroomFloor(live))
		if want == current || want > limit && current > limit && max(want-current, current-want) < current/16 {
			continue // within a sixteenth: not worth a change
		}
		debug.SetMemoryLimit(want)
		current = want
		if r := want > limit; r != raised {
			raised = r
			log.Info("memory limit follows the live heap (daemon.memory_limit is the least it is)",
				"live", live, "memory_limit", want, "configured", limit)
		}
		if adjusted != nil {
			adjusted(want)
		}
	}
}

// gcCycles signals (without blocking: one pending signal at most) after
// each garbage collection until ctx is done: an object is dropped, and
// its cleanup, which runs once a collection has found it unreachable,
// drops the next one.
func gcCycles(ctx context.Context) <-chan struct{} {
	c := make(chan struct{}, 1)
	var arm func()
	arm = func() {
		runtime.AddCleanup(new([64]byte), func(struct{}) { // not a tiny allocation, which may never be freed
			if ctx.Err() != nil {
				return
			}
			select {
			case c <- struct{}{}:
			default:
			}
			arm()
		}, struct{}{})
	}
	arm()
	return c
}
