package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/window"
	"github.com/lunad/lunad/workspace"
)

var (
	flagCtxBudget = flag.Int("bench.ctxbudget", 16000, "BenchmarkContext: tokens of each compiled context")
	flagCtxActive = flag.Int("bench.ctxactive", 25, "BenchmarkContext: active artifacts per language")
	flagCtxRounds = flag.Int("bench.ctxrounds", 10, "BenchmarkContext: warm compiles of each active artifact")
)

// BenchmarkContext measures context compilation (agents/window) on the
// references tree of -bench.files artifacts (generateRefsTree: code that
// calls other files, Markdown that names their symbols and links them),
// committed with git and adopted in-process with workspace.Init. The
// Source is the workspace service itself (List from the store, Outgoing
// from the reference index and staleness evaluation, Symbols parsed by
// tree-sitter), through one window.Compiler, which lists the artifacts
// again only when HEAD moves. For -bench.ctxactive artifacts of each language as the
// active artifact, it compiles a context of -bench.ctxbudget tokens with
// the o200k_base tokenizer (gpt-4o): once cold (nothing tokenized yet),
// then -bench.ctxrounds times warm, and reports the warm p50/p99, the cold
// p50/max, the compiled tokens, and the naive baseline — every artifact of
// the workspace in full in the prompt, in the same block format — with
// the ratio.
func BenchmarkContext(b *testing.B) {
	ctx := context.Background()
	t0 := time.Now()
	s, tree := refsWorkspace(b, "context-tree", *flagFiles)
	defer s.Close()
	list, err := s.List(ctx)
	if err != nil {
		b.Fatal(err)
	}
	byPath := map[string]lunad.Artifact{}
	for _, a := range list {
		byPath[a.Path] = a
	}
	var actives []string
	for _, lang := range []string{rwGo, rwPy, rwTS, rwMD} {
		for _, i := range tree.byLng[lang][:min(*flagCtxActive, len(tree.byLng[lang]))] {
			actives = append(actives, byPath[tree.files[i].path].ID)
		}
	}
	// The reference index is built on first use: build it before timing.
	t1 := time.Now()
	if _, err := s.Outgoing(ctx, actives[0]); err != nil {
		b.Fatal(err)
	}
	setup, indexBuild := t1.Sub(t0), time.Since(t1)
	tok := window.TokenizerFor("gpt-4o")
	tok.Count("warm the vocabulary")
	b.ResetTimer()

	comp := window.NewCompiler(s, tok) // as a worker holds one: the list is kept while HEAD stays
	compile := func(id string) (window.Context, time.Duration) {
		t := time.Now()
		c, err := comp.Compile(ctx, window.Input{Active: id, Mode: window.ModeWrite, Budget: *flagCtxBudget})
		d := time.Since(t)
		if err != nil {
			b.Fatalf("compile %s: %v", id, err)
		}
		return c, d
	}
	var cold, warm []time.Duration
	var tokens, deps, outlined, indexed []int
	for _, id := range actives {
		c, d := compile(id)
		cold = append(cold, d)
		tokens = append(tokens, c.Tokens)
		indexed = append(indexed, c.Indexed)
		n, o := 0, 0
		for _, bl := range c.Included {
			if bl.Mode == window.ModeRead {
				n++
				if bl.Form == window.FormOutline {
					o++
				}
			}
		}
		deps, outlined = append(deps, n), append(outlined, o)
	}
	cpu0 := cpuTime()
	for range *flagCtxRounds {
		for _, id := range actives {
			_, d := compile(id)
			warm = append(warm, d)
		}
	}
	cpuPer := (cpuTime() - cpu0) / time.Duration(len(warm))
	// Where the warm time goes: the Source's calls alone.
	var srcList, srcOut []time.Duration
	for _, id := range actives {
		t := time.Now()
		if _, err := s.List(ctx); err != nil {
			b.Fatal(err)
		}
		srcList = append(srcList, time.Since(t))
		t = time.Now()
		if _, err := s.Outgoing(ctx, id); err != nil {
			b.Fatal(err)
		}
		srcOut = append(srcOut, time.Since(t))
	}
	b.StopTimer()

	// The naive baseline: every artifact in full, in the same block format.
	t2 := time.Now()
	naive, naiveBytes := naiveTokens(b, s, list, tok)
	naiveTime := time.Since(t2)

	mean := func(xs []int) float64 {
		sum := 0
		for _, x := range xs {
			sum += x
		}
		return float64(sum) / float64(len(xs))
	}
	p50, p99 := pct(warm, 0.50), pct(warm, 0.99)
	fmt.Printf("\nBenchmarkContext: %d artifacts (%s), budget %d tokens, tokenizer %s, %d active artifacts (%d per language), %d warm compiles\n",
		len(list), machine(), *flagCtxBudget, tok.Name(), len(actives), *flagCtxActive, len(warm))
	fmt.Printf("setup (generate, git commit, adopt) %s; reference index build %s\n", setup.Round(time.Millisecond), indexBuild.Round(time.Millisecond))
	fmt.Printf("%-34s %10s %10s %10s\n", "", "p50", "p99", "max")
	fmt.Printf("%-34s %10.2f %10.2f %10.2f ms\n", "compile, warm", ms(p50), ms(p99), ms(slices.Max(warm)))
	fmt.Printf("%-34s %10.2f ms (user+system, all threads, per warm compile)\n", "compile, warm, CPU time", ms(cpuPer))
	fmt.Printf("%-34s %10.2f %10.2f %10.2f ms\n", "compile, cold (first of each)", ms(pct(cold, 0.50)), ms(pct(cold, 0.99)), ms(slices.Max(cold)))
	fmt.Printf("%-34s %10.2f %10.2f %10.2f ms\n", "  of which Source.List", ms(pct(srcList, 0.50)), ms(pct(srcList, 0.99)), ms(slices.Max(srcList)))
	fmt.Printf("%-34s %10.2f %10.2f %10.2f ms\n", "  of which Source.Outgoing", ms(pct(srcOut, 0.50)), ms(pct(srcOut, 0.99)), ms(slices.Max(srcOut)))
	fmt.Printf("compiled context: %.0f tokens on average (%.1f dependencies shown, %.1f of them outlined, %.0f index lines)\n", mean(tokens), mean(deps), mean(outlined), mean(indexed))
	fmt.Printf("naive baseline (every artifact in full): %d tokens (%.1f MB, counted in %s); ratio compiled/naive %.5f (1/%.0f)\n",
		naive, float64(naiveBytes)/1e6, naiveTime.Round(time.Second), mean(tokens)/float64(naive), float64(naive)/mean(tokens))
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(ms(pct(cold, 0.50)), "cold-p50-ms")
	b.ReportMetric(ms(cpuPer), "cpu-ms/compile")
	b.ReportMetric(mean(tokens), "ctx-tokens")
	b.ReportMetric(float64(naive), "naive-tokens")
	b.ReportMetric(mean(tokens)/float64(naive), "ctx/naive")
}

// refsWorkspace generates the references tree of n files
// (generateRefsTree) in scratch/name, commits it with git and adopts it
// in-process with workspace.Init.
func refsWorkspace(b *testing.B, name string, n int) (*workspace.Service, *rwTree) {
	if scratch == "" {
		var err error
		if scratch, err = os.MkdirTemp("", "lunad-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	root := filepath.Join(scratch, name)
	os.RemoveAll(root)
	tree, err := generateRefsTree(root, n)
	if err != nil {
		b.Fatal(err)
	}
	commitTree(b, root)
	s, _, err := workspace.Init(root, benchOptions())
	if err != nil {
		b.Fatal(err)
	}
	return s, tree
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// naiveTokens counts every artifact of the workspace in a full block, as a
// prompt holding them all would, on every core.
func naiveTokens(b *testing.B, s lunad.Reader, list []lunad.Artifact, tok window.Tokenizer) (tokens, bytes int) {
	ctx := context.Background()
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan lunad.Artifact)
	var firstErr error
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for a := range work {
				content, _, err := s.Read(ctx, a.ID, "")
				n := 0
				if err == nil {
					n = tok.Count(fmt.Sprintf("<artifact id=%q type=%q version=\"%d\" path=%q title=%q mode=\"read_only\" form=\"full\">\n", a.ID, a.Type, a.Version, a.Path, a.Title) +
						window.Escape(string(content)) + "</artifact>\n\n")
				}
				mu.Lock()
				tokens += n
				bytes += len(content)
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	for _, a := range list {
		work <- a
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	return tokens, bytes
}
