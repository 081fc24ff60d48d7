package bench

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/treesitter"
	"github.com/lunad/lunad/workspace/refindex"
)

var flagReps = flag.Int("bench.reps", 3, "BenchmarkReferences: runs of ctags and of each full index (the best is reported)")

const ctagsMissing = "install universal-ctags (apt-get install universal-ctags); make bench does this"

// readSources reads every file under root as the daemon would hand it to
// the index: ID, path, title and type as gitstore gives them.
func readSources(root string) ([]refindex.Source, error) {
	var srcs []refindex.Source
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		typ := gitstore.TypeForPath(rel)
		title := path.Base(rel)
		if typ == "text/markdown" {
			if h, ok := bytes.CutPrefix(b, []byte("# ")); ok {
				t, _, _ := bytes.Cut(h, []byte("\n"))
				title = string(t) // not a substring of the whole content, which it would keep alive
			}
		}
		srcs = append(srcs, refindex.Source{ID: fmt.Sprintf("r%05d", len(srcs)), Path: rel, Title: title, Type: typ, Content: b})
		return nil
	})
	return srcs, err
}

// heapInuse is HeapInuse after a full collection.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// procStatus returns a field of /proc/self/status in bytes (VmRSS, VmHWM).
func procStatus(field string) uint64 { return procStatusOf(os.Getpid(), field) }

func mib[T int | int64 | uint64](n T) float64 { return float64(n) / (1 << 20) }

// ctagsRun runs `ctags -R --fields=+n -f tags root` and counts the tags and
// the files they are in; cpu is the process's user and system time.
func ctagsRun(root, tags string) (d, cpu time.Duration, ntags, nfiles int, err error) {
	os.Remove(tags)
	cmd := exec.Command("ctags", "-R", "--fields=+n", "-f", tags, root)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	t0 := time.Now()
	err = cmd.Run()
	d = time.Since(t0)
	if err != nil {
		return d, 0, 0, 0, fmt.Errorf("ctags: %v: %s", err, errb.String())
	}
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	f, err := os.Open(tags)
	if err != nil {
		return d, cpu, 0, 0, err
	}
	defer f.Close()
	files := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "!_") {
			continue
		}
		ntags++
		if parts := strings.SplitN(l, "\t", 3); len(parts) == 3 {
			files[parts[1]] = true
		}
	}
	return d, cpu, ntags, len(files), sc.Err()
}

// updateTimes are the per-edit times of one kind, overall and per language.
type updateTimes struct {
	all    []time.Duration
	byLang map[string][]time.Duration
}

func (u *updateTimes) add(lang string, d time.Duration) {
	if u.byLang == nil {
		u.byLang = map[string][]time.Duration{}
	}
	u.all = append(u.all, d)
	u.byLang[lang] = append(u.byLang[lang], d)
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := stats{d: ds}
	return s.pct(p)
}

func best(ds []time.Duration) time.Duration { return slices.Min(ds) }

// BenchmarkReferences measures lunad's reference index (refindex.Index) on a
// generated tree of -bench.files source and Markdown files against
// universal-ctags on the same tree, in the same run: full index time and
// files/s (cold, one worker and all; warm from the persisted parse cache),
// the time of Update after a one-line edit (first and repeated edit of a
// file), and the index's memory. See the package documentation.
func BenchmarkReferences(b *testing.B) {
	out, err := exec.Command("ctags", "--version").Output()
	if err != nil || !bytes.Contains(out, []byte("Universal Ctags")) {
		b.Fatal(ctagsMissing)
	}
	ctagsVersion, _, _ := strings.Cut(string(out), "\n")
	ctagsVersion = strings.TrimSuffix(ctagsVersion, ", Copyright (C) 2015 Universal Ctags Team")
	if scratch == "" {
		if scratch, err = os.MkdirTemp("", "lunad-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	reps := max(*flagReps, 1)
	root := filepath.Join(scratch, "refs-tree")
	os.RemoveAll(root)
	mach := machine()
	t0 := time.Now()
	tree, err := generateRefsTree(root, *flagFiles)
	if err != nil {
		b.Fatal(err)
	}
	genTime := time.Since(t0)
	exec.Command("sync").Run()
	n := len(tree.files)
	ctx := context.Background()
	procs := runtime.GOMAXPROCS(0)
	b.ResetTimer()

	// 1. universal-ctags, single-threaded, best of reps.
	var ctagsD, ctagsCPU []time.Duration
	var ntags, ctagsFiles int
	for range reps {
		d, cpu, nt, nf, err := ctagsRun(root, filepath.Join(scratch, "refs.tags"))
		if err != nil {
			b.Fatal(err)
		}
		ctagsD, ctagsCPU, ntags, ctagsFiles = append(ctagsD, d), append(ctagsCPU, cpu), nt, nf
	}
	ctagsBest := best(ctagsD)
	ctagsRate := float64(n) / ctagsBest.Seconds()

	// 2. Cold full index: read the files, Build with a fresh index.
	var readD []time.Duration
	var srcs []refindex.Source
	for range reps {
		t0 := time.Now()
		srcs, err = readSources(root)
		readD = append(readD, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
	}
	if len(srcs) != n {
		b.Fatalf("read %d files of %d", len(srcs), n)
	}
	var bytesTotal int
	for _, s := range srcs {
		bytesTotal += len(s.Content)
	}
	readBest := best(readD)
	var ix *refindex.Index
	var coldD, coldCPU []time.Duration
	var heapBefore, heapAfter, rss, hwm uint64
	for range reps {
		if ix != nil {
			ix.Close()
			ix = nil
		}
		heapBefore = heapInuse()
		nx := refindex.NewIndex()
		t0, c0 := time.Now(), cpuTime()
		err := nx.Build(ctx, srcs, procs)
		coldD, coldCPU = append(coldD, time.Since(t0)), append(coldCPU, cpuTime()-c0)
		if err != nil {
			b.Fatal(err)
		}
		ix = nx
		heapAfter = heapInuse()
		rss, hwm = procStatus("VmRSS"), procStatus("VmHWM")
	}
	defer func() { ix.Close() }()
	coldBest := best(coldD)
	cachePath := filepath.Join(scratch, "refs.gob")
	os.Remove(cachePath)
	t0 = time.Now()
	if err := ix.SaveCache(cachePath); err != nil {
		b.Fatal(err)
	}
	saveD := time.Since(t0)
	var cacheSize int64
	if fi, err := os.Stat(cachePath); err == nil {
		cacheSize = fi.Size()
	}
	var nsyms, nrefs int
	ix.View(func(g *treesitter.Graph) {
		if g.Len() != n {
			b.Errorf("graph has %d artifacts, want %d", g.Len(), n)
		}
		for _, id := range g.IDs() {
			e, _ := g.Entry(id)
			nsyms += len(e.File.Symbols)
			nrefs += len(e.File.References)
		}
	})

	// Cold, one worker.
	var cold1D, cold1CPU []time.Duration
	for range reps {
		nx := refindex.NewIndex()
		t0, c0 := time.Now(), cpuTime()
		err := nx.Build(ctx, srcs, 1)
		cold1D, cold1CPU = append(cold1D, time.Since(t0)), append(cold1CPU, cpuTime()-c0)
		nx.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	cold1Best := best(cold1D)

	// 3. Warm: a new index loads the saved cache, then builds.
	var loadD, warmD []time.Duration
	for range reps {
		nx := refindex.NewIndex()
		t0 := time.Now()
		if err := nx.LoadCache(cachePath); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		err := nx.Build(ctx, srcs, procs)
		loadD, warmD = append(loadD, t1.Sub(t0)), append(warmD, time.Since(t1))
		nx.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	warmI := 0 // the best run of load + build
	for i := range loadD {
		if loadD[i]+warmD[i] < loadD[warmI]+warmD[warmI] {
			warmI = i
		}
	}
	warmTotal := loadD[warmI] + warmD[warmI]

	// 4. One-line edits of -bench.edits files spread over the tree, twice
	// each: the first Update opens the file's tree (a full parse), the
	// second re-parses incrementally. A fresh Parse of the same content,
	// outside the index, is timed for comparison.
	idx := map[string]int{}
	for i, s := range srcs {
		idx[s.Path] = i
	}
	var first, again, parse updateTimes
	p := treesitter.NewParser()
	defer p.Close()
	seen := map[int]bool{}
	mismatch := 0
	var edited []string
	for k := 0; len(seen) < min(*flagEdits, n) && k < 10*n; k++ {
		i := (k*7919 + 13) % n
		if seen[i] {
			continue
		}
		seen[i] = true
		f := tree.files[i]
		src := srcs[idx[f.path]]
		edited = append(edited, src.ID)
		c1, l1 := f.edited(src.Content, len(f.editLine), 1)
		c2, _ := f.edited(c1, l1, 2)
		for pass, c := range [][]byte{c1, c2} {
			s := src
			s.Content = c
			t0 := time.Now()
			err := ix.Update(s)
			d := time.Since(t0)
			if err != nil {
				b.Fatal(err)
			}
			if pass == 0 {
				first.add(f.lang, d)
			} else {
				again.add(f.lang, d)
			}
		}
		t0 := time.Now()
		pf, err := p.Parse(src.Type, c2)
		parse.add(f.lang, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		ix.View(func(g *treesitter.Graph) {
			e, _ := g.Entry(src.ID)
			if len(e.File.Symbols) != len(pf.Symbols) || len(e.File.References) != len(pf.References) {
				mismatch++
			}
		})
	}
	if mismatch > 0 {
		b.Errorf("%d of %d updated files differ from a fresh parse", mismatch, len(edited))
	}

	// Resolution of the edited files' references and of references to
	// them (a sanity check of the generated tree, and query times).
	states := map[string]int{}
	var resolveD, incomingD time.Duration
	var nIncoming int
	ix.View(func(g *treesitter.Graph) {
		for _, id := range edited {
			t0 := time.Now()
			rs := g.Resolve(id)
			resolveD += time.Since(t0)
			for _, r := range rs {
				states[r.State]++
			}
			t0 = time.Now()
			nIncoming += len(g.Incoming(id))
			incomingD += time.Since(t0)
		}
	})
	b.StopTimer()

	// Report.
	var o strings.Builder
	langs := []string{rwGo, rwPy, rwTS, rwMD}
	fmt.Fprintf(&o, "\nReferences index: lunad (refindex.Index) vs %s — %d files, %.1f MiB\n", ctagsVersion, n, mib(bytesTotal))
	fmt.Fprintf(&o, "machine: %s; GOMAXPROCS %d (at the start)\n", mach, procs)
	fmt.Fprintf(&o, "tree: generated in %v;", genTime.Round(time.Millisecond))
	for _, l := range langs {
		var c, lines, mn, mx int
		for _, f := range tree.files {
			if f.lang == l {
				c++
				lines += f.lines
				if mn == 0 || f.lines < mn {
					mn = f.lines
				}
				mx = max(mx, f.lines)
			}
		}
		if c > 0 {
			fmt.Fprintf(&o, " %s %d files (%d–%d lines, mean %d);", l, c, mn, mx, lines/c)
		}
	}
	fmt.Fprintf(&o, " %d directories\n", len(tree.byDir))
	fmt.Fprintf(&o, "best of %d runs each; lunad extracts %d definitions and %d references, ctags %d tags in %d files\n\n",
		reps, nsyms, nrefs, ntags, ctagsFiles)

	fmt.Fprintf(&o, "| full index | time | files/s | vs ctags |\n|---|---:|---:|---:|\n")
	row := func(name string, d time.Duration) float64 {
		r := float64(n) / d.Seconds()
		fmt.Fprintf(&o, "| %s | %.2f s | %.0f | %.2f× |\n", name, d.Seconds(), r, r/ctagsRate)
		return r
	}
	row("`ctags -R --fields=+n` (1 thread)", ctagsBest)
	lunadRate := row(fmt.Sprintf("lunad cold, %d workers: read + Build", procs), readBest+coldBest)
	fmt.Fprintf(&o, "| … read %d files into []Source | %.2f s | | |\n", n, readBest.Seconds())
	buildRate := row(fmt.Sprintf("… Build alone (%d workers)", procs), coldBest)
	lunad1Rate := row("lunad cold, 1 worker: read + Build", readBest+cold1Best)
	row("… Build alone (1 worker)", cold1Best)
	warmRate := row(fmt.Sprintf("lunad warm (cache loaded), %d workers: read + LoadCache + Build", procs), readBest+warmTotal)
	fmt.Fprintf(&o, "| … LoadCache | %.2f s | | |\n", loadD[warmI].Seconds())
	fmt.Fprintf(&o, "| … Build with every file cached | %.2f s | | |\n", warmD[warmI].Seconds())
	fmt.Fprintf(&o, "\nall runs (s): ctags %s; read %s; Build %d workers %s; Build 1 worker %s; LoadCache+Build %s\n",
		secs(ctagsD), secs(readD), procs, secs(coldD), secs(cold1D), secs(sumD(loadD, warmD)))
	fmt.Fprintf(&o, "SaveCache after the cold build: %v\n", saveD.Round(time.Millisecond))
	// CPU time, which other work on a shared machine inflates far less
	// than wall time: ctags' process against the cold Build's (all of
	// this process's threads, nothing else running), best of the runs.
	ctagsC, coldC, cold1C := best(ctagsCPU), best(coldCPU), best(cold1CPU)
	fmt.Fprintf(&o, "CPU time (user+system, best run): ctags %.2f s (%.3f ms/file); cold Build %d workers %.2f s (%.3f ms/file; %.2f cores busy in its best wall run); 1 worker %.2f s; ctags/lunad CPU = %.3f (×%d cores at perfect scaling: %.2f)\n\n",
		ctagsC.Seconds(), ms(ctagsC)/float64(n), procs, coldC.Seconds(), ms(coldC)/float64(n), coldCPU[slices.Index(coldD, coldBest)].Seconds()/coldBest.Seconds(),
		cold1C.Seconds(), ctagsC.Seconds()/coldC.Seconds(), procs, float64(procs)*ctagsC.Seconds()/coldC.Seconds())

	fmt.Fprintf(&o, "| one-line edit, then Update (%d files) | p50 ms | p95 ms | mean ms |\n|---|---:|---:|---:|\n", len(edited))
	urow := func(name string, ds []time.Duration) {
		if len(ds) == 0 {
			return
		}
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		fmt.Fprintf(&o, "| %s | %.3f | %.3f | %.3f |\n", name, ms(pct(ds, 0.5)), ms(pct(ds, 0.95)), ms(sum/time.Duration(len(ds))))
	}
	urow("first edit of a file (opens its tree: full parse + graph update)", first.all)
	urow("second edit of the same file (incremental re-parse)", again.all)
	urow("(a fresh Parse of the edited file, outside the index)", parse.all)
	for _, l := range langs {
		urow(fmt.Sprintf("%s (%d): first edit", l, len(first.byLang[l])), first.byLang[l])
		urow(fmt.Sprintf("%s: second edit", l), again.byLang[l])
		urow(fmt.Sprintf("%s: fresh Parse", l), parse.byLang[l])
	}

	fmt.Fprintf(&o, "\n| memory | MiB |\n|---|---:|\n")
	fmt.Fprintf(&o, "| Go heap in use before Build (sources read: %.1f MiB of content) | %.1f |\n", mib(bytesTotal), mib(heapBefore))
	fmt.Fprintf(&o, "| Go heap in use after Build, index alive | %.1f |\n", mib(heapAfter))
	fmt.Fprintf(&o, "| **index (difference)** | **%.1f** |\n", mib(int64(heapAfter)-int64(heapBefore)))
	fmt.Fprintf(&o, "| process VmRSS after Build (peak VmHWM %.1f) | %.1f |\n", mib(hwm), mib(rss))
	fmt.Fprintf(&o, "| saved parse cache file | %.1f |\n", mib(cacheSize))

	var resolved int
	for _, c := range states {
		resolved += c
	}
	fmt.Fprintf(&o, "\nreferences of the %d edited files: %d (", len(edited), resolved)
	for _, s := range []string{treesitter.Resolved, treesitter.Local, treesitter.Ambiguous, treesitter.Broken, treesitter.Unresolved} {
		fmt.Fprintf(&o, " %s %d", s, states[s])
	}
	fmt.Fprintf(&o, " ); Resolve %.3f ms/file, Incoming %.3f ms/file (%d incoming)\n",
		ms(resolveD/time.Duration(max(len(edited), 1))), ms(incomingD/time.Duration(max(len(edited), 1))), nIncoming)

	p50First, p50Again := pct(first.all, 0.5), pct(again.all, 0.5)
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	fmt.Fprintf(&o, "\ntarget full index ≥ ctags files/s: lunad %.0f vs ctags %.0f files/s = %.2f× (Build alone %.2f×; 1 worker %.2f×) — %s\n",
		lunadRate, ctagsRate, lunadRate/ctagsRate, buildRate/ctagsRate, lunad1Rate/ctagsRate, verdict(lunadRate >= ctagsRate))
	fmt.Fprintf(&o, "target one-edit Update < 2 ms p50: first edit %.3f ms — %s; repeated edit %.3f ms — %s\n",
		ms(p50First), verdict(p50First < 2*time.Millisecond), ms(p50Again), verdict(p50Again < 2*time.Millisecond))
	fmt.Println(o.String())

	b.ReportMetric(ctagsRate, "ctags-files/s")
	b.ReportMetric(lunadRate, "lunad-files/s")
	b.ReportMetric(lunadRate/ctagsRate, "lunad/ctags-x")
	b.ReportMetric(lunad1Rate, "lunad1w-files/s")
	b.ReportMetric(ctagsC.Seconds()/coldC.Seconds(), "ctags/lunad-cpu-x")
	b.ReportMetric(warmRate, "warm-files/s")
	b.ReportMetric(ms(p50First), "update-first-p50-ms")
	b.ReportMetric(ms(pct(first.all, 0.95)), "update-first-p95-ms")
	b.ReportMetric(ms(p50Again), "update-p50-ms")
	b.ReportMetric(ms(pct(again.all, 0.95)), "update-p95-ms")
	b.ReportMetric(mib(int64(heapAfter)-int64(heapBefore)), "index-heap-MiB")
	b.ReportMetric(mib(rss), "rss-MiB")
	b.ReportMetric(mib(cacheSize), "cache-MiB")
}

func secs(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = fmt.Sprintf("%.2f", d.Seconds())
	}
	return strings.Join(s, " ")
}

func sumD(a, b []time.Duration) []time.Duration {
	out := make([]time.Duration, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}
