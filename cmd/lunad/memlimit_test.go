package main

import (
	"context"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/config"
)

func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want lunad.ByteSize
		err  bool
	}{
		{"0", 0, false},
		{"off", 0, false},
		{"134217728", 128 << 20, false},
		{"128MiB", 128 << 20, false},
		{" 1 GiB ", 1 << 30, false},
		{"512KiB", 512 << 10, false},
		{"2TiB", 2 << 40, false},
		{"100B", 100, false},
		{"", 0, true},
		{"lots", 0, true},
		{"128MB", 0, true}, // GOMEMLIMIT's units are binary: MiB
		{"-1MiB", 0, true},
		{"1.5GiB", 0, true},
		{"9999999TiB", 0, true}, // overflows
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := lunad.ParseByteSize(tc.in)
			if (err != nil) != tc.err || got != tc.want {
				t.Fatalf("ParseByteSize(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
			}
			if err != nil && !strings.Contains(err.Error(), "96MiB") {
				t.Fatalf("error %q does not say how to write a size", err)
			}
		})
	}
	for _, b := range []lunad.ByteSize{0, 96 << 20, 1 << 30, 3 << 10, 1000} {
		if back, err := lunad.ParseByteSize(b.String()); err != nil || back != b {
			t.Errorf("%d written %q reads back %d, %v", b, b.String(), back, err)
		}
	}
}

// TestMemoryLimitConfig: daemon.memory_limit from the file (a string with
// a unit or an integer of bytes), LUNAD_MEMORY_LIMIT over it, and bad
// values refused naming the setting.
func TestMemoryLimitConfig(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		env        []string
		want       lunad.ByteSize
		err        string
	}{
		{"default", "", nil, config.DefaultMemoryLimit, ""},
		{"file with a unit", "[daemon]\nmemory_limit = \"200MiB\"\n", nil, 200 << 20, ""},
		{"file in bytes", "[daemon]\nmemory_limit = 67108864\n", nil, 64 << 20, ""},
		{"file off", "[daemon]\nmemory_limit = \"off\"\n", nil, 0, ""},
		{"env over file", "[daemon]\nmemory_limit = \"200MiB\"\n", []string{"LUNAD_MEMORY_LIMIT", "1GiB"}, 1 << 30, ""},
		{"env zero", "", []string{"LUNAD_MEMORY_LIMIT", "0"}, 0, ""},
		{"too small", "[daemon]\nmemory_limit = \"1MiB\"\n", nil, 0, "daemon.memory_limit 1MiB must be 0 (none) or between 32MiB and 1TiB"},
		{"too large", "", []string{"LUNAD_MEMORY_LIMIT", "2TiB"}, 0, "daemon.memory_limit 2TiB must be 0 (none) or between 32MiB and 1TiB"},
		{"not a size", "[daemon]\nmemory_limit = \"lots\"\n", nil, 0, `"lots" is not a size`},
		{"negative", "[daemon]\nmemory_limit = -5\n", nil, 0, "-5 is not a size"},
		{"a float", "[daemon]\nmemory_limit = 1.5\n", nil, 0, "is not a size"},
		{"bad env", "", []string{"LUNAD_MEMORY_LIMIT", "12XB"}, 0, `LUNAD_MEMORY_LIMIT="12XB" is not a size`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Load(agentsRoot(t, tc.toml), envOf(tc.env...))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || ExitCode(err) != 1 {
					t.Fatalf("error %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil || c.Daemon.MemoryLimit != tc.want {
				t.Fatalf("memory limit %d, %v; want %d", c.Daemon.MemoryLimit, err, tc.want)
			}
		})
	}
}

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

// TestServeMemoryLimit: `lunad serve` runs under the configured limit (as
// the runtime reports it once set: the log's memory_limit), or under
// GOMEMLIMIT when the environment sets it.
func TestServeMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		toml string
		env  []string
		want string
	}{
		{"configured", "[daemon]\nmemory_limit = \"80MiB\"\n", nil, "memory_limit=83886080"},
		{"from LUNAD_MEMORY_LIMIT", "[daemon]\nmemory_limit = \"80MiB\"\n", []string{"LUNAD_MEMORY_LIMIT=64MiB"}, "memory_limit=67108864"},
		{"GOMEMLIMIT wins", "[daemon]\nmemory_limit = \"80MiB\"\n", []string{"GOMEMLIMIT=300MiB"}, "memory_limit=314572800"},
		{"none", "[daemon]\nmemory_limit = 0\n", nil, "memory_limit=9223372036854775807"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := newWSWith(t, "a.md", "alpha\n")
			w.env = tc.env
			if err := os.WriteFile(filepath.Join(w.dir, ".luna", "config.toml"), []byte(tc.toml), 0o644); err != nil {
				t.Fatal(err)
			}
			p := w.serve()
			log, ok := p.stderr.waitFor(10*time.Second, "daemon serving")
			if !ok || !strings.Contains(log, " "+tc.want+"\n") {
				t.Fatalf("want %s in the daemon's log:\n%s", tc.want, log)
			}
			if err := p.stop(t, syscall.SIGTERM); err != nil {
				t.Fatalf("lunad serve: %v\n%s", err, p.stderr)
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
