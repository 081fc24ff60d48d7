package editor_test

// The edit-quality corpus: testdata/corpus/<kind>/<case>.txtar, made by
// ./internal/corpusgen from excerpts of real Go, Python and Markdown files
// (see testdata/corpus/README.md). Each case is one SEARCH/REPLACE block
// whose SEARCH is damaged the way language models damage it, and either the
// intended result or the refusal that is the only right answer.
//
// TestEditQuality applies every case and scores it:
//
//	right    the result is exactly the expected bytes, or the edit is
//	         refused where refusing is the right answer (a block that
//	         occurs twice, a block from another file), or reported as
//	         already applied (ErrAlreadyApplied) where it is
//	refused  an error where an edit (or ErrAlreadyApplied) was expected
//	wrong    an edit that was made but is not the expected one, or any
//	         edit where refusing was expected
//
// A wrong edit is worse than a refusal: a refusal costs the model a retry, a
// wrong edit silently corrupts the file. The test fails on any wrong edit,
// on fewer than 95% right, and on a corpus of fewer than 300 cases (or a
// kind with fewer than 25).
//
// Comparison point: Aider's SEARCH/REPLACE matcher (editblock_coder.py,
// replace_most_similar_chunk) takes the first place a SEARCH text matches;
// on a block that occurs twice it edits the first occurrence, a wrong edit
// whenever the model meant the other one. Here every such case must be
// refused (ErrAmbiguous).
//
// The report's last row, reply-shapes, scores the reply-shape corpus
// (testdata/replies, see replies_test.go) the same way: whole replies as
// models write them for Aider, Cline, Continue, OpenHands and Codex, parsed
// and applied.
//
// `make quality` (part of `make bench`) prints the table:
// LUNAD_QUALITY_REPORT=1 go test -count=1 ./editor -run TestEditQuality -v

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lunad/lunad/editor"
	"github.com/lunad/lunad/editor/internal/casefile"
)

const (
	qualityMinCases   = 300
	qualityMinPerKind = 25
	qualityMinRight   = 0.95
)

// qualityKinds is the table's order; every kind must be in the corpus.
var qualityKinds = []string{
	"exact", "trailing-spaces", "lost-indentation", "tabs-as-spaces", "stray-blank-line", "elision",
	"one-char-slip", "occurs-twice", "other-file", "already-applied", "crlf", "no-final-newline",
}

// replyKind is the report's last row: the reply-shape corpus
// (testdata/replies, see replies_test.go), whole model replies parsed and
// applied, scored by judgeReply; left out when LUNAD_QUALITY_CORPUS points
// at another corpus.
const replyKind = "reply-shapes"

type qualityCase struct {
	kind, file string
	hdr        map[string]string
	sec        map[string]string
}

func loadQualityCorpus(t *testing.T) []qualityCase {
	t.Helper()
	// LUNAD_QUALITY_CORPUS points the test at another corpus, e.g. one
	// generated with another seed as a held-out check:
	//   go run ./editor/internal/corpusgen -seed 7 -out /tmp/corpus7
	//   LUNAD_QUALITY_CORPUS=/tmp/corpus7 go test ./editor -run TestEditQuality -v
	root := filepath.Join("testdata", "corpus")
	if d := os.Getenv("LUNAD_QUALITY_CORPUS"); d != "" {
		root = d
	}
	var cases []qualityCase
	for _, f := range caseFiles(t, root) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		hdr, sec, err := casefile.Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		kind := filepath.Base(filepath.Dir(f))
		if hdr["kind"] != kind {
			t.Fatalf("%s: header kind %q in directory %q", f, hdr["kind"], kind)
		}
		rel, _ := filepath.Rel(root, f)
		cases = append(cases, qualityCase{kind: kind, file: filepath.ToSlash(rel), hdr: hdr, sec: sec})
	}
	return cases
}

// caseFiles is every <kind>/<case>.txtar under root, sorted.
func caseFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "*", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

type verdict int

const (
	right verdict = iota
	refused
	wrong
)

// judge applies one case and says how it went, with a note for anything but
// a plain right.
func judge(c qualityCase) (v verdict, tier editor.Tier, note string) {
	orig := []byte(c.sec["original"])
	var res editor.Result
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		res, err = editor.ApplyBlocks(orig, []editor.Block{{Path: c.hdr["path"], Search: c.sec["search"], Replace: c.sec["replace"]}})
	}()
	if err != nil && strings.HasPrefix(err.Error(), "panic: ") {
		return wrong, "", err.Error()
	}
	if err == nil && len(res.Matches) > 0 {
		tier = res.Matches[0].Tier
	}
	switch c.hdr["expect"] {
	case "apply":
		switch {
		case err != nil:
			return refused, "", oneLine(err.Error())
		case bytes.Equal(res.Content, []byte(c.sec["expected"])):
			return right, tier, ""
		default:
			return wrong, tier, fmt.Sprintf("applied at lines %s (tier %s): %s", matchLines(res), tier, firstDiff(res.Content, []byte(c.sec["expected"])))
		}
	case "already-applied":
		switch {
		case errors.Is(err, editor.ErrAlreadyApplied):
			return right, "", ""
		case err != nil:
			return refused, "", oneLine(err.Error())
		case bytes.Equal(res.Content, orig):
			return refused, tier, "succeeded without changing the content instead of ErrAlreadyApplied"
		default:
			return wrong, tier, fmt.Sprintf("applied again at lines %s (tier %s): %s", matchLines(res), tier, firstDiff(res.Content, orig))
		}
	default: // refuse
		if err == nil {
			return wrong, tier, fmt.Sprintf("applied at lines %s (tier %s) instead of refusing (%s)", matchLines(res), tier, c.hdr["error"])
		}
		want := map[string]error{"ambiguous": editor.ErrAmbiguous, "no-match": editor.ErrNoMatch, "already-applied": editor.ErrAlreadyApplied}[c.hdr["error"]]
		if want != nil && !errors.Is(err, want) {
			return right, "", fmt.Sprintf("refused, but not with %v: %s", want, oneLine(err.Error()))
		}
		return right, "", ""
	}
}

func matchLines(r editor.Result) string {
	if len(r.Matches) == 0 {
		return "?"
	}
	return fmt.Sprintf("%d-%d", r.Matches[0].StartLine, r.Matches[0].EndLine)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " | ")
	if len(s) > 240 {
		s = s[:240] + "..."
	}
	return s
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.SplitAfter(string(got), "\n"), strings.SplitAfter(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("first difference at line %d: got %q, want %q (got %d lines, want %d)", i+1, gl, wl, len(g), len(w))
		}
	}
	return "same lines, different bytes"
}

type qualityRow struct {
	cases, right, refused, wrong int
	tiers                        map[editor.Tier]int
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

func TestEditQuality(t *testing.T) {
	cases := loadQualityCorpus(t)
	rows := map[string]*qualityRow{}
	var tot qualityRow
	var notes []string
	for _, c := range cases {
		r := rows[c.kind]
		if r == nil {
			r = &qualityRow{tiers: map[editor.Tier]int{}}
			rows[c.kind] = r
		}
		v, tier, note := judge(c)
		var tiers []editor.Tier
		if tier != "" {
			tiers = append(tiers, tier)
		}
		notes = tally(r, &tot, notes, v, tiers, fmt.Sprintf("%s [%s]", c.file, c.hdr["damage"]), note)
	}
	if os.Getenv("LUNAD_QUALITY_CORPUS") == "" {
		r := &qualityRow{tiers: map[editor.Tier]int{}}
		rows[replyKind] = r
		for _, c := range loadReplies(t) {
			v, matches, note := judgeReply(c)
			var tiers []editor.Tier
			for _, m := range matches {
				tiers = append(tiers, m.Tier)
			}
			notes = tally(r, &tot, notes, v, tiers, fmt.Sprintf("%s [%s]", c.file, c.hdr["shape"]), note)
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "edit quality: %d cases\n", tot.cases)
	fmt.Fprintf(&b, "%-18s %6s %7s %8s %6s %8s  %s\n", "kind", "cases", "right", "refused", "wrong", "right%", "tiers of the right edits")
	kinds := append([]string(nil), qualityKinds...)
	for k := range rows {
		if !contains(qualityKinds, k) {
			kinds = append(kinds, k)
		}
	}
	var problems []string
	for _, k := range kinds {
		r := rows[k]
		if r == nil {
			problems = append(problems, fmt.Sprintf("kind %s has no cases", k))
			continue
		}
		if r.cases < qualityMinPerKind {
			problems = append(problems, fmt.Sprintf("kind %s has %d cases, want at least %d", k, r.cases, qualityMinPerKind))
		}
		fmt.Fprintf(&b, "%-18s %6d %7d %8d %6d %8s  %s\n", k, r.cases, r.right, r.refused, r.wrong, pct(r.right, r.cases), tierSummary(r.tiers))
	}
	fmt.Fprintf(&b, "%-18s %6d %7d %8d %6d %8s\n", "total", tot.cases, tot.right, tot.refused, tot.wrong, pct(tot.right, tot.cases))
	fmt.Fprintf(&b, "right %s, refused %s, wrong %s (target: 0 wrong, at least %.0f%% right)\n",
		pct(tot.right, tot.cases), pct(tot.refused, tot.cases), pct(tot.wrong, tot.cases), 100*qualityMinRight)
	if len(notes) > 0 {
		b.WriteString("cases that were not plainly right:\n")
		b.WriteString(strings.Join(notes, "\n"))
		b.WriteString("\n")
	}

	// With -v or LUNAD_QUALITY_REPORT=1 (make quality, make bench) the table
	// goes to stdout as is; otherwise through t.Log, shown when the test
	// fails.
	if testing.Verbose() || os.Getenv("LUNAD_QUALITY_REPORT") == "1" {
		fmt.Print(b.String())
	} else {
		t.Log("\n" + b.String())
	}

	if tot.cases < qualityMinCases {
		problems = append(problems, fmt.Sprintf("corpus has %d cases, want at least %d", tot.cases, qualityMinCases))
	}
	if tot.wrong > 0 {
		problems = append(problems, fmt.Sprintf("%d wrong edits, want 0", tot.wrong))
	}
	if float64(tot.right) < qualityMinRight*float64(tot.cases) {
		problems = append(problems, fmt.Sprintf("%s right, want at least %.0f%%", pct(tot.right, tot.cases), 100*qualityMinRight))
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// tally counts one case's verdict in its row and the total, and adds a
// note for anything but a plain right.
func tally(r, tot *qualityRow, notes []string, v verdict, tiers []editor.Tier, what, note string) []string {
	r.cases++
	tot.cases++
	switch v {
	case right:
		r.right++
		tot.right++
		for _, t := range tiers {
			r.tiers[t]++
		}
		if note != "" {
			notes = append(notes, fmt.Sprintf("  note     %s: %s", what, note))
		}
	case refused:
		r.refused++
		tot.refused++
		notes = append(notes, fmt.Sprintf("  REFUSED  %s: %s", what, note))
	case wrong:
		r.wrong++
		tot.wrong++
		notes = append(notes, fmt.Sprintf("  WRONG    %s: %s", what, note))
	}
	return notes
}

func tierSummary(m map[editor.Tier]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, string(k))
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s:%d", k, m[editor.Tier(k)]))
	}
	return strings.Join(parts, " ")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestEditQualityCorpus checks the corpus itself, whatever the matcher does:
// every positive case changes the file, every file keeps its line endings
// and final newline in the expected result, and the undamaged kinds' SEARCH
// occurs exactly once.
func TestEditQualityCorpus(t *testing.T) {
	for _, c := range loadQualityCorpus(t) {
		orig, search, exp := c.sec["original"], c.sec["search"], c.sec["expected"]
		switch c.hdr["expect"] {
		case "apply":
			if exp == orig {
				t.Errorf("%s: expected equals original", c.file)
			}
			if strings.Contains(orig, "\r\n") != strings.Contains(exp, "\r\n") || strings.HasSuffix(orig, "\n") != strings.HasSuffix(exp, "\n") {
				t.Errorf("%s: expected does not keep the original's line endings", c.file)
			}
			if c.kind == "exact" && strings.Count(orig, search) != 1 {
				t.Errorf("%s: exact SEARCH occurs %d times", c.file, strings.Count(orig, search))
			}
		case "already-applied":
			if strings.Contains(orig, search) || strings.Count(orig, c.sec["replace"]) != 1 {
				t.Errorf("%s: not an already-applied edit", c.file)
			}
		}
	}
}
