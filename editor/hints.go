package editor

import (
	"math"
	"sort"
	"unicode"
	"unicode/utf8"
)

// Hints are ranked by what the lines say, not only by how they look. A
// window that shares SEARCH's identifiers, line for line, is a better
// answer to "did you mean" than one that looks alike but names something
// else: "def parse_config(path):" is closer to "def parse_config(path,
// defaults=None):" than to "def parse_lockfile(path):", though the latter
// is more similar character by character. A window's rank is its
// similarity (as in the fuzzy tier) plus the share of SEARCH's words it
// has on the corresponding lines (each word weighted by its length; a line
// that the exact, trailing-whitespace or indentation tier would accept
// shares all of its words). A window is quoted only when it is close
// enough to help: a similarity of at least hintMinScore, or at least half
// of SEARCH's words; otherwise the error quotes nothing and says to re-read
// the file.
const (
	hintMinScore = 0.6
	hintMinWords = 0.5
	hintWordWork = 1_000_000 // word postings visited per search for hints
)

// noMatch builds the error for S not found, with the closest window of the
// content as hints: the windows most similar by the cheap histogram bound
// of the fuzzy tier and those sharing the most of SEARCH's words
// (hintWindows of each) are scored exactly, and the best by rank (the
// first, on a tie) is quoted, each line with its own similarity to its
// SEARCH line, if it is close enough.
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
	shared, total := mt.sharedWords(nS)
	cands := map[int]bool{}
	for _, c := range top {
		cands[c.i] = true
	}
	for _, c := range topShared(shared, hintWindows) {
		cands[c] = true
	}
	best, bestRank, bestWords := scored{-1, 0, -1}, -1.0, 0.0
	for c := range cands {
		den := 0
		for j := range nS {
			den += max(len(nS[j]), len(nF[c+j]))
		}
		sim := 1.0
		if den > 0 {
			sim = 1 - float64(min(mt.windowDist(nS, c, den), den))/float64(den)
		}
		words := 0.0
		if total > 0 {
			words = float64(shared[c]) / float64(total)
		}
		if r := sim + words; r > bestRank+eps || (math.Abs(r-bestRank) <= eps && c < best.i) {
			best, bestRank, bestWords = scored{c, 0, sim}, r, words
		}
	}
	if best.i < 0 || (best.sim < hintMinScore && bestWords < hintMinWords) {
		return e
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

// sharedWords gives, for each window of len(nS) lines, the summed length
// of the words of each SEARCH line that its corresponding content line
// has too, and the summed length of all of SEARCH's words (each line's
// words counted once). Lines are compared normalized (nS, normView). The
// work is bounded by hintWordWork; past it, the counts are partial.
func (mt *matcher) sharedWords(nS []string) (shared []int, total int) {
	nF := mt.normView()
	m := len(nS)
	if m == 0 || m > len(nF) {
		return nil, 0
	}
	want := map[string]bool{}
	sWords := make([][]string, m)
	for j, l := range nS {
		eachWord(l, func(w string) {
			for _, v := range sWords[j] {
				if v == w {
					return
				}
			}
			sWords[j] = append(sWords[j], w)
			want[w] = true
			total += len(w)
		})
	}
	at := map[string][]int{} // content lines with each wanted word, once each
	for k, l := range nF {
		eachWord(l, func(w string) {
			if !want[w] {
				return
			}
			if p := at[w]; len(p) == 0 || p[len(p)-1] != k {
				at[w] = append(p, k)
			}
		})
	}
	shared = make([]int, len(nF)-m+1)
	work := hintWordWork
	for j, ws := range sWords {
		for _, w := range ws {
			for _, k := range at[w] {
				if work--; work < 0 {
					return shared, total
				}
				if i := k - j; i >= 0 && i < len(shared) {
					shared[i] += len(w)
				}
			}
		}
	}
	return shared, total
}

// eachWord calls f with each word of s: a run of letters, digits and '_'
// with a letter in it.
func eachWord(s string, f func(w string)) {
	start, letter := -1, false
	for k, r := range s {
		word := r == '_' || r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
		switch {
		case word && start < 0:
			start, letter = k, false
			fallthrough
		case word:
			letter = letter || r != '_' && (r >= utf8.RuneSelf && unicode.IsLetter(r) || r < utf8.RuneSelf && (r < '0' || r > '9'))
		case start >= 0:
			if letter {
				f(s[start:k])
			}
			start = -1
		}
	}
	if start >= 0 && letter {
		f(s[start:])
	}
}

// topShared is the starts of the n windows that share the most (ties: the
// first), leaving out those that share nothing.
func topShared(shared []int, n int) []int {
	idx := make([]int, 0, len(shared))
	for i, s := range shared {
		if s > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return shared[idx[a]] > shared[idx[b]] })
	if len(idx) > n {
		idx = idx[:n]
	}
	return idx
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
