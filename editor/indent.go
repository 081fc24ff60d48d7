package editor

import (
	"sort"
	"strings"
)

// Indentation is measured in columns, a tab counting tw columns. The tab
// width of the text is not known, so a fit is tried with each of these.
var tabWidths = []int{4, 8, 2}

// leading is the leading spaces and tabs of s.
func leading(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

func width(ws string, tw int) int {
	w := 0
	for i := 0; i < len(ws); i++ {
		if ws[i] == '\t' {
			w += tw
		} else {
			w++
		}
	}
	return w
}

// indentMap maps the indentation of SEARCH/REPLACE lines to the file's:
// a line indented s columns in SEARCH is indented fA + (s-sA)*num/den
// columns in the file.
type indentMap struct {
	tw       int // tab width
	sA, fA   int
	num, den int
	tabs     bool // render new indentation with tabs (and spaces for the rest)
	identity bool // every matched line has the same indentation: change nothing
	same     bool // every matched line has the same width in both (tabs written as tw spaces)
}

// fitIndents fits the indentation of the search lines S to that of the
// matched content lines W (same length; pairs where either is blank are
// ignored): one affine map must take every S indentation to W's, for one of
// the tab widths. Its slope must be 1 (a shift, or tabs written as spaces,
// by the tab width), or 2 or 1/2 between indentations made of spaces
// (2-space for 4-space). units(tw), if not nil, gives the usual
// indentation steps of the file and of the edit text (0 if unknown), the
// map's slope when S has one indentation only. fileTabs says whether the
// file indents with tabs, for new lines when no matched line shows it.
//
// It returns every map that fits (one per tab width), the most likely
// first: a tab width at which every matched line is as wide in S as
// in the content (the edit wrote each tab as that many spaces and changed
// nothing else) before one that needs a shift as well, then in the order
// of tabWidths.
func fitIndents(S, W []string, fileTabs bool, units func(tw int) (int, int)) []indentMap {
	var same, other []indentMap
	for _, tw := range tabWidths {
		im, ok := fitIndentTab(S, W, fileTabs, tw, units)
		switch {
		case !ok:
		case im.identity:
			return []indentMap{im}
		case im.same:
			same = append(same, im)
		default:
			other = append(other, im)
		}
	}
	return append(same, other...)
}

// indentFits reports whether some map fits (see fitIndents).
func indentFits(S, W []string) bool {
	for _, tw := range tabWidths {
		if _, ok := fitIndentTab(S, W, false, tw, nil); ok {
			return true
		}
	}
	return false
}

func fitIndentTab(S, W []string, fileTabs bool, tw int, units func(int) (int, int)) (im indentMap, ok bool) {
	im = indentMap{tw: tw, identity: true, same: true, tabs: fileTabs}
	var ws, wf []int
	sawTab := false
	tabLines, spaceLines := 0, 0
	for j := range S {
		if isBlank(S[j]) || isBlank(W[j]) {
			continue
		}
		ls, lf := leading(S[j]), leading(W[j])
		if ls != lf {
			im.identity = false
		}
		sawTab = sawTab || strings.ContainsRune(ls+lf, '\t')
		s, f := width(ls, tw), width(lf, tw)
		if s != f {
			im.same = false
		}
		if f >= tw {
			if lf[0] == '\t' {
				tabLines++
			} else {
				spaceLines++
			}
		}
		ws, wf = append(ws, s), append(wf, f)
	}
	// New indentation is written like most matched lines wide enough to
	// hold a tab (like most of the file's lines if there are none).
	if tabLines != spaceLines {
		im.tabs = tabLines > spaceLines
	}
	if len(ws) == 0 {
		im.identity = true
		return im, true
	}
	im.sA, im.fA = ws[0], wf[0]
	im.num, im.den = 1, 1
	if units != nil {
		if uf, us := units(tw); uf > 0 && us > 0 {
			im.num, im.den = uf, us
		}
	}
	for j := range ws {
		if ws[j] != im.sA {
			// Two indentations fix the slope; every line must be on it.
			im.num, im.den = wf[j]-im.fA, ws[j]-im.sA
			if im.den < 0 {
				im.num, im.den = -im.num, -im.den
			}
			// The slope is 1 (a shift; tabs for spaces by the tab width),
			// or 2 or 1/2 between space indentations (2 spaces for 4).
			g := gcd(im.num, im.den)
			im.num, im.den = im.num/g, im.den/g
			if im.num <= 0 || im.num != im.den && (sawTab || im.num*im.den != 2) {
				return im, false
			}
			break
		}
	}
	for j := range ws {
		if (wf[j]-im.fA)*im.den != im.num*(ws[j]-im.sA) {
			return im, false
		}
	}
	return im, true
}

// width maps the indentation ls of a SEARCH/REPLACE line to a width in the
// file (less than 0 if the map puts it left of the margin).
func (im indentMap) width(ls string) int {
	q := (width(ls, im.tw) - im.sA) * im.num
	return im.fA + divRound(q, im.den)
}

// render writes w columns of indentation (none if w < 0) in the file's
// unit: tabs, with spaces for what is less than a tab, or spaces only.
func (im indentMap) render(w int) string {
	w = max(w, 0)
	if im.tabs {
		return strings.Repeat("\t", w/im.tw) + strings.Repeat(" ", w%im.tw)
	}
	return strings.Repeat(" ", w)
}

// reindent re-indents the REPLACE lines R that are not SEARCH lines
// (from[k] < 0; from[k] is the line of S that R[k] is, by a line diff) for
// S matched at the content lines W. A new line indented exactly like a
// SEARCH line is indented like that line in the file:
//
//   - like the SEARCH line it replaces, if one in the same run of changed
//     lines is indented like it (the nearest): a changed line keeps its
//     indentation, even a continuation line's alignment;
//   - else like the matched lines indented like it, if they are all
//     indented alike in the file, with tabs only or spaces only.
//
// Otherwise the map gives the new line its width, written in the file's
// unit (tabs, for 4 spaces of the edit, say) with spaces for what is less
// than a tab; the spaces after the tabs of an edit line that has both
// (its own alignment) are kept as they are. A width is never copied from
// an unchanged line that is aligned with spaces (the second line of a
// docstring, at 2 tabs and 4 spaces): a new statement at the same width
// is one level deeper (3 tabs).
//
// bad is the index of a new line that the map cannot place (-1 if none):
// one indented with tabs only while SEARCH is indented with spaces only
// (or the reverse) that would land between two indentation levels of the
// file, or left of its margin. The edit text then mixes two styles, and
// the columns of one cannot be told in the other's: taking a tab at the
// tab width would give the line an indentation that neither the file nor
// the edit wrote (a tab and 2 spaces, for a tab).
func (im indentMap) reindent(S, W, R []string, from []int, fileUnit int) (out []string, bad int) {
	out = make([]string, len(R))
	bad = -1
	sTab, sSpace := false, false
	// like: a SEARCH indentation -> the file's for it, "\x00" if that is
	// not always the same, or not tabs only or spaces only.
	like := map[string]string{}
	for j, l := range S {
		if isBlank(l) || isBlank(W[j]) {
			continue
		}
		ls, lf := leading(l), leading(W[j])
		sTab = sTab || strings.Contains(ls, "\t")
		sSpace = sSpace || strings.Contains(ls, " ")
		if prev, ok := like[ls]; !ok && isPure(lf) {
			like[ls] = lf
		} else if !ok || prev != lf {
			like[ls] = "\x00"
		}
	}
	unit := fileUnit
	if im.tabs {
		unit = im.tw
	}
	// Each run of changed lines: S[sLo:sHi] became R[rLo:rHi]. at maps the
	// indentation of its SEARCH lines to their indices.
	var at map[string][]int
	rLo, sLo := 0, 0
	for k, r := range R {
		if from[k] >= 0 {
			rLo, sLo, at = k+1, from[k]+1, nil
			continue
		}
		if at == nil {
			sHi := len(S)
			for k2 := k + 1; k2 < len(R); k2++ {
				if from[k2] >= 0 {
					sHi = from[k2]
					break
				}
			}
			at = map[string][]int{}
			for j := sLo; j < sHi; j++ {
				if !isBlank(S[j]) && !isBlank(W[j]) {
					at[leading(S[j])] = append(at[leading(S[j])], j)
				}
			}
		}
		if isBlank(r) {
			continue
		}
		ls := leading(r)
		ind, found := "", false
		if js := at[ls]; len(js) > 0 {
			// The nearest to the same place in the run.
			want := sLo + k - rLo
			x := sort.SearchInts(js, want)
			if x == len(js) || x > 0 && want-js[x-1] <= js[x]-want {
				x--
			}
			ind, found = leading(W[js[x]]), true
		}
		if lf, ok := like[ls]; !found && ok && lf != "\x00" {
			ind, found = lf, true
		}
		if !found && im.tabs && isAligned(ls) {
			tabs := strings.TrimRight(ls, " ")
			if w := im.width(tabs); w >= 0 && w%im.tw == 0 {
				ind, found = im.render(w)+ls[len(tabs):], true
			}
		}
		if !found {
			w := im.width(ls)
			ind = im.render(w)
			onlyTabs := ls != "" && strings.Trim(ls, "\t") == ""
			onlySpaces := ls != "" && strings.Trim(ls, " ") == ""
			if bad < 0 && (w < 0 || unit > 0 && w%unit != 0) && (onlyTabs && sSpace && !sTab || onlySpaces && sTab && !sSpace) {
				bad = k
			}
		}
		out[k] = ind + r[len(ls):]
	}
	return out, bad
}

// isPure reports whether ls is made of tabs only or of spaces only.
func isPure(ls string) bool {
	return strings.Trim(ls, "\t") == "" || strings.Trim(ls, " ") == ""
}

// isAligned reports whether ls is one or more tabs, then one or more spaces.
func isAligned(ls string) bool {
	t := strings.TrimLeft(ls, "\t")
	return len(t) < len(ls) && t != "" && strings.Trim(t, " ") == ""
}

func gcd(a, b int) int {
	if a < 0 {
		a = -a
	}
	for b != 0 {
		a, b = b, a%b
	}
	return max(a, 1)
}

func divRound(q, d int) int {
	if q >= 0 {
		return (q + d/2) / d
	}
	return -((-q + d/2) / d)
}

// indentUnit is the most common positive change of indentation between
// consecutive non-blank lines (ties: the smaller), 0 if there is none.
func indentUnit(tw int, lines ...[]string) int {
	count := map[int]int{}
	for _, ls := range lines {
		prev := -1
		for _, l := range ls {
			if isBlank(l) {
				continue
			}
			w := width(leading(l), tw)
			if prev >= 0 && w != prev {
				d := w - prev
				if d < 0 {
					d = -d
				}
				count[d]++
			}
			prev = w
		}
	}
	best, bestN := 0, 0
	for d, n := range count {
		if n > bestN || (n == bestN && d < best) {
			best, bestN = d, n
		}
	}
	return best
}

// usesTabs reports whether most indented lines start with a tab.
func usesTabs(lines []string) bool {
	tabs, spaces := 0, 0
	for _, l := range lines {
		if l == "" {
			continue
		}
		switch l[0] {
		case '\t':
			tabs++
		case ' ':
			spaces++
		}
	}
	return tabs > spaces
}
