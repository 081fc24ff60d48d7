package editor

import "strings"

// The fuzzy tier. Lines are compared with whitespace runs collapsed and
// trimmed; a window of the content with as many lines as SEARCH scores
//
//	1 - sum(editDistance(search line j, window line j)) / sum(max(len, len))
//
// (bytes). A window matches when it scores at least fuzzyThreshold and the
// SEARCH text has at least fuzzyMinChars non-space characters, unless a
// rival window scores within fuzzyMargin of it with fewer than 3d+3 edits (d:
// the best window's edits); then the match is ambiguous. The caller also
// demands that the window be indented like SEARCH relative to itself.
//
// The threshold was tuned on the edit-quality corpus (testdata/corpus, and
// more cases made with other seeds): SEARCH texts with a one-character slip
// score 0.97-1.0 against their place, blocks from another file at most 0.37,
// while the same block after a real edit (an "already applied" block) spreads
// over 0.3-0.996. So 0.95 takes the slips and leaves out what differs by
// more than a few characters; what it cannot tell apart (a real edit of one
// character) is left to the REPLACE-already-there check, which runs first,
// and to the merge, which keeps the content's own version of every line that
// REPLACE does not change. The 3d+3 rule lets a one-slip match (d = 1) stand
// against a repeated, similar block (case lines of a switch, say) that needs
// 6 or more edits, and refuses when it needs fewer.
const (
	fuzzyThreshold = 0.95
	fuzzyMargin    = 0.05
	fuzzyMinChars  = 20
	fuzzyBudget    = 20_000_000 // edit-distance cells per fuzzy search
	hintBudget     = 5_000_000  // and per search for hints
	hintWindows    = 16         // windows scored exactly for hints
	maxHints       = 40         // lines in NoMatchError.Hints
	eps            = 1e-9
)

func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

func (mt *matcher) normView() []string {
	if mt.norm == nil {
		mt.norm = mapLines(mt.d.lines, normalize)
	}
	return mt.norm
}

// scan calls f for every window of len(nS) lines with a lower bound on the
// window's edit distance (from byte histograms) and the score's denominator.
func (mt *matcher) scan(nS []string, f func(i, lb, den int)) {
	nF := mt.normView()
	m := len(nS)
	if m == 0 || m > len(nF) {
		return
	}
	var hs, hw [128]int
	count := func(h *[128]int, s string, d int) {
		for k := 0; k < len(s); k++ {
			h[s[k]&127] += d
		}
	}
	for j := 0; j < m; j++ {
		count(&hs, nS[j], 1)
		count(&hw, nF[j], 1)
	}
	for i := 0; ; i++ {
		pos, neg := 0, 0
		for c := range hs {
			if d := hs[c] - hw[c]; d > 0 {
				pos += d
			} else {
				neg -= d
			}
		}
		den := 0
		for j := 0; j < m; j++ {
			den += max(len(nS[j]), len(nF[i+j]))
		}
		f(i, max(pos, neg), den)
		if i+m >= len(nF) {
			return
		}
		count(&hw, nF[i], -1)
		count(&hw, nF[i+m], 1)
	}
}

// windowDist is the edit distance of nS and the window at i, or more than
// limit when it is more than limit.
func (mt *matcher) windowDist(nS []string, i, limit int) int {
	nF := mt.normView()
	acc := 0
	for j, a := range nS {
		if b := nF[i+j]; a != b {
			acc += mt.lev(a, b, limit-acc)
			if acc > limit {
				return acc
			}
		}
	}
	return acc
}

// lev returns the edit distance of a and b if it is at most k, else k+1
// (also when the work budget is spent: it then goes negative).
func (mt *matcher) lev(a, b string, k int) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	inf := k + 1
	if len(a)-len(b) > k || mt.budget < 0 {
		return inf
	}
	if len(b) == 0 {
		return len(a)
	}
	mt.budget -= len(a) * min(len(b), 2*k+1)
	if mt.budget < 0 {
		return inf
	}
	la, lb := len(a), len(b)
	prev, cur := make([]int, lb+1), make([]int, lb+1)
	for j := range prev {
		prev[j] = min(j, inf)
	}
	for i := 1; i <= la; i++ {
		lo, hi := max(1, i-k), min(lb, i+k)
		cur[0] = min(i, inf)
		if lo > 1 {
			cur[lo-1] = inf
		}
		rowMin := inf
		if lo == 1 {
			rowMin = cur[0]
		}
		for j := lo; j <= hi; j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1, inf)
			cur[j] = c
			rowMin = min(rowMin, c)
		}
		if hi < lb {
			cur[hi+1] = inf
		}
		if rowMin >= inf {
			return inf
		}
		prev, cur = cur, prev
	}
	return min(prev[lb], inf)
}

type fuzzyResult struct {
	ok        bool
	start     int
	score     float64
	ambiguous []int // starts of every window within the margin of the best
	gaveUp    bool  // the work budget ran out
}

type scored struct {
	i, d int // window start and edit distance
	sim  float64
}

// fuzzy is the fuzzy tier for S.
func (mt *matcher) fuzzy(S []string) fuzzyResult {
	nS := mapLines(S, normalize)
	chars := 0
	for _, l := range nS {
		chars += len(strings.ReplaceAll(l, " ", ""))
	}
	if chars < fuzzyMinChars {
		return fuzzyResult{}
	}
	cutoff := fuzzyThreshold - fuzzyMargin
	var cands []scored
	mt.scan(nS, func(i, lb, den int) {
		if float64(den-lb) < cutoff*float64(den)-eps {
			return
		}
		limit := int((1-cutoff)*float64(den) + eps)
		if d := mt.windowDist(nS, i, limit); d <= limit {
			cands = append(cands, scored{i, d, 1 - float64(d)/float64(den)})
		}
	})
	if mt.budget < 0 {
		return fuzzyResult{gaveUp: true}
	}
	if len(cands) == 0 {
		return fuzzyResult{}
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if c.sim > best.sim {
			best = c
		}
	}
	if best.sim < fuzzyThreshold-eps {
		return fuzzyResult{}
	}
	// A rival scores within the margin and needs fewer than three times
	// (plus three) the edits of the best.
	var amb []int
	for _, c := range cands {
		if c.i != best.i && c.sim >= best.sim-fuzzyMargin-eps && c.d < 3*best.d+3 {
			amb = append(amb, c.i)
		}
	}
	if len(amb) > 0 {
		return fuzzyResult{ambiguous: append(amb, best.i)}
	}
	return fuzzyResult{ok: true, start: best.i, score: best.sim}
}
