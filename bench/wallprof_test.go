package bench

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// wallProfiler samples the stacks of every goroutine at a fixed rate and
// counts where the goroutines inside gitstore are, whether they run or wait
// in a system call (fsync, rename…): a wall-clock profile, which the CPU
// profiler cannot give for I/O-bound code. Enabled with LUNAD_BENCH_WALLPROF=1.
type wallProfiler struct {
	stop    chan struct{}
	done    sync.WaitGroup
	mu      sync.Mutex
	samples int
	where   map[string]int // innermost gitstore function -> samples
	what    map[string]int // innermost gitstore function ← what it was doing -> samples
}

func startWallProfiler(rate time.Duration) *wallProfiler {
	p := &wallProfiler{stop: make(chan struct{}), where: map[string]int{}, what: map[string]int{}}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		recs := make([]runtime.StackRecord, 256)
		tick := time.NewTicker(rate)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
			n, ok := runtime.GoroutineProfile(recs)
			if !ok {
				recs = make([]runtime.StackRecord, n+64)
				continue
			}
			p.mu.Lock()
			for _, r := range recs[:n] {
				p.add(r.Stack())
			}
			p.mu.Unlock()
		}
	}()
	return p
}

// add attributes one stack: the innermost gitstore frame is where, the
// outermost frame of a few telling packages (os, syscall, compress, crypto,
// go-git, encoding/json) below it is what.
func (p *wallProfiler) add(pcs []uintptr) {
	frames := runtime.CallersFrames(pcs)
	var what, where string
	for {
		f, more := frames.Next()
		fn := f.Function
		short := fn[strings.LastIndex(fn, "/")+1:]
		switch {
		case where == "" && strings.Contains(fn, "lunad/lunad/gitstore."):
			where = short
		case where == "" && (strings.HasPrefix(fn, "os.") || strings.HasPrefix(fn, "syscall.") ||
			strings.HasPrefix(fn, "compress/") || strings.HasPrefix(fn, "crypto/") || strings.Contains(fn, "go-git") ||
			strings.HasPrefix(fn, "encoding/json") || strings.HasPrefix(fn, "runtime.mallocgc")):
			what = short
		}
		if !more || where != "" {
			break
		}
	}
	if where == "" {
		return // not in gitstore (the benchmark's own goroutines, idle ones)
	}
	p.samples++
	p.where[where]++
	if what == "" {
		what = "(own code)"
	}
	p.what[where+" ← "+what]++
}

func (p *wallProfiler) report(title string, top int) string {
	close(p.stop)
	p.done.Wait()
	var b strings.Builder
	fmt.Fprintf(&b, "\nwall-clock profile of %s: %d samples of goroutines inside gitstore\n", title, p.samples)
	list := func(m map[string]int) {
		type kv struct {
			k string
			n int
		}
		var kvs []kv
		for k, n := range m {
			kvs = append(kvs, kv{k, n})
		}
		sort.Slice(kvs, func(i, j int) bool { return kvs[i].n > kvs[j].n })
		for i, e := range kvs {
			if i == top {
				break
			}
			fmt.Fprintf(&b, "  %5.1f%%  %s\n", 100*float64(e.n)/float64(max(p.samples, 1)), e.k)
		}
	}
	list(p.where)
	b.WriteString("  by what the function was doing:\n")
	list(p.what)
	return b.String()
}
