package editor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// isElision reports whether a line stands for "lines left out": `...` or
// `…` alone, possibly indented, possibly as a comment (`# ...`, `// ...`,
// `-- ...`, `; ...`, `/* ... */`, `<!-- ... -->`), or a short phrase
// between dots such as `// ... existing code ...`.
func isElision(l string) bool {
	t := strings.TrimSpace(l)
	for _, p := range []string{"//", "#", "--", ";", "%"} {
		if strings.HasPrefix(t, p) {
			t = strings.TrimSpace(t[len(p):])
			break
		}
	}
	for _, c := range [][2]string{{"/*", "*/"}, {"<!--", "-->"}} {
		if strings.HasPrefix(t, c[0]) && strings.HasSuffix(t, c[1]) && len(t) >= len(c[0])+len(c[1]) {
			t = strings.TrimSpace(t[len(c[0]) : len(t)-len(c[1])])
		}
	}
	if t == "..." || t == "…" {
		return true
	}
	dots := func(f func(string, string) bool) bool { return f(t, "...") || f(t, "…") }
	return len(t) >= 6 && len(t) <= 80 && dots(strings.HasPrefix) && dots(strings.HasSuffix)
}

func hasElision(ls []string) bool {
	for _, l := range ls {
		if isElision(l) {
			return true
		}
	}
	return false
}

// splitElided splits lines at elision lines.
func splitElided(ls []string) [][]string {
	parts := [][]string{{}}
	for _, l := range ls {
		if isElision(l) {
			parts = append(parts, []string{})
			continue
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], l)
	}
	return parts
}

// elide is the elision tier: the parts of S between `...` lines must be in
// the content (trailing whitespace aside) in order, at exactly one set of
// places; each `...` stands for the (possibly no) lines between. R must have
// a `...` line for each of S's; R's parts replace S's parts and the lines
// between are kept. A plan with an empty tier means the tier does not apply;
// detail then says why, when S has `...` lines.
func (mt *matcher) elide(i int, S, R []string) (plan, string, error) {
	PS := splitElided(S)
	if len(PS) == 1 {
		return plan{}, "", nil
	}
	PR := splitElided(R)
	if len(PR) != len(PS) {
		return plan{}, fmt.Sprintf("SEARCH has %d `...` lines but REPLACE has %d; REPLACE must have a `...` line wherever SEARCH has one", len(PS)-1, len(PR)-1), nil
	}
	type piece struct{ S, R []string }
	var ps []piece
	for k := range PS {
		if len(PS[k]) > 0 {
			ps = append(ps, piece{PS[k], PR[k]})
		} else if len(PR[k]) > 0 {
			return plan{}, "REPLACE has lines where SEARCH has nothing between, before or after `...` lines, so there is no telling where they go", nil
		}
	}
	if len(ps) == 0 {
		return plan{}, "SEARCH has nothing but `...` lines", nil
	}
	pos := make([][]int, len(ps))
	view := mt.view(TierTrailingWhitespace)
	for k, p := range ps {
		pos[k] = windows(view, mapLines(p.S, trimRight), nil)
		if len(pos[k]) == 0 {
			return plan{}, fmt.Sprintf("with `...` elision each part of SEARCH must be in the file exactly, and part %d (first line %s) is not", k+1, strconv.Quote(p.S[0])), nil
		}
	}
	// cnt[k][x]: ways (capped at 2) to place parts k.. with part k at pos[k][x].
	cnt := make([][]int, len(ps))
	last := len(ps) - 1
	cnt[last] = make([]int, len(pos[last]))
	for x := range cnt[last] {
		cnt[last][x] = 1
	}
	for k := last - 1; k >= 0; k-- {
		next := pos[k+1]
		suf := make([]int, len(next)+1)
		for x := len(next) - 1; x >= 0; x-- {
			suf[x] = min(2, suf[x+1]+cnt[k+1][x])
		}
		cnt[k] = make([]int, len(pos[k]))
		for x, p := range pos[k] {
			cnt[k][x] = suf[sort.SearchInts(next, p+len(ps[k].S))]
		}
	}
	// Walk the placements: a part with more than one place is ambiguous.
	chosen := make([]int, len(ps))
	lo := 0
	for k := range ps {
		var opts []int
		for x, p := range pos[k] {
			if p >= lo && cnt[k][x] > 0 {
				opts = append(opts, p)
			}
		}
		switch {
		case len(opts) == 0:
			return plan{}, "the parts of SEARCH between `...` lines are in the file, but not in that order", nil
		case len(opts) > 1:
			return plan{}, "", ambiguous(i, TierElision, opts)
		}
		chosen[k] = opts[0]
		lo = opts[0] + len(ps[k].S)
	}
	var out []outLine
	for k, p := range ps {
		if k > 0 {
			for l := chosen[k-1] + len(ps[k-1].S); l < chosen[k]; l++ {
				out = append(out, outLine{mt.d.lines[l], mt.d.lineEOL(l)})
			}
		}
		out = append(out, mt.merge(chosen[k], p.S, p.R, nil)...)
	}
	return plan{tier: TierElision, start: chosen[0], end: chosen[last] + len(ps[last].S), out: out}, "", nil
}
