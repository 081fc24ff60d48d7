package editor

import (
	"fmt"
	"strconv"
	"strings"
)

// matcher finds where lines of edit text are in a doc. The per-tier views
// of the doc's lines are computed when first needed.
type matcher struct {
	d        *doc
	trimmed  []string    // trailing whitespace removed
	stripped []string    // leading and trailing whitespace removed
	norm     []string    // whitespace runs collapsed, trimmed (fuzzy tier)
	fIdx     []int       // indices of the non-blank lines (blank-lines tier)
	unitF    map[int]int // usual indentation step of the file, by tab width
	tabsF    int         // whether the file indents with tabs: -1 unknown, 0, 1
	budget   int         // cells of edit-distance work left for the fuzzy tier
}

func newMatcher(d *doc) *matcher {
	return &matcher{d: d, unitF: map[int]int{}, tabsF: -1, budget: fuzzyBudget}
}

// outLine is one line of a replacement; eol "" means the doc's line ending.
type outLine struct{ text, eol string }

// plan is how one edit applies: lines [start, end) become out.
type plan struct {
	tier       Tier
	start, end int
	out        []outLine
}

func trimRight(s string) string { return strings.TrimRight(s, " \t\r") }

func trimSpace(s string) string { return strings.TrimSpace(s) }

func mapLines(ls []string, f func(string) string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = f(l)
	}
	return out
}

func (mt *matcher) view(t Tier) []string {
	switch t {
	case TierTrailingWhitespace:
		if mt.trimmed == nil {
			mt.trimmed = mapLines(mt.d.lines, trimRight)
		}
		return mt.trimmed
	case TierIndentation:
		if mt.stripped == nil {
			mt.stripped = mapLines(mt.d.lines, trimSpace)
		}
		return mt.stripped
	}
	return mt.d.lines
}

func (mt *matcher) tabs() bool {
	if mt.tabsF < 0 {
		mt.tabsF = 0
		if usesTabs(mt.d.lines) {
			mt.tabsF = 1
		}
	}
	return mt.tabsF == 1
}

func (mt *matcher) fileUnit(tw int) int {
	u, ok := mt.unitF[tw]
	if !ok {
		u = indentUnit(tw, mt.d.lines)
		mt.unitF[tw] = u
	}
	return u
}

// windows returns every i where fl[i:i+len(sl)] equals sl and ok(i) holds.
func windows(fl, sl []string, ok func(int) bool) []int {
	var out []int
	m := len(sl)
	if m == 0 {
		return nil
	}
	for i := 0; i+m <= len(fl); i++ {
		if fl[i] != sl[0] {
			continue
		}
		j := 1
		for j < m && fl[i+j] == sl[j] {
			j++
		}
		if j == m && (ok == nil || ok(i)) {
			out = append(out, i)
		}
	}
	return out
}

// find returns the start of every window that matches S at tier t (exact,
// trailing-whitespace or indentation).
func (mt *matcher) find(t Tier, S []string) []int {
	switch t {
	case TierTrailingWhitespace:
		return windows(mt.view(t), mapLines(S, trimRight), nil)
	case TierIndentation:
		return windows(mt.view(t), mapLines(S, trimSpace), func(i int) bool {
			return indentFits(S, mt.d.lines[i:i+len(S)])
		})
	}
	return windows(mt.d.lines, S, nil)
}

// firstTier tries the exact, trailing-whitespace and indentation tiers in
// order and returns the first that finds any window, with the windows.
func (mt *matcher) firstTier(S []string) (Tier, []int) {
	for _, t := range []Tier{TierExact, TierTrailingWhitespace, TierIndentation} {
		if c := mt.find(t, S); len(c) > 0 {
			return t, c
		}
	}
	return "", nil
}

// shared gives, for each REPLACE line, the SEARCH line it is by a line diff
// of S and R, or -1 for a new line.
func shared(S, R []string) []int {
	a, b := intern(S, R)
	from := make([]int, len(R))
	for k := range from {
		from[k] = -1
	}
	for _, p := range lcs(a, b) {
		from[p[1]] = p[0]
	}
	return from
}

// merge builds the replacement for S matched at start: REPLACE lines that
// are unchanged SEARCH lines (by a line diff of S and R) are the content's
// own lines, byte for byte; the other REPLACE lines are re-indented by im
// (if not nil).
func (mt *matcher) merge(start int, S, R []string, im *indentMap) []outLine {
	from := shared(S, R)
	var re []string
	if im != nil {
		re, _ = im.reindent(S, mt.d.lines[start:start+len(S)], R, from, mt.fileUnit(im.tw))
	}
	out := make([]outLine, len(R))
	for k, r := range R {
		if j := from[k]; j >= 0 {
			out[k] = outLine{mt.d.lines[start+j], mt.d.lineEOL(start + j)}
			continue
		}
		if re != nil {
			r = re[k]
		}
		out[k] = outLine{r, ""}
	}
	return out
}

// indentFor fits the indentation of S to the content at start (for the
// indentation and fuzzy tiers): nil when nothing needs re-indenting, ok
// false when no map fits. Of the maps that fit (see fitIndents), the first
// that can place every new REPLACE line is taken; if none can (REPLACE is
// indented in another style than SEARCH, tabs for spaces, and a new line
// would land between two indentation levels of the file), ok is false and
// detail says so.
func (mt *matcher) indentFor(start int, S, R []string) (im *indentMap, ok bool, detail string) {
	W := mt.d.lines[start : start+len(S)]
	fits := fitIndents(S, W, mt.tabs(), func(tw int) (int, int) { return mt.fileUnit(tw), indentUnit(tw, S, R) })
	if len(fits) == 0 {
		return nil, false, ""
	}
	if fits[0].identity {
		return nil, true, ""
	}
	from := shared(S, R)
	bad := -1
	for _, f := range fits {
		_, b := f.reindent(S, W, R, from, mt.fileUnit(f.tw))
		if b < 0 {
			return &f, true, ""
		}
		if bad < 0 {
			bad = b
		}
	}
	style, other := "tabs", "spaces"
	if strings.Trim(leading(R[bad]), "\t") != "" {
		style, other = other, style
	}
	return nil, false, fmt.Sprintf("lines %d-%d match but for indentation, and the new REPLACE line %s is indented with %s while SEARCH is indented with %s, so its indentation in the file is not clear; indent SEARCH and REPLACE the way the file does",
		start+1, start+len(S), strconv.Quote(R[bad]), style, other)
}

// blankEdges counts the blank lines ls starts and ends with.
func blankEdges(ls []string) (lead, trail int) {
	for lead < len(ls) && isBlank(ls[lead]) {
		lead++
	}
	for trail < len(ls)-lead && isBlank(ls[len(ls)-1-trail]) {
		trail++
	}
	return lead, trail
}

// trimBlanks drops up to lead blank lines from the start of ls and up to
// trail from its end.
func trimBlanks(ls []string, lead, trail int) []string {
	a, b := 0, len(ls)
	for a < lead && a < b && isBlank(ls[a]) {
		a++
	}
	for k := 0; k < trail && b > a && isBlank(ls[b-1]); k++ {
		b--
	}
	return ls[a:b]
}

// edgeBlanks says how many of the lead blank lines before SEARCH and the
// trail after it the content has too, right before line start and right
// after line end-1.
func (mt *matcher) edgeBlanks(lead, trail, start, end int) (keepLead, keepTrail int) {
	for keepLead < lead && start-keepLead > 0 && isBlank(mt.d.lines[start-keepLead-1]) {
		keepLead++
	}
	for keepTrail < trail && end+keepTrail < len(mt.d.lines) && isBlank(mt.d.lines[end+keepTrail]) {
		keepTrail++
	}
	return keepLead, keepTrail
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
