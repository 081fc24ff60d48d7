package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lunad/lunad/treesitter"
	"github.com/lunad/lunad/workspace/refindex"
)

// The reference corpus (testdata/refcorpus): files of public repositories
// with their licences, and labels.tsv, one labelled place a line:
//
//	repo  file  line  text  expected  kind
//
// expected is the definition the place refers to (path#name or
// path#Container.name, paths relative to the repository), "none" (not a
// reference), "link-ok" or "link-broken"; kind is code, command, flag,
// role (a MyST role: {func}`x`, {class}`x`, {doc}`x`, {term}`x`; or an
// RST one: :meth:`x`, :data:`.x`),
// directive (mkdocstrings :::), include (mdBook {{#include}}) or link.
// The labels were written by reading the code, not from lunad's output.

const corpusDir = "testdata/refcorpus"

// label is one labelled place.
type label struct {
	repo, file string
	line       int // 1-based
	text       string
	want       string
	kind       string
}

func readLabels(t testing.TB) []label {
	f, err := os.Open(filepath.Join(corpusDir, "labels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []label
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), "#") || sc.Text() == "" {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 6 {
			t.Fatalf("labels.tsv:%d: %d columns, want 6 (repo, file, line, text, expected, kind)", n, len(c))
		}
		line, err := strconv.Atoi(c[2])
		if err != nil {
			t.Fatalf("labels.tsv:%d: line %q: %v", n, c[2], err)
		}
		out = append(out, label{repo: c[0], file: c[1], line: line, text: c[3], want: c[4], kind: c[5]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tally counts the outcomes of one group of labels.
type tally struct {
	places                  int
	tp, fp, fn, tn          int // places labelled with a definition or none
	symbols, found          int // places labelled with a definition; of them, bound to one (right or wrong)
	falseBroken, missBroken int // links
	links, brokenLinks      int
}

func (a *tally) add(b tally) {
	a.places += b.places
	a.tp, a.fp, a.fn, a.tn = a.tp+b.tp, a.fp+b.fp, a.fn+b.fn, a.tn+b.tn
	a.symbols, a.found = a.symbols+b.symbols, a.found+b.found
	a.falseBroken, a.missBroken = a.falseBroken+b.falseBroken, a.missBroken+b.missBroken
	a.links, a.brokenLinks = a.links+b.links, a.brokenLinks+b.brokenLinks
}

func corpusPct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

func (a tally) precision() string { return corpusPct(a.tp, a.tp+a.fp) }
func (a tally) recall() string    { return corpusPct(a.tp, a.tp+a.fn) }

// corpusResult is what one labelled place got.
type corpusResult struct {
	l   label
	got string // path#Container.name, state, or "no reference"
	out tally
}

// scoreCorpus indexes every repository of the corpus as the daemon would
// and judges each label.
func scoreCorpus(t testing.TB) []corpusResult {
	labels := readLabels(t)
	byRepo := map[string][]label{}
	for _, l := range labels {
		byRepo[l.repo] = append(byRepo[l.repo], l)
	}
	repos := make([]string, 0, len(byRepo))
	for r := range byRepo {
		repos = append(repos, r)
	}
	slices.Sort(repos)
	var out []corpusResult
	for _, repo := range repos {
		srcs, err := readSources(filepath.Join(corpusDir, repo))
		if err != nil {
			t.Fatal(err)
		}
		ix := refindex.NewIndex()
		if err := ix.Build(context.Background(), srcs, 0); err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{}
		for _, s := range srcs {
			ids[s.Path] = s.ID
		}
		ix.View(func(g *treesitter.Graph) {
			for _, l := range byRepo[repo] {
				id, ok := ids[l.file]
				if !ok {
					t.Fatalf("label %s:%s:%d: no such file in the corpus", l.repo, l.file, l.line)
				}
				src := srcs[slices.IndexFunc(srcs, func(s refindex.Source) bool { return s.ID == id })].Content
				out = append(out, judge(l, g.Resolve(id), src))
			}
		})
		ix.Close()
	}
	return out
}

// judge finds the reference at a labelled place (on its line, its source
// text containing the label's text; the widest if several) and scores it.
func judge(l label, res []treesitter.Resolution, src []byte) corpusResult {
	var hit *treesitter.Resolution
	for i := range res {
		r := &res[i]
		sp := r.Ref.Span
		if sp.Start.Line+1 > l.line || sp.End.Line+1 < l.line {
			continue
		}
		text := string(src[sp.Start.Byte:sp.End.Byte])
		match := strings.Contains(text, l.text) || r.Ref.Target == l.text
		switch l.kind {
		case "link":
			match = r.Ref.Kind == "link" && r.Ref.Target == l.text
		case "code", "command", "flag": // the code span itself, not a link around it
			match = r.Ref.Kind != "link" && strings.TrimSpace(strings.Trim(text, "`")) == l.text
		}
		if match && (hit == nil || sp.End.Byte-sp.Start.Byte < hit.Ref.Span.End.Byte-hit.Ref.Span.Start.Byte) {
			hit = r
		}
	}
	c := corpusResult{l: l, got: "no reference", out: tally{places: 1}}
	if hit != nil {
		c.got = hit.State
		switch hit.State {
		case treesitter.Resolved, treesitter.Local:
			c.got = targetString(hit.Target)
		case treesitter.Ambiguous:
			names := make([]string, len(hit.Candidates))
			for i, t := range hit.Candidates {
				names[i] = targetString(t)
			}
			c.got += " (" + strings.Join(names, ", ") + ")"
		}
	}
	bound := hit != nil && (hit.State == treesitter.Resolved || hit.State == treesitter.Local)
	switch l.want {
	case "link-ok", "link-broken":
		c.out.links++
		broken := hit != nil && hit.State == treesitter.Broken
		if l.want == "link-ok" && broken {
			c.out.falseBroken++
		}
		if l.want == "link-broken" {
			c.out.brokenLinks++
			if !broken {
				c.out.missBroken++
			}
		}
	case "none":
		if bound {
			c.out.fp++
		} else {
			c.out.tn++
		}
	default:
		c.out.symbols++
		if bound {
			c.out.found++
		}
		switch {
		case bound && sameTarget(l.want, hit.Target):
			c.out.tp++
		case bound:
			c.out.fp++
			c.out.fn++
		default:
			c.out.fn++
		}
	}
	return c
}

func targetString(t treesitter.Target) string {
	s := t.Path
	if t.Name != "" {
		s += "#"
		if t.Container != "" {
			s += t.Container + "."
		}
		s += t.Name
	}
	return s
}

// sameTarget reports whether t is the labelled definition: the same path
// and name, and the same container when the label gives one.
func sameTarget(want string, t treesitter.Target) bool {
	p, sym, _ := strings.Cut(want, "#")
	if p != t.Path || sym == "" {
		return p == t.Path && sym == "" && t.Name == ""
	}
	if i := strings.LastIndexByte(sym, '.'); i >= 0 {
		return t.Container == sym[:i] && t.Name == sym[i+1:]
	}
	return t.Name == sym
}

// The corpus' three sets, in the order the report gives them.
const (
	// setTuned: the five repositories the rules were written and tuned
	// against (the corpus as it was before any was held out).
	setTuned = "tuned"
	// setHeldThenTuned: six repositories labelled as held out on
	// 2026-12-02 and measured at main that morning (the figures are in
	// docs/benchmarks.md); their misses were then read to change the
	// rules, so from then on they are tuned against and no longer an
	// honest measurement.
	setHeldThenTuned = "held-out, then tuned"
	// setHeldOut: every other repository in labels.tsv, labelled
	// afterwards by reading its code. Nobody changing the rules may look
	// at it; when someone does, its repositories move to a tuned set.
	setHeldOut = "held-out"
)

// corpusSets lists the sets in report order.
var corpusSets = []string{setTuned, setHeldThenTuned, setHeldOut}

// corpusSet names the set a repository of the corpus belongs to.
func corpusSet(repo string) string {
	switch repo {
	case "attrs", "cargo-generate", "glow", "ky", "mkdocs":
		return setTuned
	case "ko", "python-dotenv", "tokei", "ureq", "uvicorn", "zoxide":
		return setHeldThenTuned
	}
	return setHeldOut
}

// corpusReport is the table make bench prints: in all, then per set (see
// corpusSets) its total, its kinds and its repositories, in that order.
func corpusReport(rs []corpusResult) (string, map[string]tally) {
	groups := map[string]tally{}
	for _, r := range rs {
		set := corpusSet(r.l.repo)
		for _, k := range []string{"all", set + " all", set + " kind " + r.l.kind, set + " repo " + r.l.repo} {
			g := groups[k]
			g.add(r.out)
			groups[k] = g
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return strings.Compare(reportOrder(a), reportOrder(b))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%-44s %6s %6s %6s %5s %5s %5s %9s %9s %6s %12s %12s\n", "group", "places", "prec", "rec", "tp", "fp", "fn", "not-a-ref", "sym-found", "links", "false-broken", "broken-found")
	for _, k := range keys {
		g := groups[k]
		fmt.Fprintf(&b, "%-44s %6d %6s %6s %5d %5d %5d %9d %9s %6d %12d %12s\n", k, g.places, g.precision(), g.recall(), g.tp, g.fp, g.fn, g.tn,
			fmt.Sprintf("%d/%d", g.found, g.symbols), g.links, g.falseBroken, fmt.Sprintf("%d/%d", g.brokenLinks-g.missBroken, g.brokenLinks))
	}
	return b.String(), groups
}

// reportOrder sorts the report's groups: all first, then each set in
// corpusSets order with its total, kinds and repositories.
func reportOrder(k string) string {
	if k == "all" {
		return "0"
	}
	for i, set := range corpusSets {
		rest, ok := strings.CutPrefix(k, set+" ")
		if !ok {
			continue
		}
		part := map[string]string{"all": "0", "kind": "1", "repo": "2"}[strings.SplitN(rest, " ", 2)[0]]
		return fmt.Sprintf("%d%s %s", i+1, part, rest)
	}
	return "9" + k
}

// TestReferenceCorpus scores the reference graph on the labelled corpus
// (make bench prints the table with -v; LUNAD_CORPUS_MISSES=1 lists every
// wrong or missed place). Each set is held to what its history allows (see
// corpusFailures): floors on the tuned set, a precision floor on the set
// held out and then tuned, only a working link reported broken on the set
// still held out.
func TestReferenceCorpus(t *testing.T) {
	rs := scoreCorpus(t)
	table, groups := corpusReport(rs)
	t.Logf("reference corpus (%d labelled places)\n%s", len(rs), table)
	if os.Getenv("LUNAD_CORPUS_MISSES") != "" {
		for _, r := range rs {
			if r.out.fp+r.out.fn+r.out.falseBroken+r.out.missBroken > 0 {
				t.Logf("%s %s %s:%d %q want %s got %s", corpusSet(r.l.repo), r.l.kind, r.l.repo+"/"+r.l.file, r.l.line, r.l.text, r.l.want, r.got)
			}
		}
	}
	for _, f := range corpusFailures(groups) {
		t.Error(f)
	}
}

// corpusFailures is what fails TestReferenceCorpus, given corpusReport's
// groups. On the tuned set: a figure below its floor or a truly broken link
// not reported. On the set held out and then tuned: a precision below
// corpusFloor.precisionOnceHeldOut (its recall was measured while held
// out; a recall floor there would invite tuning to its labels before they
// are all met honestly), or a working link reported broken. On the set
// still held out: only a working link reported broken, or none labelled at
// all (the measurement would be gone), since any other floor would invite
// tuning the rules to it.
func corpusFailures(groups map[string]tally) []string {
	var out []string
	tuned, code := groups[setTuned+" all"], groups[setTuned+" kind code"]
	code.add(groups[setTuned+" kind role"]) // a MyST code role is a code span that says its kind
	if tuned.missBroken != 0 {
		out = append(out, fmt.Sprintf("tuned repositories: %d of %d truly broken links not reported broken; want every one", tuned.missBroken, tuned.brokenLinks))
	}
	if tuned.falseBroken > corpusFloor.falseBroken {
		out = append(out, fmt.Sprintf("tuned repositories: %d working links reported broken, want at most %d", tuned.falseBroken, corpusFloor.falseBroken))
	}
	if p := ratioOf(code.tp, code.tp+code.fp); p < corpusFloor.codePrecision {
		out = append(out, fmt.Sprintf("tuned repositories: precision on code spans %.3f, below the floor %.3f", p, corpusFloor.codePrecision))
	}
	if r := ratioOf(tuned.tp, tuned.tp+tuned.fn); r < corpusFloor.recall {
		out = append(out, fmt.Sprintf("tuned repositories: recall %.3f, below the floor %.3f", r, corpusFloor.recall))
	}
	was := groups[setHeldThenTuned+" all"]
	if p := ratioOf(was.tp, was.tp+was.fp); p < corpusFloor.precisionOnceHeldOut {
		out = append(out, fmt.Sprintf("repositories held out, then tuned: precision %.3f, below the floor %.3f (LUNAD_CORPUS_MISSES=1 lists the wrong places)", p, corpusFloor.precisionOnceHeldOut))
	}
	if was.falseBroken > 0 {
		out = append(out, fmt.Sprintf("repositories held out, then tuned: %d working links reported broken, want none (LUNAD_CORPUS_MISSES=1 lists them)", was.falseBroken))
	}
	held := groups[setHeldOut+" all"]
	if held.places == 0 {
		out = append(out, "no held-out repository in labels.tsv: every labelled repository is one the rules were tuned against")
	}
	if held.falseBroken > 0 {
		out = append(out, fmt.Sprintf("held-out repositories: %d working links reported broken, want none (LUNAD_CORPUS_MISSES=1 lists them)", held.falseBroken))
	}
	return out
}

// corpusFloor holds the targets the reference rules are held to and meet
// on the tuned repositories (docs/benchmarks.md has the measured figures):
// precision on code spans (and MyST code roles) at least 97%, recall at
// least 80% of the labelled places, no working link reported broken; and on
// the repositories held out, then tuned, precision over every labelled
// place at least 97%.
var corpusFloor = struct {
	codePrecision, recall float64
	falseBroken           int
	precisionOnceHeldOut  float64
}{codePrecision: 0.97, recall: 0.80, falseBroken: 0, precisionOnceHeldOut: 0.97}

func ratioOf(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// TestCorpusFailures holds the three sets of the corpus to their rules:
// the floors on the tuned repositories, a precision floor and no false
// broken link on those held out and then tuned, only a false broken link on
// the held-out ones.
func TestCorpusFailures(t *testing.T) {
	good := tally{places: 10, tp: 9, fn: 1, symbols: 10, found: 9, links: 2, brokenLinks: 1}
	for _, tc := range []struct {
		name             string
		tuned, was, held tally
		tunedCode        tally
		want             []string
	}{
		{name: "all good", tuned: good, was: good, held: good, tunedCode: tally{tp: 9}},
		{name: "held-out recall and precision low pass", tuned: good, was: good, held: tally{places: 10, tp: 1, fp: 3, fn: 9, missBroken: 1, brokenLinks: 1}, tunedCode: tally{tp: 9}},
		{name: "held-out false broken link fails", tuned: good, was: good, held: tally{places: 1, links: 1, falseBroken: 1}, tunedCode: tally{tp: 9},
			want: []string{"held-out repositories: 1 working links reported broken, want none (LUNAD_CORPUS_MISSES=1 lists them)"}},
		{name: "held out then tuned low recall and missed broken link pass", tuned: good, was: tally{places: 10, tp: 2, fn: 8, brokenLinks: 1, missBroken: 1}, held: good, tunedCode: tally{tp: 9}},
		{name: "held out then tuned precision at the floor passes", tuned: good, was: tally{places: 100, tp: 97, fp: 3}, held: good, tunedCode: tally{tp: 9}},
		{name: "held out then tuned precision below the floor fails", tuned: good, was: tally{places: 100, tp: 96, fp: 4}, held: good, tunedCode: tally{tp: 9},
			want: []string{"repositories held out, then tuned: precision 0.960, below the floor 0.970 (LUNAD_CORPUS_MISSES=1 lists the wrong places)"}},
		{name: "held out then tuned false broken link fails", tuned: good, was: tally{places: 1, links: 1, falseBroken: 1}, held: good, tunedCode: tally{tp: 9},
			want: []string{"repositories held out, then tuned: 1 working links reported broken, want none (LUNAD_CORPUS_MISSES=1 lists them)"}},
		{name: "tuned recall below floor fails", tuned: tally{places: 10, tp: 7, fn: 3}, was: good, held: good, tunedCode: tally{tp: 7},
			want: []string{"tuned repositories: recall 0.700, below the floor 0.800"}},
		{name: "tuned code precision below floor fails", tuned: good, was: good, held: good, tunedCode: tally{tp: 9, fp: 1},
			want: []string{"tuned repositories: precision on code spans 0.900, below the floor 0.970"}},
		{name: "tuned missed broken link fails", tuned: tally{places: 10, tp: 9, fn: 1, links: 1, brokenLinks: 1, missBroken: 1}, was: good, held: good, tunedCode: tally{tp: 9},
			want: []string{"tuned repositories: 1 of 1 truly broken links not reported broken; want every one"}},
		{name: "no held-out repository fails", tuned: good, was: good, tunedCode: tally{tp: 9},
			want: []string{"no held-out repository in labels.tsv: every labelled repository is one the rules were tuned against"}},
		{name: "tuned false broken link fails", tuned: tally{places: 10, tp: 9, fn: 1, links: 1, falseBroken: 1}, was: good, held: good, tunedCode: tally{tp: 9},
			want: []string{"tuned repositories: 1 working links reported broken, want at most 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := corpusFailures(map[string]tally{"tuned all": tc.tuned, "tuned kind code": tc.tunedCode, "held-out, then tuned all": tc.was, "held-out all": tc.held})
			if !slices.Equal(got, tc.want) {
				t.Errorf("corpusFailures = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCorpusReportSets checks that the report keeps the three sets apart
// (ky tuned; zoxide and ureq held out, then tuned; fd held out), per kind
// and per repository, in set order, and counts the symbol places found
// and the broken links found.
func TestCorpusReportSets(t *testing.T) {
	res := func(repo, kind string, out tally) corpusResult {
		out.places = 1
		return corpusResult{l: label{repo: repo, kind: kind}, out: out}
	}
	rs := []corpusResult{
		res("fd", "flag", tally{tp: 1, symbols: 1, found: 1}),
		res("ky", "code", tally{tp: 1, symbols: 1, found: 1}),
		res("ky", "link", tally{links: 1, brokenLinks: 1}),
		res("zoxide", "command", tally{fn: 1, symbols: 1}),
		res("zoxide", "command", tally{fp: 1, fn: 1, symbols: 1, found: 1}),
		res("zoxide", "link", tally{links: 1, brokenLinks: 1, missBroken: 1}),
		res("ureq", "code", tally{tn: 1}),
		res("fd", "code", tally{fn: 1, symbols: 1}),
	}
	table, groups := corpusReport(rs)
	for _, tc := range []struct {
		group string
		want  tally
	}{
		{"all", tally{places: 8, tp: 2, fp: 1, fn: 3, tn: 1, symbols: 5, found: 3, links: 2, brokenLinks: 2, missBroken: 1}},
		{"tuned all", tally{places: 2, tp: 1, symbols: 1, found: 1, links: 1, brokenLinks: 1}},
		{"held-out, then tuned all", tally{places: 4, fp: 1, fn: 2, tn: 1, symbols: 2, found: 1, links: 1, brokenLinks: 1, missBroken: 1}},
		{"held-out, then tuned kind command", tally{places: 2, fp: 1, fn: 2, symbols: 2, found: 1}},
		{"held-out, then tuned repo ureq", tally{places: 1, tn: 1}},
		{"held-out all", tally{places: 2, tp: 1, fn: 1, symbols: 2, found: 1}},
		{"held-out kind flag", tally{places: 1, tp: 1, symbols: 1, found: 1}},
		{"tuned repo ky", tally{places: 2, tp: 1, symbols: 1, found: 1, links: 1, brokenLinks: 1}},
	} {
		t.Run(tc.group, func(t *testing.T) {
			if got := groups[tc.group]; got != tc.want {
				t.Errorf("group %q = %+v, want %+v", tc.group, got, tc.want)
			}
		})
	}
	for _, g := range []string{"tuned kind command", "held-out kind command", "held-out repo zoxide", "held-out, then tuned repo fd"} {
		if _, ok := groups[g]; ok {
			t.Errorf("group %q exists; zoxide is held out, then tuned, and fd held out", g)
		}
	}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		order = append(order, strings.Join(strings.Fields(line)[:len(strings.Fields(line))-11], " "))
	}
	want := []string{"all", "tuned all", "tuned kind code", "tuned kind link", "tuned repo ky",
		"held-out, then tuned all", "held-out, then tuned kind code", "held-out, then tuned kind command", "held-out, then tuned kind link",
		"held-out, then tuned repo ureq", "held-out, then tuned repo zoxide",
		"held-out all", "held-out kind code", "held-out kind flag", "held-out repo fd"}
	if !slices.Equal(order, want) {
		t.Errorf("report rows %q, want %q", order, want)
	}
	if !strings.Contains(table, "held-out, then tuned repo zoxide") || !strings.Contains(table, "1/2") || !strings.Contains(table, "0/1") {
		t.Errorf("report lacks the symbols found (1/2) or broken links found (0/1):\n%s", table)
	}
}
