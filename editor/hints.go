package editor

import (
	"math"
	"sort"
)

// noMatch builds the error for S not found, with the closest window of the
// content as hints: every window of len(S) lines is ranked by the cheap
// histogram bound of the fuzzy tier, the best hintWindows are scored
// exactly, and the best of those (the first, on a tie) is quoted, each line
// with its own similarity to its SEARCH line.
func (mt *matcher) noMatch(kind string, i int, S []string, detail string) *NoMatchError {
	e := &NoMatchError{Kind: kind, Block: i, Detail: detail}
	for _, l := range S {
		if !isBlank(l) {
			e.Search = l
			break
		}
	}
	nF := mt.normView()
	if len(nF) == 0 || len(S) == 0 {
		return e
	}
	if len(S) > len(nF) {
		S = S[:len(nF)]
	}
	nS := mapLines(S, normalize)
	mt.budget = hintBudget
	var top []scored // by upper bound
	mt.scan(nS, func(i, lb, den int) {
		ub := 1.0
		if den > 0 {
			ub = 1 - float64(lb)/float64(den)
		}
		top = append(top, scored{i, 0, ub})
	})
	sort.SliceStable(top, func(a, b int) bool { return top[a].sim > top[b].sim })
	if len(top) > hintWindows {
		top = top[:hintWindows]
	}
	best := scored{-1, 0, -1}
	for _, c := range top {
		den := 0
		for j := range nS {
			den += max(len(nS[j]), len(nF[c.i+j]))
		}
		sim := 1.0
		if den > 0 {
			sim = 1 - float64(min(mt.windowDist(nS, c.i, den), den))/float64(den)
		}
		if sim > best.sim || (sim == best.sim && c.i < best.i) {
			best = scored{c.i, 0, sim}
		}
	}
	e.Score = round3(best.sim)
	for j := 0; j < len(S) && j < maxHints; j++ {
		a, b := nS[j], nF[best.i+j]
		n := max(len(a), len(b))
		score := 1.0
		if n > 0 {
			score = 1 - float64(min(mt.lev(a, b, n), n))/float64(n)
		}
		e.Hints = append(e.Hints, Hint{Line: best.i + j + 1, Text: mt.d.lines[best.i+j], Score: round3(score)})
	}
	return e
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
