package bench

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
)

// edit is one step of the sequence: change the marker line of a file.
type edit struct {
	k    int // position in the sequence
	file int // index of the generated file (its marker number)
	path string
	id   string
}

// sequence picks n different files, spread over the workspace.
func sequence(t *template, n int) []edit {
	var out []edit
	seen := map[int]bool{}
	for k := 0; len(out) < n && k < 10*len(t.files); k++ {
		i := (k*7919 + 13) % len(t.files)
		if seen[i] {
			continue
		}
		seen[i] = true
		p := t.files[i]
		out = append(out, edit{k: len(out), file: i, path: p, id: t.ids[p]})
	}
	return out
}

var markerSuffix = regexp.MustCompile(`-e\d+p\d+`)

// change rewrites the marker line of content for pass p; it returns the new
// content and the old and new line (the SEARCH and REPLACE texts).
func (e edit) change(content []byte, pass int) ([]byte, string, string, error) {
	m := []byte(marker(e.file))
	at := bytes.Index(content, m)
	if at < 0 {
		return nil, "", "", fmt.Errorf("%s: marker %s not found", e.path, m)
	}
	start := bytes.LastIndexByte(content[:at], '\n') + 1
	end := at + bytes.IndexByte(content[at:], '\n')
	old := string(content[start:end])
	rest := markerSuffix.ReplaceAllString(old[at-start+len(m):], "")
	nw := old[:at-start+len(m)] + fmt.Sprintf("-e%dp%d", e.k, pass) + rest
	out := make([]byte, 0, len(content)+16)
	out = append(append(append(out, content[:start]...), nw...), content[end:]...)
	return out, old, nw, nil
}

// stats are the per-edit wall times of one way of committing, and for the
// ways that run a process per edit, its CPU time (user and system, of the
// process and what it waited for): on a machine shared with other work the
// wall time measures the load as much as the edit.
type stats struct {
	d    []time.Duration
	cpu  []time.Duration
	wall time.Duration // for concurrent runs: the whole run
	err  error
}

// cpuPct is pct of the CPU times.
func (s *stats) cpuPct(p float64) time.Duration { return (&stats{d: s.cpu}).pct(p) }

// processCPU is the CPU time a finished command used.
func processCPU(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func (s *stats) ok() bool { return s.err == nil && len(s.d) > 0 }

func (s *stats) pct(p float64) time.Duration {
	d := slices.Clone(s.d)
	slices.Sort(d)
	i := int(p * float64(len(d)))
	if i >= len(d) {
		i = len(d) - 1
	}
	return d[i]
}

func (s *stats) total() time.Duration {
	if s.wall > 0 {
		return s.wall
	}
	var t time.Duration
	for _, d := range s.d {
		t += d
	}
	return t
}

// perEdit is the mean time per edit (wall time / edits for concurrent runs).
func (s *stats) perEdit() time.Duration { return s.total() / time.Duration(len(s.d)) }
func (s *stats) rate() float64          { return float64(len(s.d)) / s.total().Seconds() }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// runStore: gitstore.Edit in this process, one edit after the other.
func runStore(dir string, seq []edit, pass int, byPath bool) (st stats, open, close time.Duration) {
	ctx := context.Background()
	t0 := time.Now()
	s, err := gitstore.Open(dir, benchOptions())
	if err != nil {
		st.err = err
		return
	}
	open = time.Since(t0)
	for _, e := range seq {
		ref := e.id
		if byPath {
			ref = e.path
		}
		t0 := time.Now()
		_, err := s.Edit(ctx, ref, lunad.Change{Agent: "bench"}, func(cur []byte) ([]byte, map[string]string, error) {
			out, _, _, err := e.change(cur, pass)
			return out, nil, err
		})
		st.d = append(st.d, time.Since(t0))
		if err != nil {
			st.err = fmt.Errorf("edit %d (%s): %w", e.k, e.path, err)
			break
		}
	}
	t0 = time.Now()
	if err := s.Close(); err != nil && st.err == nil {
		st.err = err
	}
	close = time.Since(t0)
	return
}

// runStoreOpenEach: Open, Edit, Close for every edit, in this process:
// the work of one `lunad edit` without starting a process.
func runStoreOpenEach(dir string, seq []edit, pass int) (st stats) {
	ctx := context.Background()
	for _, e := range seq {
		t0 := time.Now()
		s, err := gitstore.Open(dir, benchOptions())
		if err == nil {
			_, err = s.Edit(ctx, e.id, lunad.Change{Agent: "bench"}, func(cur []byte) ([]byte, map[string]string, error) {
				out, _, _, err := e.change(cur, pass)
				return out, nil, err
			})
			if cerr := s.Close(); err == nil {
				err = cerr
			}
		}
		st.d = append(st.d, time.Since(t0))
		if err != nil {
			st.err = fmt.Errorf("edit %d (%s): %w", e.k, e.path, err)
			return
		}
	}
	return
}

// runStoreConcurrent: gitstore.Edit from workers goroutines, each taking
// every workers-th edit of the sequence.
func runStoreConcurrent(dir string, seq []edit, pass, workers int) (st stats) {
	ctx := context.Background()
	s, err := gitstore.Open(dir, benchOptions())
	if err != nil {
		st.err = err
		return
	}
	defer s.Close()
	var mu sync.Mutex
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(seq); i += workers {
				e := seq[i]
				t0 := time.Now()
				_, err := s.Edit(ctx, e.id, lunad.Change{Agent: fmt.Sprintf("worker%d", w)}, func(cur []byte) ([]byte, map[string]string, error) {
					out, _, _, err := e.change(cur, pass)
					return out, nil, err
				})
				d := time.Since(t0)
				mu.Lock()
				st.d = append(st.d, d)
				if err != nil && st.err == nil {
					st.err = fmt.Errorf("edit %d (%s): %w", e.k, e.path, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	st.wall = time.Since(t0)
	return
}

// runGit: write the file, then `git commit -q -am` (with extra -c options).
func runGit(dir string, seq []edit, pass int, config ...string) (st stats) {
	env := gitEnv()
	for _, e := range seq {
		full := filepath.Join(dir, filepath.FromSlash(e.path))
		t0 := time.Now()
		cur, err := os.ReadFile(full)
		if err != nil {
			st.err = err
			return
		}
		out, _, _, err := e.change(cur, pass)
		if err == nil {
			err = os.WriteFile(full, out, 0o644)
		}
		if err == nil {
			args := append(slices.Clone(config), "commit", "-q", "-am", fmt.Sprintf("edit %d", e.k))
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = dir, env
			if b, cerr := cmd.CombinedOutput(); cerr != nil {
				err = fmt.Errorf("git commit: %v: %s", cerr, b)
			}
			st.cpu = append(st.cpu, processCPU(cmd))
		}
		st.d = append(st.d, time.Since(t0))
		if err != nil {
			st.err = fmt.Errorf("edit %d (%s): %w", e.k, e.path, err)
			return
		}
	}
	return
}

// runCLI: `lunad edit ID --search-file S --replace-file R --dir W` as a
// whole process. Writing S and R is not timed (an agent has them ready).
func runCLI(bin, dir string, seq []edit, pass int) (st stats) {
	sf, rf := filepath.Join(scratch, "search.txt"), filepath.Join(scratch, "replace.txt")
	for _, e := range seq {
		cur, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.path)))
		if err != nil {
			st.err = err
			return
		}
		_, old, nw, err := e.change(cur, pass)
		if err == nil {
			err = os.WriteFile(sf, []byte(old), 0o644)
		}
		if err == nil {
			err = os.WriteFile(rf, []byte(nw), 0o644)
		}
		if err != nil {
			st.err = err
			return
		}
		cmd := exec.Command(bin, "edit", e.id, "--search-file", sf, "--replace-file", rf, "--dir", dir, "--agent", "bench")
		cmd.Env = gitEnv()
		t0 := time.Now()
		out, cerr := cmd.CombinedOutput()
		st.d = append(st.d, time.Since(t0))
		st.cpu = append(st.cpu, processCPU(cmd))
		if cerr != nil {
			st.err = fmt.Errorf("edit %d (%s): lunad edit: %v: %s", e.k, e.path, cerr, out)
			return
		}
	}
	return
}

var flagLunad = flag.String("bench.lunad", "", "the lunad executable the ways (c) and (c') run (another build, an earlier commit's); default cmd/lunad built as `make build` builds it")

// buildLunad builds cmd/lunad once, as `make build` does (a release
// build: -trimpath, no symbol table or DWARF), unless -bench.lunad names
// an executable.
func buildLunad() (string, error) {
	if *flagLunad != "" {
		return filepath.Abs(*flagLunad)
	}
	bin := filepath.Join(scratch, "lunad")
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "github.com/lunad/lunad/cmd/lunad")
	cmd.Dir = filepath.Dir(filepath.Dir(file)) // the module root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cmd/lunad does not build: %v\n%s", err, out)
	}
	return bin, nil
}

func machine() string {
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		fmt.Sscanf(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[0], "MemTotal:"), "%d", &kb)
		mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/(1<<20))
	}
	fs := ""
	if out, err := exec.Command("df", "-T", "--output=fstype", scratch).Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			fs = ", workspaces on " + f[1]
		}
	}
	gitv, _ := exec.Command("git", "--version").Output()
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load average " + strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return fmt.Sprintf("%s/%s, %d cores%s%s, %s, %s%s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), mem, fs,
		strings.TrimSpace(string(gitv)), runtime.Version(), load)
}

// BenchmarkEdits times the same sequence of one-line edits (each on a
// different file of a 10,000-file workspace) committed four ways, each on
// its own copy of the workspace. See the package documentation.
func BenchmarkEdits(b *testing.B) {
	t, err := getTemplate()
	if err != nil {
		b.Fatal(err)
	}
	seq := sequence(t, *flagEdits)
	mach := machine()
	bin, buildErr := buildLunad()
	want := func(way string) bool {
		return *flagOnly == "" || slices.Contains(strings.Split(*flagOnly, ","), way)
	}
	dirs := map[string]string{}
	for _, w := range []struct{ way, dir string }{{"a", "a-store"}, {"a'", "a-store"}, {"b", "b-git"}, {"b'", "b2-git-fsync"}, {"c", "c-cli"}, {"c'", "c2-open-each"}, {"d", "d-group"}} {
		if want(w.way) && dirs[w.dir] == "" {
			if dirs[w.dir], err = copyOf(t, w.dir); err != nil {
				b.Fatal(err)
			}
		}
	}
	if want("b0") {
		if dirs["b0-git-plain"], err = copyRepo(t.plain, "b0-git-plain"); err != nil {
			b.Fatal(err)
		}
	}
	skipped := fmt.Errorf("not measured (-bench.only)")
	var a, aPath, g, g0, g2, c, c2, d stats
	var open, close time.Duration
	var profiles []string
	const workers = 8
	nPath := max(len(seq)/10, 1)
	// Each way starts with no dirty page cache: on ext4 a fsync waits for
	// the data of every file written before it in the same journal commit,
	// and making the copies writes hundreds of megabytes.
	flush := func() { exec.Command("sync").Run() }
	b.ResetTimer()
	for pass := 0; pass < b.N; pass++ {
		a.err, aPath.err, g.err, g0.err, g2.err, c.err, c2.err, d.err = skipped, skipped, skipped, skipped, skipped, skipped, skipped, skipped
		if want("a") {
			flush()
			var prof *wallProfiler
			if os.Getenv("LUNAD_BENCH_WALLPROF") != "" {
				prof = startWallProfiler(time.Millisecond)
			}
			st, o, cl := runStore(dirs["a-store"], seq, pass, false)
			a.d, a.err, open, close = append(a.d, st.d...), st.err, o, cl
			if prof != nil {
				profiles = append(profiles, prof.report("(a) gitstore.Edit, Open and Close included", 30))
			}
		}
		if want("a'") {
			flush()
			st, _, _ := runStore(dirs["a-store"], seq[:nPath], 1000+pass, true)
			aPath.d, aPath.err = append(aPath.d, st.d...), st.err
		}
		if want("b") {
			flush()
			st := runGit(dirs["b-git"], seq, pass)
			g.d, g.cpu, g.err = append(g.d, st.d...), append(g.cpu, st.cpu...), st.err
		}
		if want("b0") {
			flush()
			st := runGit(dirs["b0-git-plain"], seq, pass)
			g0.d, g0.cpu, g0.err = append(g0.d, st.d...), append(g0.cpu, st.cpu...), st.err
		}
		if want("b'") {
			flush()
			st := runGit(dirs["b2-git-fsync"], seq, pass, "-c", "core.fsync=committed", "-c", "core.fsyncMethod=fsync")
			g2.d, g2.cpu, g2.err = append(g2.d, st.d...), append(g2.cpu, st.cpu...), st.err
		}
		if want("c") {
			c.err = buildErr
			if buildErr == nil {
				flush()
				st := runCLI(bin, dirs["c-cli"], seq, pass)
				c.d, c.cpu, c.err = append(c.d, st.d...), append(c.cpu, st.cpu...), st.err
			}
		}
		if want("c'") {
			flush()
			var prof *wallProfiler
			if os.Getenv("LUNAD_BENCH_WALLPROF") != "" {
				prof = startWallProfiler(time.Millisecond)
			}
			st := runStoreOpenEach(dirs["c2-open-each"], seq, pass)
			c2.d, c2.err = append(c2.d, st.d...), st.err
			if prof != nil {
				profiles = append(profiles, prof.report("(c') Open + Edit + Close per edit", 30))
			}
		}
		if want("d") {
			flush()
			var prof *wallProfiler
			if os.Getenv("LUNAD_BENCH_WALLPROF") != "" {
				prof = startWallProfiler(time.Millisecond)
			}
			st := runStoreConcurrent(dirs["d-group"], seq, pass, workers)
			d.d, d.err, d.wall = append(d.d, st.d...), st.err, d.wall+st.wall
			if prof != nil {
				profiles = append(profiles, prof.report(fmt.Sprintf("(d) %d goroutines (samples of waiting callers included)", workers), 30))
			}
		}
	}
	b.StopTimer()

	var out strings.Builder
	fmt.Fprintf(&out, "\nCommits: lunad vs git CLI — %d one-line edits, each to a different file, of a %d-file workspace (%d tracked files with lunad's metadata; %d commits of history before adoption)\n",
		len(seq), len(t.files), t.tracked, 1+*flagHist)
	fmt.Fprintf(&out, "machine: %s (at the start)\n", mach)
	fmt.Fprintf(&out, "setup: generate + git add/commit + gitstore.Init + git gc: %v (gitstore.Init alone %v)\n\n",
		t.setup.Round(time.Millisecond), t.adopt.Round(time.Millisecond))
	fmt.Fprintf(&out, "| way | edits | edits/s | p50 ms | p95 ms | mean ms | mean vs (a) | CPU p50 ms |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, s *stats) {
		if !s.ok() {
			fmt.Fprintf(&out, "| %s | – | – | – | – | – | failed: %v | – |\n", name, firstLine(s.err))
			return
		}
		vs := "1.0×"
		if a.ok() && s != &a {
			vs = fmt.Sprintf("%.1f×", float64(s.perEdit())/float64(a.perEdit()))
		}
		cpu := "–" // in-process ways: the benchmark's own process
		if len(s.cpu) > 0 {
			cpu = fmt.Sprintf("%.2f", ms(s.cpuPct(0.5)))
		}
		fmt.Fprintf(&out, "| %s | %d | %.1f | %.2f | %.2f | %.2f | %s | %s |\n", name, len(s.d), s.rate(), ms(s.pct(0.5)), ms(s.pct(0.95)), ms(s.perEdit()), vs, cpu)
		if s.err != nil {
			fmt.Fprintf(&out, "|  | error after %d edits: %v |\n", len(s.d), firstLine(s.err))
		}
	}
	row("(a) gitstore.Edit, in-process, by ID (durable commit)", &a)
	row("(a') gitstore.Edit by path instead of ID", &aPath)
	row("(b) write file + `git commit -q -am` (git defaults)", &g)
	row("(b0) the same on the repository before adoption (no lunad metadata)", &g0)
	row("(b') the same with `-c core.fsync=committed`", &g2)
	row("(c) `lunad edit ID --search-file --replace-file` process", &c)
	row("(c') Open + Edit + Close per edit, in-process (the CLI's work without a process)", &c2)
	row(fmt.Sprintf("(d) gitstore.Edit, %d goroutines, different files", workers), &d)
	fmt.Fprintf(&out, "\nin (a): Open %v, Close (index sync of the edited paths) %v. (d): edits/s is the whole run's throughput; p50/p95 are each caller's wait.\n",
		open.Round(time.Microsecond), close.Round(time.Microsecond))
	if a.ok() && g.ok() {
		r := float64(g.perEdit()) / float64(a.perEdit())
		fmt.Fprintf(&out, "(b)/(a) per-edit time: %.1f× (p50 %.1f×) — target ≥ 10×\n", r, float64(g.pct(0.5))/float64(a.pct(0.5)))
		b.ReportMetric(r, "git/lunad-x")
	}
	if c.ok() && g.ok() {
		r := float64(c.perEdit()) / float64(g.perEdit())
		fmt.Fprintf(&out, "(c)/(b) per-edit time: %.2f (p50 %.2f) — target ≤ 0.5\n", r, float64(c.pct(0.5))/float64(g.pct(0.5)))
		b.ReportMetric(r, "cli/git-x")
	}
	if c.ok() && g0.ok() {
		r := float64(c.perEdit()) / float64(g0.perEdit())
		fmt.Fprintf(&out, "(c)/(b0) per-edit time, against git on the repository as its user had it: %.2f (p50 %.2f) — target ≤ 0.5\n", r, float64(c.pct(0.5))/float64(g0.pct(0.5)))
		b.ReportMetric(r, "cli/gitplain-x")
		cr := float64(c.cpuPct(0.5)) / float64(g0.cpuPct(0.5))
		fmt.Fprintf(&out, "(c)/(b0) CPU time per edit (user+system), p50: %.2f — the figure a loaded machine does not distort\n", cr)
		b.ReportMetric(cr, "cli/gitplain-cpu-x")
	} else if c.err != nil && c.err != skipped {
		fmt.Fprintf(&out, "(c) not measured: %v\n", c.err)
	}
	if a.ok() && d.ok() {
		fmt.Fprintf(&out, "(d)/(a) throughput: %.2f×\n", d.rate()/a.rate())
		b.ReportMetric(d.rate()/a.rate(), "group/seq-x")
	}
	if os.Getenv("LUNAD_BENCH_DEBUG") != "" {
		for _, x := range []struct {
			n string
			s *stats
		}{{"a", &a}, {"b", &g}, {"d", &d}} {
			fmt.Fprintf(&out, "%s:", x.n)
			for _, d := range x.s.d {
				fmt.Fprintf(&out, " %.1f", ms(d))
			}
			out.WriteString("\n")
		}
	}
	for _, p := range profiles {
		out.WriteString(p)
	}
	fmt.Println(out.String())
	for _, m := range []struct {
		name string
		s    *stats
	}{{"lunad", &a}, {"git", &g}, {"gitplain", &g0}, {"gitfsync", &g2}, {"cli", &c}, {"group8", &d}} {
		if m.s.ok() {
			b.ReportMetric(ms(m.s.pct(0.5)), m.name+"-p50-ms")
			b.ReportMetric(ms(m.s.pct(0.95)), m.name+"-p95-ms")
			b.ReportMetric(m.s.rate(), m.name+"-edits/s")
		}
	}
	for _, s := range []*stats{&a, &aPath, &g, &g0, &g2, &c2, &d} {
		if s.err != nil && s.err != skipped {
			b.Errorf("%v", s.err)
		}
	}
}

func firstLine(err error) string {
	if err == nil {
		return ""
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
