package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/lunad/lunad/editor/internal/casefile"
)

type lang string

const (
	langGo lang = "go"
	langPy lang = "python"
	langMD lang = "markdown"
)

var langs = []lang{langGo, langPy, langMD}

var short = map[lang]string{langGo: "go", langPy: "py", langMD: "md"}

type src struct {
	srcSpec
	lines []string
	code  []bool   // per line: see editCtx.code
	masks [][]bool // per line and byte: see editCtx.masks
	inStr []bool   // per line: see editCtx.inStr
}

// analyse works out, once per file, which lines and bytes are code.
func (f *src) analyse() {
	f.code = make([]bool, len(f.lines))
	if f.lang == langMD {
		f.code = mdCodeLines(f.lines)
		f.masks = make([][]bool, len(f.lines))
		f.inStr = make([]bool, len(f.lines))
		for i, s := range f.lines {
			f.masks[i] = codeMask(langGo, []string{s})[0]
		}
		return
	}
	f.masks, f.inStr = codeMaskOpen(f.lang, f.lines)
	for i := range f.lines {
		hasCode := false
		for j, c := range f.masks[i] {
			hasCode = hasCode || c && f.lines[i][j] != ' ' && f.lines[i][j] != '\t'
		}
		f.code[i] = !f.inStr[i] || hasCode
	}
}

// ctx is the edit context for file lines [from, to).
func (f *src) ctx(g *gen, all string, from, to int) *editCtx {
	unit := "    "
	if f.tabs && f.lang != langMD {
		unit = "\t"
	}
	return &editCtx{lang: g.lang, rng: g.rng, all: all, code: f.code[from:to], masks: f.masks[from:to], inStr: f.inStr[from:to], unit: unit}
}

type kindSpec struct {
	name string
	gen  func(g *gen, f *src) (*Case, bool)
}

var kinds = []kindSpec{
	{"exact", genExact},
	{"trailing-spaces", genTrailingSpaces},
	{"lost-indentation", genLostIndentation},
	{"tabs-as-spaces", genTabsAsSpaces},
	{"stray-blank-line", genStrayBlankLine},
	{"elision", genElision},
	{"one-char-slip", genOneCharSlip},
	{"occurs-twice", genOccursTwice},
	{"other-file", genOtherFile},
	{"already-applied", genAlreadyApplied},
	{"crlf", genCRLF},
	{"no-final-newline", genNoFinalNewline},
}

type gen struct {
	rng  *rand.Rand
	lang lang
	pool []*src // the files of this language usable for this kind
	n    int    // the number of the case being made (0-based)
	all  []*src // every general file of this language (for other-file)
}

func main() {
	out := flag.String("out", "editor/testdata/corpus", "output directory")
	seed := flag.Uint64("seed", 20260311, "random seed")
	n := flag.Int("n", 10, "cases per kind and language")
	flag.Parse()

	files := map[lang][]*src{}
	for _, sp := range sources {
		data, err := os.ReadFile(sp.path)
		if err != nil {
			fatalf("source: %v", err)
		}
		s := string(data)
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\r\x00") {
			fatalf("source %s: not LF-only UTF-8 text", sp.path)
		}
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		f := &src{srcSpec: sp, lines: lines}
		f.analyse()
		files[sp.lang] = append(files[sp.lang], f)
	}

	total := 0
	for ki, k := range kinds {
		dir := filepath.Join(*out, k.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fatalf("%v", err)
		}
		old, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
		for _, o := range old {
			os.Remove(o)
		}
		for li, l := range langs {
			g := &gen{rng: rand.New(rand.NewPCG(*seed, uint64(ki*16+li))), lang: l}
			for _, f := range files[l] {
				if f.gen {
					g.all = append(g.all, f)
				}
				if k.name == "tabs-as-spaces" && f.tabs || k.name != "tabs-as-spaces" && f.gen {
					g.pool = append(g.pool, f)
				}
			}
			order := g.rng.Perm(len(g.pool))
			seen := map[string]bool{}
			made, fails := 0, 0
			for made < *n {
				f := g.pool[order[(made+fails/50)%len(order)]]
				g.n = made
				c, ok := k.gen(g, f)
				if ok {
					key := c.Original + "\x00" + c.Search
					if seen[key] {
						ok = false
					}
					seen[key] = true
				}
				if !ok {
					fails++
					if fails > 50*len(order)*4 {
						fatalf("%s/%s: cannot make case %d", k.name, l, made+1)
					}
					continue
				}
				made++
				fails = 0
				base := strings.TrimSuffix(filepath.Base(f.path), filepath.Ext(f.path))
				base = strings.Map(func(r rune) rune {
					if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
						return r
					}
					return '-'
				}, base)
				c.Kind, c.Lang = k.name, string(l)
				c.Name = fmt.Sprintf("%s-%02d-%s", short[l], made, base)
				enc, err := c.Encode()
				if err == nil {
					err = c.roundTrip(enc)
				}
				if err != nil {
					fatalf("%s/%s: %v", k.name, c.Name, err)
				}
				if err := os.WriteFile(filepath.Join(dir, c.Name+".txtar"), enc, 0o644); err != nil {
					fatalf("%v", err)
				}
				total++
			}
		}
	}
	fmt.Printf("wrote %d cases to %s\n", total, *out)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "corpusgen: "+format+"\n", args...)
	os.Exit(1)
}

// ---- text helpers ----

func text(ls []string) string { return strings.Join(ls, "\n") + "\n" }

func nonSpace(s string) int { return len(strings.Join(strings.Fields(s), "")) }

func norm(ls []string) []string {
	var out []string
	for _, s := range ls {
		if t := strings.TrimSpace(s); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// windows counts the places where blk occurs as whole lines in ex.
func windows(ex, blk []string) int {
	n := 0
	for s := 0; s+len(blk) <= len(ex); s++ {
		eq := true
		for k := range blk {
			if ex[s+k] != blk[k] {
				eq = false
				break
			}
		}
		if eq {
			n++
		}
	}
	return n
}

// unique reports whether blk occurs exactly once in ex: as text, as whole
// lines, and as whole lines with all whitespace and blank lines ignored.
func unique(ex, blk []string) bool {
	nb := norm(blk)
	return strings.Count(text(ex), text(blk)) == 1 && windows(ex, blk) == 1 && len(nb) > 0 && windows(norm(ex), nb) == 1
}

// substantial reports whether a block is specific enough to be located.
func substantial(blk []string, minLines, minChars int) bool {
	if len(blk) == 0 || isBlank(blk[0]) || isBlank(blk[len(blk)-1]) {
		return false
	}
	good, total := 0, 0
	for _, s := range blk {
		ns := nonSpace(s)
		total += ns
		if ns >= 8 {
			good++
		}
		if strings.TrimSpace(s) == "..." {
			return false
		}
	}
	return good >= minLines && total >= minChars
}

// ---- picking an excerpt, a block and an edit ----

type pick struct {
	f        *src
	ex       []string // the excerpt
	first    int      // 0-based line of ex[0] in the file
	s, e     int      // the block is ex[s:e]
	block    []string
	newBlock []string
	edit     string
}

func (g *gen) excerpt(f *src, minL, maxL int) ([]string, int, bool) {
	n := minL + g.rng.IntN(maxL-minL+1)
	if len(f.lines) < n {
		return nil, 0, false
	}
	st := g.rng.IntN(len(f.lines) - n + 1)
	ex := f.lines[st : st+n]
	for len(ex) > 0 && isBlank(ex[0]) {
		ex, st = ex[1:], st+1
	}
	for len(ex) > 0 && isBlank(ex[len(ex)-1]) {
		ex = ex[:len(ex)-1]
	}
	if len(ex) < minL*3/4 {
		return nil, 0, false
	}
	for _, s := range ex {
		if casefile.IsMarker(s) || strings.TrimSpace(s) == "..." {
			return nil, 0, false
		}
	}
	return clone(ex), st, true
}

// pickBlock picks an excerpt of f and a block of minL..maxL lines in it that
// occurs once, and makes an edit to the block. atEnd puts the block at the
// end of the excerpt; ok filters the block.
func (g *gen) pickBlock(f *src, minL, maxL int, atEnd bool, ok func(blk []string) bool) (*pick, bool) {
	ex, first, good := g.excerpt(f, 40, 90)
	if !good {
		return nil, false
	}
	L := minL + g.rng.IntN(maxL-minL+1)
	if len(ex) < L+2 {
		return nil, false
	}
	s := 1 + g.rng.IntN(len(ex)-L-1) // keep a line of context on each side
	if atEnd {
		s = len(ex) - L
	}
	e := s + L
	blk := ex[s:e]
	if !substantial(blk, 2, 40) || !unique(ex, blk) || ok != nil && !ok(blk) {
		return nil, false
	}
	x := f.ctx(g, text(ex), first+s, first+e)
	nb, desc, good := applyEdit(x, blk)
	if !good || strings.Contains(text(ex), text(nb)) {
		return nil, false
	}
	return &pick{f: f, ex: ex, first: first, s: s, e: e, block: clone(blk), newBlock: nb, edit: desc}, true
}

// edited is the excerpt with the block replaced by the edited block.
func (p *pick) edited() []string {
	out := append(clone(p.ex[:p.s]), p.newBlock...)
	return append(out, p.ex[p.e:]...)
}

func (p *pick) header(damage string) [][2]string {
	return [][2]string{
		{"source", fmt.Sprintf("%s lines %d-%d", displayPath(p.f.path), p.first+1, p.first+len(p.ex))},
		{"block", fmt.Sprintf("original lines %d-%d", p.s+1, p.e)},
		{"edit", p.edit},
		{"damage", damage},
	}
}

func (p *pick) positive(damage, search, replace string) *Case {
	return &Case{
		Path:     filepath.Base(p.f.path),
		Header:   p.header(damage),
		Expect:   "apply",
		Original: text(p.ex),
		Search:   search,
		Replace:  replace,
		Expected: text(p.edited()),
	}
}

// checkPositive rejects a damaged case whose damaged SEARCH still matches
// exactly, or whose REPLACE is already in the file.
func checkPositive(c *Case, damaged bool) bool {
	n := countLines(c.Original, c.Search)
	if damaged && n != 0 || !damaged && n != 1 {
		return false
	}
	return !strings.Contains(c.Original, strings.TrimSuffix(c.Replace, "\n"))
}

// countLines counts the places where s occurs in text starting at the
// start of a line.
func countLines(text, s string) int { return strings.Count("\n"+text, "\n"+s) }

// ---- the kinds ----

func genExact(g *gen, f *src) (*Case, bool) {
	p, ok := g.pickBlock(f, 3, 8, false, nil)
	if !ok {
		return nil, false
	}
	c := p.positive("none", text(p.block), text(p.newBlock))
	return c, checkPositive(c, false)
}

var trailers = []string{" ", "  ", "\t", "   ", " \t", "    "}

func (g *gen) trailingSpaces(blk []string) ([]string, string) {
	out := clone(blk)
	n, nonBlank := 0, 0
	for i, s := range out {
		if isBlank(s) {
			if g.rng.IntN(3) == 0 {
				out[i] = s + "  "
			}
			continue
		}
		nonBlank++
		if g.rng.IntN(5) < 3 {
			out[i] = s + pickOne(g.rng, trailers)
			n++
		}
	}
	if n == 0 {
		i := len(out) - 1
		out[i] += pickOne(g.rng, trailers)
		n = 1
	}
	return out, fmt.Sprintf("trailing whitespace added to %d of %d lines", n, nonBlank)
}

func genTrailingSpaces(g *gen, f *src) (*Case, bool) {
	p, ok := g.pickBlock(f, 3, 8, false, nil)
	if !ok {
		return nil, false
	}
	ds, desc := g.trailingSpaces(p.block)
	c := p.positive(desc, text(ds), text(p.newBlock))
	return c, checkPositive(c, true)
}

func commonIndent(blk []string) string {
	ci := ""
	first := true
	for _, s := range blk {
		if isBlank(s) {
			continue
		}
		l := lead(s)
		if first {
			ci, first = l, false
			continue
		}
		for !strings.HasPrefix(l, ci) {
			ci = ci[:len(ci)-1]
		}
	}
	return ci
}

// dedent removes prefix from every line; blank lines lose what they have.
func dedent(blk []string, prefix string) ([]string, bool) {
	out := make([]string, len(blk))
	for i, s := range blk {
		switch {
		case strings.HasPrefix(s, prefix):
			out[i] = s[len(prefix):]
		case isBlank(s):
			out[i] = ""
		default:
			return nil, false
		}
	}
	return out, true
}

func genLostIndentation(g *gen, f *src) (*Case, bool) {
	p, ok := g.pickBlock(f, 3, 8, false, func(blk []string) bool { return commonIndent(blk) != "" })
	if !ok {
		return nil, false
	}
	ci := commonIndent(p.block)
	drop, desc := ci, fmt.Sprintf("all %s of common indentation lost (SEARCH and REPLACE)", describeWS(ci))
	unit := "\t"
	if ci[0] == ' ' {
		unit = "    "
		if g.lang == langMD {
			unit = "  "
		}
	}
	if len(ci) > len(unit) && strings.HasPrefix(ci, unit) && g.rng.IntN(3) == 0 {
		drop, desc = unit, fmt.Sprintf("one level (%s) of indentation lost (SEARCH and REPLACE)", describeWS(unit))
	}
	ds, ok1 := dedent(p.block, drop)
	dr, ok2 := dedent(p.newBlock, drop)
	if !ok1 || !ok2 {
		return nil, false
	}
	c := p.positive(desc, text(ds), text(dr))
	return c, checkPositive(c, true)
}

func describeWS(s string) string {
	t, sp := strings.Count(s, "\t"), strings.Count(s, " ")
	var parts []string
	if t > 0 {
		parts = append(parts, fmt.Sprintf("%d tab(s)", t))
	}
	if sp > 0 {
		parts = append(parts, fmt.Sprintf("%d space(s)", sp))
	}
	return strings.Join(parts, " and ")
}

func tabsToSpaces(blk []string, width int) []string {
	out := make([]string, len(blk))
	for i, s := range blk {
		n := len(s) - len(strings.TrimLeft(s, "\t"))
		out[i] = strings.Repeat(" ", n*width) + s[n:]
	}
	return out
}

func genTabsAsSpaces(g *gen, f *src) (*Case, bool) {
	p, ok := g.pickBlock(f, 3, 8, false, func(blk []string) bool {
		n := 0
		for _, s := range blk {
			if strings.HasPrefix(s, "\t") {
				n++
			}
		}
		return n >= 2
	})
	if !ok {
		return nil, false
	}
	width := pickOne(g.rng, []int{4, 4, 4, 2, 8})
	c := p.positive(fmt.Sprintf("leading tabs written as %d spaces each (SEARCH and REPLACE)", width),
		text(tabsToSpaces(p.block, width)), text(tabsToSpaces(p.newBlock, width)))
	return c, checkPositive(c, true)
}

func genStrayBlankLine(g *gen, f *src) (*Case, bool) {
	p, ok := g.pickBlock(f, 3, 8, false, nil)
	if !ok {
		return nil, false
	}
	// Positions: before line k of the block (k == len: after the last line).
	// Half the cases put the blank line at an edge of SEARCH (models often
	// start or end a block with a spurious blank line), half between two
	// lines inside it.
	var edge, inner []int
	if !isBlank(p.ex[p.s-1]) {
		edge = append(edge, 0)
	}
	for k := 1; k < len(p.block); k++ {
		if !isBlank(p.block[k-1]) && !isBlank(p.block[k]) {
			inner = append(inner, k)
		}
	}
	if p.e < len(p.ex) && !isBlank(p.ex[p.e]) {
		edge = append(edge, len(p.block))
	}
	pos := inner
	if g.n%2 == 0 {
		pos = edge
	}
	if len(pos) == 0 {
		return nil, false // try another block
	}
	chosen := map[int]bool{pickOne(g.rng, pos): true}
	if all := append(clone2(edge), inner...); len(all) > 2 && g.rng.IntN(5) == 0 {
		chosen[pickOne(g.rng, all)] = true
	}
	indented := g.rng.IntN(5) == 0
	var ds []string
	var where []string
	for k := 0; k <= len(p.block); k++ {
		if chosen[k] {
			bl := ""
			if indented {
				ref := p.block[min(k, len(p.block)-1)]
				bl = lead(ref)
			}
			ds = append(ds, bl)
			switch k {
			case 0:
				where = append(where, "at the start")
			case len(p.block):
				where = append(where, "at the end")
			default:
				where = append(where, fmt.Sprintf("after line %d", k))
			}
		}
		if k < len(p.block) {
			ds = append(ds, p.block[k])
		}
	}
	desc := "stray blank line " + strings.Join(where, " and ")
	if indented {
		desc += " (holding the indentation)"
	}
	c := p.positive(desc, text(ds), text(p.newBlock))
	return c, checkPositive(c, true)
}

func genElision(g *gen, f *src) (*Case, bool) {
	ex, first, ok := g.excerpt(f, 40, 90)
	if !ok {
		return nil, false
	}
	L := 10 + g.rng.IntN(15)
	if len(ex) < L+2 {
		return nil, false
	}
	s := 1 + g.rng.IntN(len(ex)-L-1)
	e := s + L
	h, t := 2+g.rng.IntN(2), 2+g.rng.IntN(2)
	head, mid, tail := clone(ex[s:s+h]), ex[s+h:e-t], clone(ex[e-t:e])
	if !substantial(head, 1, 25) || !substantial(tail, 1, 25) || !unique(ex, head) || !unique(ex, tail) || len(mid) < 4 {
		return nil, false
	}
	for _, m := range mid {
		if strings.TrimSpace(m) == "..." {
			return nil, false
		}
	}
	editTail := g.rng.IntN(2) == 0
	nh, nt := head, tail
	var desc string
	if editTail {
		nt, desc, ok = applyEdit(f.ctx(g, text(ex), first+e-t, first+e), tail)
		desc = "in the lines after the elision: " + desc
	} else {
		nh, desc, ok = applyEdit(f.ctx(g, text(ex), first+s, first+s+h), head)
		desc = "in the lines before the elision: " + desc
	}
	if !ok {
		return nil, false
	}
	marker := "..."
	if g.rng.IntN(3) == 0 {
		for _, m := range mid {
			if !isBlank(m) {
				marker = lead(m) + "..."
				break
			}
		}
	}
	search := append(append(clone(head), marker), tail...)
	replace := append(append(clone(nh), marker), nt...)
	newEx := append(append(append(append(clone(ex[:s]), nh...), mid...), nt...), ex[e:]...)
	p := &pick{f: f, ex: ex, first: first, s: s, e: e, edit: desc}
	c := &Case{
		Path:     filepath.Base(f.path),
		Header:   p.header(fmt.Sprintf("%d lines elided as %q (kept %d before, %d after)", len(mid), marker, h, t)),
		Expect:   "apply",
		Original: text(ex),
		Search:   text(search),
		Replace:  text(replace),
		Expected: text(newEx),
	}
	if strings.Count(c.Original, text(head)) != 1 || strings.Count(c.Original, text(tail)) != 1 ||
		strings.Contains(c.Original, text(nh)) && text(nh) != text(head) || strings.Contains(c.Original, text(nt)) && text(nt) != text(tail) {
		return nil, false
	}
	return c, true
}

var keyboard = map[byte]string{
	'a': "qs", 'b': "vn", 'c': "xv", 'd': "sf", 'e': "wr", 'f': "dg", 'g': "fh", 'h': "gj", 'i': "uo",
	'j': "hk", 'k': "jl", 'l': "k", 'm': "n", 'n': "bm", 'o': "ip", 'p': "o", 'q': "w", 'r': "et",
	's': "ad", 't': "ry", 'u': "yi", 'v': "cb", 'w': "qe", 'x': "zc", 'y': "tu", 'z': "x",
}

func genOneCharSlip(g *gen, f *src) (*Case, bool) {
	p, ok := g.pickBlock(f, 4, 8, false, func(blk []string) bool { return substantial(blk, 3, 60) })
	if !ok {
		return nil, false
	}
	var lines []int
	for i, s := range p.block {
		if nonSpace(s) >= 15 {
			lines = append(lines, i)
		}
	}
	if len(lines) == 0 {
		return nil, false
	}
	li := pickOne(g.rng, lines)
	s := p.block[li]
	ind := len(lead(s))
	end := len(strings.TrimRight(s, " \t"))
	pos := ind + g.rng.IntN(end-ind)
	var ns, what string
	switch g.rng.IntN(4) {
	case 0: // substitute a neighbouring key
		c := s[pos]
		lc := c | 0x20
		nk, ok := keyboard[lc]
		if !ok {
			return nil, false
		}
		r := nk[g.rng.IntN(len(nk))]
		if c >= 'A' && c <= 'Z' {
			r -= 0x20
		}
		ns, what = s[:pos]+string(r)+s[pos+1:], fmt.Sprintf("%q typed as %q", c, r)
	case 1: // drop a character
		ns, what = s[:pos]+s[pos+1:], fmt.Sprintf("%q dropped", s[pos])
	case 2: // double a character
		ns, what = s[:pos+1]+s[pos:], fmt.Sprintf("%q doubled", s[pos])
	case 3: // swap two characters
		if pos+1 >= end || s[pos] == s[pos+1] {
			return nil, false
		}
		ns, what = s[:pos]+string(s[pos+1])+string(s[pos])+s[pos+2:], fmt.Sprintf("%q and %q swapped", s[pos], s[pos+1])
	}
	if !utf8.ValidString(ns) || ns == s {
		return nil, false
	}
	ds := clone(p.block)
	ds[li] = ns
	// No other place in the excerpt may come close: every other window of
	// the same height must differ in at least half its lines.
	for st := 0; st+len(p.block) <= len(p.ex); st++ {
		if st == p.s {
			continue
		}
		same := 0
		for k := range p.block {
			if strings.TrimSpace(p.ex[st+k]) == strings.TrimSpace(ds[k]) {
				same++
			}
		}
		if same*2 > len(p.block) {
			return nil, false
		}
	}
	c := p.positive(fmt.Sprintf("one-character slip in line %d of SEARCH: %s at column %d", li+1, what, pos+1), text(ds), text(p.newBlock))
	return c, checkPositive(c, true)
}

func genOccursTwice(g *gen, f *src) (*Case, bool) {
	ex, first, ok := g.excerpt(f, 40, 90)
	if !ok {
		return nil, false
	}
	var blk []string
	var how string
	s := -1
	if g.rng.IntN(5) < 3 {
		// a block that really occurs more than once in the file
		type cand struct{ s, L int }
		var cands []cand
		for L := 2; L <= 5; L++ {
			for st := 0; st+L <= len(ex); st++ {
				b := ex[st : st+L]
				if substantial(b, 1, 20) && windows(ex, b) >= 2 && windows(ex[:st], b) == 0 {
					cands = append(cands, cand{st, L})
				}
			}
		}
		if len(cands) > 0 {
			c := pickOne(g.rng, cands)
			s, blk = c.s, clone(ex[c.s:c.s+c.L])
			how = fmt.Sprintf("the block occurs %d times in the real file excerpt", windows(ex, blk))
		}
	}
	if blk == nil {
		// copy a block to a second place, at a paragraph boundary
		L := 3 + g.rng.IntN(4)
		if len(ex) < L+6 {
			return nil, false
		}
		s = 1 + g.rng.IntN(len(ex)-L-1)
		blk = clone(ex[s : s+L])
		if !substantial(blk, 2, 40) || !unique(ex, blk) {
			return nil, false
		}
		var at []int
		for j := 1; j < len(ex); j++ {
			if isBlank(ex[j-1]) && (j <= s-2 || j >= s+L+2) {
				at = append(at, j)
			}
		}
		if len(at) == 0 {
			return nil, false
		}
		j := pickOne(g.rng, at)
		nex := append(clone(ex[:j]), blk...)
		nex = append(nex, "")
		ex = append(nex, ex[j:]...)
		how = fmt.Sprintf("a copy of the block was pasted at line %d", j+1)
	}
	if strings.Count(text(ex), text(blk)) < 2 {
		return nil, false
	}
	nb, desc, ok := applyEdit(f.ctx(g, text(ex), first+s, first+s+len(blk)), blk)
	if !ok {
		return nil, false
	}
	search, damage := blk, "none: SEARCH matches exactly, twice"
	if g.rng.IntN(3) == 0 {
		search, damage = g.trailingSpaces(blk)
		damage += "; both places match equally"
	}
	p := &pick{f: f, ex: ex, first: first, edit: desc}
	return &Case{
		Path: filepath.Base(f.path),
		Header: [][2]string{
			{"source", fmt.Sprintf("%s lines %d-%d", displayPath(f.path), first+1, first+len(ex))},
			{"duplicate", how},
			{"edit", p.edit},
			{"damage", damage},
		},
		Expect:   "refuse",
		Error:    "ambiguous",
		Original: text(ex),
		Search:   text(search),
		Replace:  text(nb),
	}, true
}

func genOtherFile(g *gen, f *src) (*Case, bool) {
	ex, first, ok := g.excerpt(f, 40, 90)
	if !ok {
		return nil, false
	}
	var others []*src
	for _, o := range g.all {
		if o.path != f.path {
			others = append(others, o)
		}
	}
	o := pickOne(g.rng, others)
	p, ok := g.pickBlock(o, 3, 8, false, nil)
	if !ok {
		return nil, false
	}
	have := map[string]bool{}
	for _, s := range ex {
		have[strings.TrimSpace(s)] = true
	}
	for _, s := range append(clone(p.block), p.newBlock...) {
		if t := strings.TrimSpace(s); nonSpace(t) >= 6 && have[t] {
			return nil, false
		}
	}
	c := &Case{
		Path: filepath.Base(f.path),
		Header: [][2]string{
			{"source", fmt.Sprintf("%s lines %d-%d", displayPath(f.path), first+1, first+len(ex))},
			{"search-from", fmt.Sprintf("%s lines %d-%d", displayPath(o.path), p.first+p.s+1, p.first+p.e)},
			{"edit", p.edit},
			{"damage", "SEARCH and REPLACE belong to another file"},
		},
		Expect:   "refuse",
		Error:    "no-match",
		Original: text(ex),
		Search:   text(p.block),
		Replace:  text(p.newBlock),
	}
	return c, strings.Count(c.Original, c.Search) == 0
}

func genAlreadyApplied(g *gen, f *src) (*Case, bool) {
	p, ok := g.pickBlock(f, 3, 8, false, nil)
	if !ok {
		return nil, false
	}
	orig := p.edited()
	c := &Case{
		Path:     filepath.Base(f.path),
		Header:   p.header("none: the file already holds REPLACE and no longer holds SEARCH"),
		Expect:   "already-applied",
		Error:    "already-applied",
		Original: text(orig),
		Search:   text(p.block),
		Replace:  text(p.newBlock),
	}
	c.Header[1][1] = fmt.Sprintf("original lines %d-%d hold the edited block", p.s+1, p.s+len(p.newBlock))
	return c, strings.Count(c.Original, c.Search) == 0 && strings.Count(c.Original, c.Replace) == 1 && windows(norm(orig), norm(p.block)) == 0
}

func clone2(xs []int) []int { return append([]int(nil), xs...) }

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

func genCRLF(g *gen, f *src) (*Case, bool) {
	p, ok := g.pickBlock(f, 3, 8, false, nil)
	if !ok {
		return nil, false
	}
	search, damage := p.block, "none"
	if g.rng.IntN(3) == 0 {
		search, damage = g.trailingSpaces(p.block)
	}
	c := p.positive("file uses CRLF, SEARCH and REPLACE use LF; "+damage, text(search), text(p.newBlock))
	if !checkPositive(c, damage != "none") {
		return nil, false
	}
	c.Original, c.Expected = crlf(c.Original), crlf(c.Expected)
	return c, true
}

func genNoFinalNewline(g *gen, f *src) (*Case, bool) {
	atEnd := g.rng.IntN(3) != 0
	p, ok := g.pickBlock(f, 3, 8, atEnd, nil)
	if !ok {
		return nil, false
	}
	search, replace := text(p.block), text(p.newBlock)
	where := "the block ends the file"
	if !atEnd {
		where = "the block is inside the file"
	}
	eol := "SEARCH and REPLACE end with a newline"
	if g.rng.IntN(2) == 0 {
		search, replace = strings.TrimSuffix(search, "\n"), strings.TrimSuffix(replace, "\n")
		eol = "SEARCH and REPLACE have no final newline"
	}
	c := p.positive(fmt.Sprintf("file has no final newline; %s; %s", where, eol), search, replace)
	c.Original = strings.TrimSuffix(c.Original, "\n")
	c.Expected = strings.TrimSuffix(c.Expected, "\n")
	if strings.Count(c.Original, strings.TrimSuffix(search, "\n")) != 1 || strings.Contains(c.Original, strings.TrimSuffix(replace, "\n")) {
		return nil, false
	}
	return c, true
}
