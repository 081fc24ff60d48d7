package window_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/window"
)

// BenchmarkCompile10k times Compile alone (an in-memory Source) over
// 10,000 artifacts with warm token counts: what window adds to the
// Source's own calls. bench.BenchmarkContext measures it end to end on a
// real workspace.
func BenchmarkCompile10k(b *testing.B) {
	f := fixture()
	for i := range 10000 {
		f.add(fmt.Sprintf("g%05d", i), fmt.Sprintf("pkg/d%02d/s%02d/file_%05d.py", i%37, i%11, i), "code/python", fmt.Sprintf("file_%05d.py", i), pyModule(fmt.Sprintf("f%d", i), 3))
	}
	tok := window.TokenizerFor("gpt-4o")
	in := window.Input{Active: "a1", Mode: window.ModeWrite, Budget: 16000}
	if _, err := window.Compile(context.Background(), f, tok, in); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := window.Compile(context.Background(), f, tok, in); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time says what a compile costs on a machine shared with other
	// work, where wall time also counts waiting for a core.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCountLongRun counts one run of letters of 64 KiB, 256 KiB and
// 1 MiB past the cache of counts: the cost per byte stays flat, where
// tiktoken alone took 2 s, 85 s and over 5 minutes (its merge is quadratic
// in a piece's length).
func BenchmarkCountLongRun(b *testing.B) {
	for _, size := range []int{64 << 10, 256 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			text := strings.Repeat("a", size)
			window.CountUncached(window.O200k, "warm") // the vocabulary, loaded once
			b.SetBytes(int64(size))
			cpu0 := cpuTime()
			for b.Loop() {
				if window.CountUncached(window.O200k, text) <= 0 {
					b.Fatal("no tokens")
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
