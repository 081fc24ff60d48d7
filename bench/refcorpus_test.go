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
// role (a MyST role: {func}`x`, {class}`x`, {doc}`x`, {term}`x`),
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

// heldOut says whether a repository of the corpus is held out. The rules
// were written and tuned against the five repositories listed here (the
// corpus as it was before any was held out); every other repository in
// labels.tsv was labelled afterwards, by reading its code, and nobody
// changing the rules may look at it. The floors hold on the five; the
// held-out figures are printed, and there only a working link reported
// broken fails, since a floor there would invite tuning the rules to them.
func heldOut(repo string) bool {
	switch repo {
	case "attrs", "cargo-generate", "glow", "ky", "mkdocs":
		return false
	}
	return true
}

// corpusSet names the set a repository belongs to in the report.
func corpusSet(repo string) string {
	if heldOut(repo) {
		return "held-out"
	}
	return "tuned"
}

// corpusReport is the table make bench prints: in all, per set (tuned,
// held-out), per kind within each set and per repository, in that order.
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
	fmt.Fprintf(&b, "%-32s %6s %6s %6s %5s %5s %5s %9s %9s %6s %12s %12s\n", "group", "places", "prec", "rec", "tp", "fp", "fn", "not-a-ref", "sym-found", "links", "false-broken", "broken-found")
	for _, k := range keys {
		g := groups[k]
		fmt.Fprintf(&b, "%-32s %6d %6s %6s %5d %5d %5d %9d %9s %6d %12d %12s\n", k, g.places, g.precision(), g.recall(), g.tp, g.fp, g.fn, g.tn,
			fmt.Sprintf("%d/%d", g.found, g.symbols), g.links, g.falseBroken, fmt.Sprintf("%d/%d", g.brokenLinks-g.missBroken, g.brokenLinks))
	}
	return b.String(), groups
}

// reportOrder sorts the report's groups: all first, then each set's total,
// kinds and repositories, the tuned set before the held-out one.
func reportOrder(k string) string {
	rank := map[string]string{"all": "0", "tuned all": "1", "tuned kind": "2", "tuned repo": "3", "held-out all": "4", "held-out kind": "5", "held-out repo": "6"}
	for _, p := range []string{"tuned kind", "tuned repo", "held-out kind", "held-out repo"} {
		if strings.HasPrefix(k, p+" ") {
			return rank[p] + k
		}
	}
	return rank[k] + k
}

// TestReferenceCorpus scores the reference graph on the labelled corpus
// (make bench prints the table with -v; LUNAD_CORPUS_MISSES=1 lists every
// wrong or missed place). On the tuned repositories the floors are the
// figures measured when the rules were last changed, so a change that
// loses precision or recall fails; on the held-out ones only a working
// link reported broken fails (see heldOut).
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
// groups: on the tuned repositories, a figure below its floor or a truly
// broken link not reported; on the held-out ones, a working link reported
// broken, or none labelled at all (the measurement would be gone).
func corpusFailures(groups map[string]tally) []string {
	var out []string
	tuned, code := groups["tuned all"], groups["tuned kind code"]
	code.add(groups["tuned kind role"]) // a MyST code role is a code span that says its kind
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
	held := groups["held-out all"]
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
// least 80% of the labelled places, no working link reported broken.
var corpusFloor = struct {
	codePrecision, recall float64
	falseBroken           int
}{codePrecision: 0.97, recall: 0.80, falseBroken: 0}

func ratioOf(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// TestCorpusFailures holds the two sets of the corpus to their rules: the
// floors on the tuned repositories, only a false broken link on the
// held-out ones.
func TestCorpusFailures(t *testing.T) {
	good := tally{places: 10, tp: 9, fn: 1, symbols: 10, found: 9, links: 2, brokenLinks: 1}
	for _, tc := range []struct {
		name        string
		tuned, held tally
		tunedCode   tally
		want        []string
	}{
		{name: "both good", tuned: good, held: good, tunedCode: tally{tp: 9}},
		{name: "held-out recall and precision low pass", tuned: good, held: tally{places: 10, tp: 1, fp: 3, fn: 9, missBroken: 1, brokenLinks: 1}, tunedCode: tally{tp: 9}},
		{name: "held-out false broken link fails", tuned: good, held: tally{places: 1, links: 1, falseBroken: 1}, tunedCode: tally{tp: 9},
			want: []string{"held-out repositories: 1 working links reported broken, want none (LUNAD_CORPUS_MISSES=1 lists them)"}},
		{name: "tuned recall below floor fails", tuned: tally{places: 10, tp: 7, fn: 3}, held: good, tunedCode: tally{tp: 7},
			want: []string{"tuned repositories: recall 0.700, below the floor 0.800"}},
		{name: "tuned code precision below floor fails", tuned: good, held: good, tunedCode: tally{tp: 9, fp: 1},
			want: []string{"tuned repositories: precision on code spans 0.900, below the floor 0.970"}},
		{name: "tuned missed broken link fails", tuned: tally{places: 10, tp: 9, fn: 1, links: 1, brokenLinks: 1, missBroken: 1}, held: good, tunedCode: tally{tp: 9},
			want: []string{"tuned repositories: 1 of 1 truly broken links not reported broken; want every one"}},
		{name: "no held-out repository fails", tuned: good, tunedCode: tally{tp: 9},
			want: []string{"no held-out repository in labels.tsv: every labelled repository is one the rules were tuned against"}},
		{name: "tuned false broken link fails", tuned: tally{places: 10, tp: 9, fn: 1, links: 1, falseBroken: 1}, held: good, tunedCode: tally{tp: 9},
			want: []string{"tuned repositories: 1 working links reported broken, want at most 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := corpusFailures(map[string]tally{"tuned all": tc.tuned, "tuned kind code": tc.tunedCode, "held-out all": tc.held})
			if !slices.Equal(got, tc.want) {
				t.Errorf("corpusFailures = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCorpusReportSets checks that the report keeps the tuned and held-out
// repositories apart, per kind and per repository, and counts the symbol
// places found and the broken links found.
func TestCorpusReportSets(t *testing.T) {
	res := func(repo, kind string, out tally) corpusResult {
		out.places = 1
		return corpusResult{l: label{repo: repo, kind: kind}, out: out}
	}
	rs := []corpusResult{
		res("ky", "code", tally{tp: 1, symbols: 1, found: 1}),
		res("ky", "link", tally{links: 1, brokenLinks: 1}),
		res("zoxide", "command", tally{fn: 1, symbols: 1}),
		res("zoxide", "command", tally{fp: 1, fn: 1, symbols: 1, found: 1}),
		res("zoxide", "link", tally{links: 1, brokenLinks: 1, missBroken: 1}),
		res("ureq", "code", tally{tn: 1}),
	}
	table, groups := corpusReport(rs)
	for _, tc := range []struct {
		group string
		want  tally
	}{
		{"all", tally{places: 6, tp: 1, fp: 1, fn: 2, tn: 1, symbols: 3, found: 2, links: 2, brokenLinks: 2, missBroken: 1}},
		{"tuned all", tally{places: 2, tp: 1, symbols: 1, found: 1, links: 1, brokenLinks: 1}},
		{"held-out all", tally{places: 4, fp: 1, fn: 2, tn: 1, symbols: 2, found: 1, links: 1, brokenLinks: 1, missBroken: 1}},
		{"held-out kind command", tally{places: 2, fp: 1, fn: 2, symbols: 2, found: 1}},
		{"held-out repo ureq", tally{places: 1, tn: 1}},
		{"tuned repo ky", tally{places: 2, tp: 1, symbols: 1, found: 1, links: 1, brokenLinks: 1}},
	} {
		t.Run(tc.group, func(t *testing.T) {
			if got := groups[tc.group]; got != tc.want {
				t.Errorf("group %q = %+v, want %+v", tc.group, got, tc.want)
			}
		})
	}
	if _, ok := groups["tuned kind command"]; ok {
		t.Error(`group "tuned kind command" exists; zoxide's commands are held out`)
	}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		order = append(order, strings.Join(strings.Fields(line)[:len(strings.Fields(line))-11], " "))
	}
	want := []string{"all", "tuned all", "tuned kind code", "tuned kind link", "tuned repo ky",
		"held-out all", "held-out kind code", "held-out kind command", "held-out kind link", "held-out repo ureq", "held-out repo zoxide"}
	if !slices.Equal(order, want) {
		t.Errorf("report rows %q, want %q", order, want)
	}
	if !strings.Contains(table, "held-out repo zoxide") || !strings.Contains(table, "1/2") || !strings.Contains(table, "0/1") {
		t.Errorf("report lacks the held-out symbols found (1/2) or broken links found (0/1):\n%s", table)
	}
}
