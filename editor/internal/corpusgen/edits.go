package main

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// The intended edits: small, realistic changes a model is asked to make.
// Each takes the block's lines and returns the edited lines and a one-line
// description, or ok == false when it does not apply to this block.

type editCtx struct {
	lang  lang
	rng   *rand.Rand
	all   string   // the whole original excerpt: new text must not already be in it
	code  []bool   // per block line: the line is code (Go, Python: not inside a multi-line string; Markdown: fenced or tab-indented)
	masks [][]bool // per block line and byte: code, not string or comment
	inStr []bool   // per block line: a multi-line string is open at its start or end
	unit  string   // one level of indentation in the file: a tab or four spaces
}

type editFunc func(x *editCtx, b []string) ([]string, string, bool)

func editsFor(l lang) []editFunc {
	switch l {
	case langMD:
		return []editFunc{mdReword, mdReword, mdAppendSentence, mdInsertLine, mdHeading, mdDeleteLine, editRename}
	default:
		return []editFunc{editRename, editCondition, editInsertLine, editInsertLine, editAddParam, editStringLit, editDeleteLine}
	}
}

// applyEdit tries the language's edits in random order until one applies.
func applyEdit(x *editCtx, b []string) ([]string, string, bool) {
	fs := editsFor(x.lang)
	for _, i := range x.rng.Perm(len(fs)) {
		nb, desc, ok := fs[i](x, b)
		if ok && strings.Join(nb, "\n") != strings.Join(b, "\n") {
			return nb, desc, true
		}
	}
	return nil, "", false
}

func clone(b []string) []string { return append([]string(nil), b...) }

func lead(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func pickOne[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// codeMask marks, for each byte of each line, whether it is code: not inside
// a string literal or comment. It is approximate: Python triple-quoted
// strings and Go raw strings are followed across lines, other strings end at
// the end of the line.
func codeMask(l lang, lines []string) [][]bool {
	m, _ := codeMaskOpen(l, lines)
	return m
}

// codeMaskOpen is codeMask that also reports, for each line, whether a
// multi-line string is open at its start or end.
func codeMaskOpen(l lang, lines []string) ([][]bool, []bool) {
	masks := make([][]bool, len(lines))
	inStr := make([]bool, len(lines))
	open := ""
	for i, s := range lines {
		inStr[i] = open != ""
		m := make([]bool, len(s))
		j := 0
		for j < len(s) {
			if open != "" {
				if strings.HasPrefix(s[j:], open) {
					j += len(open)
					open = ""
					continue
				}
				j++
				continue
			}
			c := s[j]
			switch {
			case l == langGo && strings.HasPrefix(s[j:], "//"):
				j = len(s)
			case l == langPy && c == '#':
				j = len(s)
			case l == langPy && (strings.HasPrefix(s[j:], `"""`) || strings.HasPrefix(s[j:], "'''")):
				open = s[j : j+3]
				j += 3
			case l == langGo && c == '`':
				open = "`"
				j++
			case c == '"' || c == '\'':
				k := j + 1
				for k < len(s) && s[k] != c {
					if s[k] == '\\' {
						k++
					}
					k++
				}
				j = k + 1
			default:
				m[j] = true
				j++
			}
		}
		masks[i] = m
		inStr[i] = inStr[i] || open != ""
	}
	return masks, inStr
}

// depths returns the bracket depth before each line (and after the last).
func depths(masks [][]bool, b []string) []int {
	d := make([]int, len(b)+1)
	cur := 0
	for i, s := range b {
		d[i] = cur
		for j := 0; j < len(s); j++ {
			if !masks[i][j] {
				continue
			}
			switch s[j] {
			case '(', '[':
				cur++
			case ')', ']':
				cur--
			}
		}
	}
	d[len(b)] = cur
	return d
}

var goKeywords = setOf(`break case chan const continue default defer else fallthrough for func go goto if
import interface map package range return select struct switch type var nil true false iota append cap
close complex copy delete imag len make new panic print println real recover bool byte complex64
complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64
uintptr any comparable min max clear err ok ctx`)

var pyKeywords = setOf(`False None True and as assert async await break class continue def del elif else
except finally for from global if import in is lambda nonlocal not or pass raise return try while with
yield self cls print len str int list dict set tuple isinstance range super object type bool float bytes
open iter next getattr setattr hasattr repr sorted min max sum any all enumerate zip map filter os sys`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// editRename renames a local identifier everywhere in the block.
func editRename(x *editCtx, b []string) ([]string, string, bool) {
	ml := x.lang
	if ml == langMD {
		ml = langGo // the fenced code in the Markdown sources is mostly Go
	}
	kw := goKeywords
	if ml == langPy {
		kw = pyKeywords
	}
	masks := x.masks
	type occ struct{ line, start, end int }
	occs := map[string][]occ{}
	bad := map[string]bool{}
	dotted := map[string]int{} // occurrences followed by '.': likely a package
	for i, s := range b {
		if !x.code[i] {
			continue
		}
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from ") || strings.HasPrefix(t, "package ") {
			continue
		}
		for _, loc := range identRE.FindAllStringIndex(s, -1) {
			id := s[loc[0]:loc[1]]
			if !masks[i][loc[0]] {
				continue
			}
			if loc[0] > 0 {
				p := rune(s[loc[0]-1])
				if p == '.' || unicode.IsDigit(p) || p == '$' || p == '@' {
					continue
				}
			}
			rest := strings.TrimLeft(s[loc[1]:], " ")
			if strings.HasPrefix(s[loc[1]:], ".") {
				dotted[id]++
			}
			if strings.HasPrefix(rest, "(") {
				bad[id] = true // a call: not a plain variable
			}
			atStart := strings.TrimSpace(s[:loc[0]]) == ""
			if ml == langGo && strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, ":=") && !atStart {
				bad[id] = true // a struct literal key
			}
			if ml == langPy && strings.HasPrefix(s[loc[1]:], "=") && !strings.HasPrefix(s[loc[1]:], "==") {
				bad[id] = true // a keyword argument (assignments have spaces)
			}
			if x.lang == langMD && !strings.ContainsAny(id[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") {
				bad[id] = true // in prose-like fenced text only clear identifiers
			}
			occs[id] = append(occs[id], occ{i, loc[0], loc[1]})
		}
	}
	var many, one []string
	for id, os := range occs {
		if bad[id] || kw[id] || len(id) < 2 || !unicode.IsLower(rune(id[0])) || dotted[id] == len(os) {
			continue
		}
		if len(os) >= 2 {
			many = append(many, id)
		} else {
			one = append(one, id)
		}
	}
	sort.Strings(many)
	sort.Strings(one)
	cands := many
	if len(cands) == 0 {
		cands = one
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	id := pickOne(x.rng, cands)
	suffixes := []string{"Val", "Cur", "Tmp", "Next", "Res"}
	if ml == langPy {
		suffixes = []string{"_val", "_cur", "_tmp", "_new", "_res"}
	}
	nn := id + pickOne(x.rng, suffixes)
	if strings.Contains(x.all, nn) {
		return nil, "", false
	}
	nb := clone(b)
	os := occs[id]
	for k := len(os) - 1; k >= 0; k-- {
		o := os[k]
		nb[o.line] = nb[o.line][:o.start] + nn + nb[o.line][o.end:]
	}
	return nb, fmt.Sprintf("rename %s to %s (%d places)", id, nn, len(os)), true
}

var (
	goCondRE = regexp.MustCompile(`^(\s*(?:\} else )?(?:if|for) )(.*)( \{)$`)
	pyCondRE = regexp.MustCompile(`^(\s*(?:if|elif|while) )(.*)(:)$`)
)

// swapOp changes the first comparison in cond.
func swapOp(l lang, cond string) (string, string, bool) {
	pairs := [][2]string{{" == ", " != "}, {" != ", " == "}, {" <= ", " < "}, {" >= ", " > "}, {" < ", " <= "}, {" > ", " >= "}}
	if l == langPy {
		pairs = append(pairs, [][2]string{{" is not ", " is "}, {" is ", " is not "}, {" not in ", " in "}, {" in ", " not in "}}...)
	}
	best, bestPos := -1, len(cond)+1
	for i, p := range pairs {
		pos := strings.Index(cond, p[0])
		if pos < 0 {
			continue
		}
		if pos < bestPos || (pos == bestPos && len(p[0]) > len(pairs[best][0])) {
			best, bestPos = i, pos
		}
	}
	if best < 0 {
		return "", "", false
	}
	p := pairs[best]
	return cond[:bestPos] + p[1] + cond[bestPos+len(p[0]):], fmt.Sprintf("%q to %q", strings.TrimSpace(p[0]), strings.TrimSpace(p[1])), true
}

// editCondition changes a condition: flips a comparison or adds a clause.
func editCondition(x *editCtx, b []string) ([]string, string, bool) {
	re := goCondRE
	and := " && !skip"
	if x.lang == langPy {
		re = pyCondRE
		and = " and not skip"
	}
	var cands []int
	for i, s := range b {
		if x.code[i] && re.MatchString(s) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	i := pickOne(x.rng, cands)
	m := re.FindStringSubmatch(b[i])
	cond := m[2]
	nc, what, ok := swapOp(x.lang, cond)
	if !ok || x.rng.IntN(4) == 0 {
		if strings.Contains(m[1], "for ") || strings.Contains(m[1], "while ") || strings.Contains(cond, ";") {
			if !ok {
				return nil, "", false
			}
		} else {
			nc, what = cond+and, "add"+and
		}
	}
	nb := clone(b)
	nb[i] = m[1] + nc + m[3]
	return nb, fmt.Sprintf("change the condition on line %d: %s", i+1, what), true
}

// insertOK reports whether a statement may be inserted after line i, and the
// indentation it takes.
func insertOK(l lang, unit string, b []string, d []int, i int) (string, bool) {
	s := b[i]
	t := strings.TrimSpace(s)
	if t == "" || d[i] != 0 || d[i+1] != 0 {
		return "", false
	}
	for _, dd := range d[:i+1] {
		if dd < 0 {
			return "", false
		}
	}
	if i+1 < len(b) {
		n := strings.TrimSpace(b[i+1])
		for _, p := range []string{".", ")", "]", "&&", "||", "+", "and ", "or ", "else", "elif", "except", "finally", "case ", "default:"} {
			if strings.HasPrefix(n, p) && !(p == "else" && l == langGo) {
				return "", false
			}
		}
	}
	ind := lead(s)
	switch l {
	case langGo:
		if strings.HasPrefix(t, "//") {
			return "", false
		}
		for _, p := range []string{"return", "break", "continue", "goto", "panic(", "fallthrough"} {
			if strings.HasPrefix(t, p) {
				return "", false
			}
		}
		switch {
		case strings.HasSuffix(t, "{"):
			ok := false
			for _, p := range []string{"if ", "for ", "func ", "} else", "else"} {
				ok = ok || strings.HasPrefix(t, p)
			}
			if !ok || strings.HasPrefix(t, "func (") && !strings.Contains(t, ") ") {
				return "", false
			}
			return ind + unit, true
		case (strings.HasPrefix(t, "case ") || t == "default:") && strings.HasSuffix(t, ":"):
			return ind + unit, true
		case strings.HasPrefix(t, "}") && t != "}":
			return "", false
		}
		last := t[len(t)-1]
		if last == ')' || last == '"' || last == '}' || last == ']' || unicode.IsLetter(rune(last)) || unicode.IsDigit(rune(last)) || last == '+' && strings.HasSuffix(t, "++") || last == '-' && strings.HasSuffix(t, "--") {
			return ind, true
		}
	case langPy:
		if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "@") {
			return "", false
		}
		for _, p := range []string{"return", "raise", "break", "continue", "pass", "yield"} {
			if t == p || strings.HasPrefix(t, p+" ") {
				return "", false
			}
		}
		if strings.HasSuffix(t, ":") {
			for _, p := range []string{"if ", "elif ", "else:", "for ", "while ", "def ", "try:", "except", "finally:", "with "} {
				if strings.HasPrefix(t, p) {
					return ind + unit, true
				}
			}
			return "", false
		}
		if strings.Contains(t, `"""`) || strings.Contains(t, "'''") {
			return "", false
		}
		last := t[len(t)-1]
		if last == ')' || last == '"' || last == '\'' || last == ']' || last == '}' || unicode.IsLetter(rune(last)) || unicode.IsDigit(rune(last)) {
			return ind, true
		}
	}
	return "", false
}

// editInsertLine inserts a log statement or a comment after a statement.
func editInsertLine(x *editCtx, b []string) ([]string, string, bool) {
	d := depths(x.masks, b)
	inStr := x.inStr
	type cand struct {
		i   int
		ind string
	}
	var cands []cand
	for i := range b {
		if inStr[i] || !x.code[i] {
			continue // inside a multi-line string
		}
		if ind, ok := insertOK(x.lang, x.unit, b, d, i); ok {
			cands = append(cands, cand{i, ind})
		}
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	c := pickOne(x.rng, cands)
	n := 1 + x.rng.IntN(99)
	var tmpl []string
	if x.lang == langGo {
		tmpl = []string{
			`log.Printf("lunad: checkpoint %d reached")`,
			`slog.Debug("lunad: step", "n", %d)`,
			`// NOTE(lunad): keep in sync with the caller (see #%d).`,
			`debugf("state %d: ok")`,
		}
	} else {
		tmpl = []string{
			`logger.debug("checkpoint %d reached")`,
			`# NOTE: keep in sync with the caller (see #%d).`,
			`print(f"debug: step %d")`,
			`_trace(%d)`,
		}
	}
	line := c.ind + fmt.Sprintf(pickOne(x.rng, tmpl), n)
	if strings.Contains(x.all, strings.TrimSpace(line)) {
		return nil, "", false
	}
	nb := append(clone(b[:c.i+1]), line)
	nb = append(nb, b[c.i+1:]...)
	return nb, fmt.Sprintf("insert %q after line %d", strings.TrimSpace(line), c.i+1), true
}

var (
	goFuncRE = regexp.MustCompile(`^(\s*func (?:\([^()]*\) )?\w+(?:\[[^\]]*\])?\()([^()]*)(\).*\{)$`)
	pyDefRE  = regexp.MustCompile(`^(\s*(?:async )?def \w+\()([^()]*)(\).*:)$`)
)

// editAddParam adds a parameter to a function signature.
func editAddParam(x *editCtx, b []string) ([]string, string, bool) {
	re := goFuncRE
	if x.lang == langPy {
		re = pyDefRE
	}
	for i, s := range b {
		m := re.FindStringSubmatch(s)
		if m == nil || !x.code[i] {
			continue
		}
		params := m[2]
		var np, what string
		if x.lang == langGo {
			if strings.Contains(params, "ctx") {
				continue
			}
			what = "ctx context.Context"
			np = what
			if strings.TrimSpace(params) != "" {
				np += ", " + params
			}
		} else {
			if strings.Contains(params, "**") || strings.Contains(params, "verbose") {
				continue
			}
			what = "verbose=False"
			np = what
			if strings.TrimSpace(params) != "" {
				np = strings.TrimRight(params, ", ") + ", " + what
			}
		}
		nb := clone(b)
		nb[i] = m[1] + np + m[3]
		return nb, fmt.Sprintf("add parameter %s on line %d", what, i+1), true
	}
	return nil, "", false
}

var strLitRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// editStringLit rewords a message in a string literal.
func editStringLit(x *editCtx, b []string) ([]string, string, bool) {
	type cand struct{ i, s, e int }
	var cands []cand
	for i, s := range b {
		if !x.code[i] || x.inStr[i] {
			continue
		}
		for _, loc := range strLitRE.FindAllStringSubmatchIndex(s, -1) {
			before := s[:loc[0]]
			if strings.Contains(before, "//") || strings.Contains(before, "#") || strings.Count(before, `"`)%2 != 0 || strings.Contains(before, "`") {
				continue
			}
			body := s[loc[2]:loc[3]]
			if strings.Count(body, " ") < 1 || len(body) < 8 {
				continue
			}
			cands = append(cands, cand{i, loc[2], loc[3]})
		}
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	c := pickOne(x.rng, cands)
	body := b[c.i][c.s:c.e]
	nbody, ok := rewordText(x.rng, body)
	if !ok {
		if body[0] >= 'a' && body[0] <= 'z' && !strings.HasPrefix(body, "unexpected") {
			nbody = "unexpected " + body
		} else {
			return nil, "", false
		}
	}
	nb := clone(b)
	nb[c.i] = b[c.i][:c.s] + nbody + b[c.i][c.e:]
	return nb, fmt.Sprintf("reword the message %q on line %d", body, c.i+1), true
}

// editDeleteLine removes a comment or a simple statement.
func editDeleteLine(x *editCtx, b []string) ([]string, string, bool) {
	if len(b) < 3 {
		return nil, "", false
	}
	d := depths(x.masks, b)
	var cands []int
	for i := 1; i < len(b)-1; i++ {
		t := strings.TrimSpace(b[i])
		if t == "" || !x.code[i] || x.inStr[i] {
			continue
		}
		pt := strings.TrimSpace(b[i-1])
		if len(lead(b[i+1])) > len(lead(b[i])) {
			continue // the line opens something
		}
		if (strings.HasSuffix(pt, ":") || strings.HasSuffix(pt, "{")) && len(lead(b[i+1])) < len(lead(b[i])) {
			continue // the only statement of a block
		}
		comment := strings.HasPrefix(t, "//") && x.lang == langGo || strings.HasPrefix(t, "#") && x.lang == langPy
		if comment {
			cands = append(cands, i)
			continue
		}
		if d[i] != 0 || d[i+1] != 0 || strings.ContainsAny(t[len(t)-1:], "{:(,[\\") || strings.ContainsAny(t[:1], "})]") {
			continue
		}
		if strings.Contains(t, `"""`) || strings.Contains(t, "'''") || strings.Contains(t, "`") {
			continue
		}
		cands = append(cands, i)
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	i := pickOne(x.rng, cands)
	nb := append(clone(b[:i]), b[i+1:]...)
	return nb, fmt.Sprintf("delete line %d (%q)", i+1, strings.TrimSpace(b[i])), true
}

// ---- Markdown ----

var synonyms = map[string]string{
	"use": "employ", "uses": "employs", "used": "employed", "can": "may", "must": "should",
	"will": "would", "file": "document", "files": "documents", "example": "sample",
	"following": "next", "show": "display", "shows": "displays", "create": "make",
	"returns": "yields", "value": "setting", "default": "standard", "install": "set up",
	"run": "execute", "runs": "executes", "new": "fresh", "also": "additionally", "only": "just",
	"need": "require", "needs": "requires", "allows": "lets", "when": "whenever", "list": "listing",
	"version": "release", "support": "handle", "supports": "handles", "information": "details",
	"specify": "set", "option": "flag", "options": "flags", "directory": "folder", "called": "named",
	"change": "modify", "changes": "modifies", "each": "every", "first": "initial", "should": "ought to",
	"more": "further", "simple": "plain", "different": "distinct", "current": "present",
	"automatically": "implicitly", "usually": "typically", "because": "since", "without": "lacking",
	"provides": "offers", "contains": "holds", "describes": "explains", "required": "mandatory",
	"possible": "feasible", "available": "accessible", "function": "routine", "program": "binary",
	"added": "introduced", "fixed": "corrected", "removed": "dropped", "error": "failure",
	"errors": "failures", "large": "big", "small": "little", "quickly": "rapidly", "see": "consult",
	"instead": "rather", "however": "though", "then": "next", "package": "module", "packages": "modules",
}

var wordRE = regexp.MustCompile(`[A-Za-z]+`)

// rewordText replaces one word with a synonym, outside inline code and links.
func rewordText(r *rand.Rand, s string) (string, bool) {
	type cand struct{ s, e int }
	var cands []cand
	for _, loc := range wordRE.FindAllStringIndex(s, -1) {
		w := s[loc[0]:loc[1]]
		if _, ok := synonyms[strings.ToLower(w)]; !ok {
			continue
		}
		before := s[:loc[0]]
		if strings.Count(before, "`")%2 != 0 || strings.Count(before, "](") > strings.Count(before, ")") {
			continue
		}
		if loc[0] > 0 && strings.ContainsAny(s[loc[0]-1:loc[0]], "-_/.$<{[") || loc[1] < len(s) && strings.ContainsAny(s[loc[1]:loc[1]+1], "-_/({>]") {
			continue
		}
		cands = append(cands, cand{loc[0], loc[1]})
	}
	if len(cands) == 0 {
		return "", false
	}
	c := pickOne(r, cands)
	w := s[c.s:c.e]
	rep := synonyms[strings.ToLower(w)]
	if unicode.IsUpper(rune(w[0])) {
		rep = strings.ToUpper(rep[:1]) + rep[1:]
	}
	return s[:c.s] + rep + s[c.e:], true
}

var bulletRE = regexp.MustCompile(`^(\s*)([-*+]|\d+[.)])(\s+)\S`)

// isProse reports whether line i of the block is Markdown prose.
func isProse(x *editCtx, b []string, i int) bool {
	t := strings.TrimSpace(b[i])
	if x.code[i] || t == "" || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "#") ||
		strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "[") && strings.Contains(t, "]:") {
		return false
	}
	return len(strings.Fields(t)) >= 4
}

func mdReword(x *editCtx, b []string) ([]string, string, bool) {
	var cands []int
	for i := range b {
		if isProse(x, b, i) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	i := pickOne(x.rng, cands)
	ns, ok := rewordText(x.rng, b[i])
	if !ok {
		return nil, "", false
	}
	nb := clone(b)
	nb[i] = ns
	return nb, fmt.Sprintf("reword line %d of the paragraph", i+1), true
}

var sentences = []string{
	"This behaviour may change in a future release.",
	"See the release notes for details.",
	"Note that this applies on every platform.",
	"The default was chosen for compatibility.",
	"Check the logs first if this step fails.",
	"Older versions behave differently here.",
	"This is rarely needed in practice.",
}

func mdAppendSentence(x *editCtx, b []string) ([]string, string, bool) {
	var cands []int
	for i := range b {
		if isProse(x, b, i) && strings.HasSuffix(strings.TrimSpace(b[i]), ".") && (i+1 == len(b) || isBlank(b[i+1])) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	i := pickOne(x.rng, cands)
	s := pickOne(x.rng, sentences)
	if strings.Contains(x.all, s) {
		return nil, "", false
	}
	nb := clone(b)
	nb[i] = strings.TrimRight(b[i], " ") + " " + s
	return nb, fmt.Sprintf("append a sentence to line %d", i+1), true
}

func mdInsertLine(x *editCtx, b []string) ([]string, string, bool) {
	type cand struct {
		i    int
		line string
	}
	n := 1 + x.rng.IntN(99)
	var cands []cand
	for i := range b {
		if x.code[i] {
			continue
		}
		if m := bulletRE.FindStringSubmatch(b[i]); m != nil {
			if i+1 < len(b) && !isBlank(b[i+1]) && !bulletRE.MatchString(b[i+1]) {
				continue // the item continues on the next line
			}
			marker := m[2]
			if marker[0] >= '0' && marker[0] <= '9' {
				marker = "1" + marker[len(marker)-1:]
			}
			cands = append(cands, cand{i, m[1] + marker + m[3] + fmt.Sprintf("Note %d: this item was added in review.", n)})
			continue
		}
		if isProse(x, b, i) && strings.HasSuffix(strings.TrimSpace(b[i]), ".") {
			cands = append(cands, cand{i, lead(b[i]) + pickOne(x.rng, sentences)})
		}
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	c := pickOne(x.rng, cands)
	if strings.Contains(x.all, strings.TrimSpace(c.line)) {
		return nil, "", false
	}
	nb := append(clone(b[:c.i+1]), c.line)
	nb = append(nb, b[c.i+1:]...)
	return nb, fmt.Sprintf("insert a line after line %d", c.i+1), true
}

var headingRE = regexp.MustCompile(`^(#{1,6} )(.+)$`)

func mdHeading(x *editCtx, b []string) ([]string, string, bool) {
	for i, s := range b {
		if x.code[i] {
			continue
		}
		m := headingRE.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		nt, ok := rewordText(x.rng, m[2])
		if !ok {
			nt = strings.TrimRight(m[2], " #") + " in detail"
		}
		nb := clone(b)
		nb[i] = m[1] + nt
		return nb, fmt.Sprintf("retitle the heading on line %d", i+1), true
	}
	return nil, "", false
}

func mdDeleteLine(x *editCtx, b []string) ([]string, string, bool) {
	var cands []int
	for i := 1; i < len(b)-1; i++ {
		if !isProse(x, b, i) {
			continue
		}
		if bulletRE.MatchString(b[i]) {
			// a whole one-line item between two items
			if bulletRE.MatchString(b[i+1]) && lead(b[i+1]) == lead(b[i]) {
				cands = append(cands, i)
			}
			continue
		}
		if isProse(x, b, i-1) && !bulletRE.MatchString(b[i-1]) && strings.HasSuffix(strings.TrimSpace(b[i-1]), ".") {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	i := pickOne(x.rng, cands)
	nb := append(clone(b[:i]), b[i+1:]...)
	return nb, fmt.Sprintf("delete line %d", i+1), true
}

// mdCodeLines marks the lines of a Markdown file that are code: inside a
// fence, or indented by a tab.
func mdCodeLines(ex []string) []bool {
	code := make([]bool, len(ex))
	in := false
	for i, s := range ex {
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			in = !in
			continue
		}
		code[i] = in || strings.HasPrefix(s, "\t")
	}
	return code
}
