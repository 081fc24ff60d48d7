package editor

import "strings"

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
	tabs     bool           // render new indentation with tabs
	seen     map[int]string // widths seen in the matched lines: their exact text
	identity bool           // every matched line has the same indentation: change nothing
}

// fitIndent fits the indentation of the search lines S to that of the
// matched content lines W (same length; pairs where either is blank are
// ignored): one affine map must take every S indentation to W's, for one of
// the tab widths, else ok is false. Its slope must be 1 (a shift, or tabs
// written as spaces, by the tab width), or 2 or 1/2 between indentations
// made of spaces (2-space for 4-space). units(tw), if not nil, gives the usual
// indentation steps of the file and of the edit text (0 if unknown), the
// map's slope when S has one indentation only.
func fitIndent(S, W []string, fileTabs bool, units func(tw int) (int, int)) (indentMap, bool) {
	for _, tw := range tabWidths {
		if im, ok := fitIndentTab(S, W, fileTabs, tw, units); ok {
			return im, true
		}
	}
	return indentMap{}, false
}

func fitIndentTab(S, W []string, fileTabs bool, tw int, units func(int) (int, int)) (im indentMap, ok bool) {
	im = indentMap{tw: tw, seen: map[int]string{}, identity: true, tabs: fileTabs}
	var ws, wf []int
	sawIndent, sawTab := false, false
	for j := range S {
		if isBlank(S[j]) || isBlank(W[j]) {
			continue
		}
		ls, lf := leading(S[j]), leading(W[j])
		if ls != lf {
			im.identity = false
		}
		sawTab = sawTab || strings.ContainsRune(ls+lf, '\t')
		if lf != "" && !sawIndent {
			sawIndent = true
			im.tabs = strings.Contains(lf, "\t")
		}
		ws, wf = append(ws, width(ls, tw)), append(wf, width(lf, tw))
		if _, ok := im.seen[width(lf, tw)]; !ok {
			im.seen[width(lf, tw)] = lf
		}
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

// apply re-indents a REPLACE line.
func (im indentMap) apply(r string) string {
	if im.identity {
		return r
	}
	if isBlank(r) {
		return ""
	}
	ls := leading(r)
	q := (width(ls, im.tw) - im.sA) * im.num
	w := im.fA + divRound(q, im.den)
	if w < 0 {
		w = 0
	}
	ind, ok := im.seen[w]
	if !ok {
		if im.tabs {
			ind = strings.Repeat("\t", w/im.tw) + strings.Repeat(" ", w%im.tw)
		} else {
			ind = strings.Repeat(" ", w)
		}
	}
	return ind + r[len(ls):]
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
