package treesitter

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// markdownOfSize builds Markdown of n units of each shape that made
// indexing superlinear.
var markdownOfSize = map[string]func(n int) string{
	"headings": func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "# Heading %d\n", i)
		}
		return b.String()
	},
	"brackets":       func(n int) string { return strings.Repeat("[", 50*n) },
	"long paragraph": func(n int) string { return strings.Repeat("word `code` [link](x) ", n) },
	"sections and code": func(n int) string {
		var b strings.Builder
		for i := range n / 4 {
			fmt.Fprintf(&b, "## Part %d\n\nSee `f%d` and [it](a.md#part-%d).\n\n", i, i, i)
		}
		return b.String()
	},
}

// TestMarkdownLinear: indexing four times as much Markdown takes about four
// times as long — at most eight (quadratic work would take sixteen; the
// shapes here took 12-15 times before). Each size is timed as the best of
// three runs in the process's CPU time with the garbage collector held
// off: wall time on a loaded machine (CI runs other packages' tests at the
// same time) and collections that fall in one run and not the other made
// linear work look 8.2x slower.
func TestMarkdownLinear(t *testing.T) {
	const n = 8000
	for name, gen := range markdownOfSize {
		t.Run(name, func(t *testing.T) {
			small, large := []byte(gen(n)), []byte(gen(4*n))
			ts, tl := bestOf(t, small), bestOf(t, large)
			ratio := float64(tl) / float64(ts)
			t.Logf("%d bytes: %v; %d bytes: %v; ratio %.1f", len(small), ts, len(large), tl, ratio)
			if ratio > 8 {
				t.Fatalf("4x the content took %.1fx the time (%v vs %v): not linear", ratio, tl, ts)
			}
		})
	}
}

func bestOf(t *testing.T, src []byte) time.Duration {
	p := NewParser()
	defer p.Close()
	// The parse budget is wall time, a guard for the daemon; this test
	// measures CPU time, and under -race on a loaded machine the large
	// inputs' wall time passed the default 10 s (the parse was skipped).
	p.SetBudget(10 * time.Minute)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	best := time.Duration(1 << 62)
	for range 3 {
		runtime.GC()
		start := cpuTime(t)
		f, err := p.Parse("text/markdown", src)
		if err != nil {
			t.Fatal(err)
		}
		if f.Skipped != "" {
			t.Fatalf("skipped: %s", f.Skipped)
		}
		best = min(best, cpuTime(t)-start)
	}
	return best
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
