package editor

// The blank-lines tier: SEARCH has blank lines the content does not have
// (before, after or inside it). Its non-blank lines are matched, by the
// exact, trailing-whitespace and indentation rules in turn, against the
// content's non-blank lines; between two matched lines the content may have
// fewer blank lines than SEARCH, never more. SEARCH's extra blank lines are
// dropped, and so are the REPLACE blank lines that correspond to them (by a
// line diff of SEARCH and REPLACE).

// blankMatch is one way SEARCH fits once its extra blank lines are dropped.
type blankMatch struct {
	tier       Tier // the rule that matched the non-blank lines
	start, end int  // content lines [start, end)
	S, R       []string
}

// blankTier returns the matches at the first rule that finds any.
func (mt *matcher) blankTier(S, R []string) []blankMatch {
	var sIdx []int
	for j, l := range S {
		if !isBlank(l) {
			sIdx = append(sIdx, j)
		}
	}
	if len(sIdx) == len(S) || len(sIdx) == 0 {
		return nil
	}
	if mt.fIdx == nil {
		mt.fIdx = []int{}
		for i, l := range mt.d.lines {
			if !isBlank(l) {
				mt.fIdx = append(mt.fIdx, i)
			}
		}
	}
	fIdx := mt.fIdx
	SN := make([]string, len(sIdx))
	for k, j := range sIdx {
		SN[k] = S[j]
	}
	// gapsFit: between matched lines the content has no more blank lines than S.
	gapsFit := func(w int) bool {
		for k := 0; k+1 < len(sIdx); k++ {
			if fIdx[w+k+1]-fIdx[w+k] > sIdx[k+1]-sIdx[k] {
				return false
			}
		}
		return true
	}
	for _, t := range []Tier{TierExact, TierTrailingWhitespace, TierIndentation} {
		view := mt.view(t)
		fn := make([]string, len(fIdx))
		for k, i := range fIdx {
			fn[k] = view[i]
		}
		sn := SN
		var ok func(int) bool = gapsFit
		switch t {
		case TierTrailingWhitespace:
			sn = mapLines(SN, trimRight)
		case TierIndentation:
			sn = mapLines(SN, trimSpace)
			ok = func(w int) bool {
				if !gapsFit(w) {
					return false
				}
				W := make([]string, len(SN))
				for k := range SN {
					W[k] = mt.d.lines[fIdx[w+k]]
				}
				return indentFits(SN, W)
			}
		}
		ws := windows(fn, sn, ok)
		if len(ws) == 0 {
			continue
		}
		out := make([]blankMatch, len(ws))
		for n, w := range ws {
			out[n] = mt.dropBlanks(t, S, R, sIdx, w)
		}
		return out
	}
	return nil
}

// dropBlanks builds the match of S's non-blank lines at fIdx[w:]: S and R
// without the blank lines the content lacks. R loses blank lines only where
// it mirrors S: the blank lines it starts or ends with (as many as S had
// there), and a run of blank lines as long as S's between two lines R
// shares with S.
func (mt *matcher) dropBlanks(t Tier, S, R []string, sIdx []int, w int) blankMatch {
	fIdx := mt.fIdx
	drop := make([]bool, len(S))
	dropR := make([]bool, len(R))
	// Blank lines before and after: those the content has there too are
	// kept (and matched); only the rest are extra.
	fFirst, fLast := fIdx[w], fIdx[w+len(sIdx)-1]
	lead, trail := sIdx[0], len(S)-1-sIdx[len(sIdx)-1]
	keepLead, keepTrail := mt.edgeBlanks(lead, trail, fFirst, fLast+1)
	for j := 0; j < lead-keepLead; j++ {
		drop[j] = true
	}
	for j := len(S) - (trail - keepTrail); j < len(S); j++ {
		drop[j] = true
	}
	for k := 0; k < lead-keepLead && k < len(R) && isBlank(R[k]); k++ {
		dropR[k] = true
	}
	for k := 0; k < trail-keepTrail && k < len(R) && isBlank(R[len(R)-1-k]); k++ {
		dropR[len(R)-1-k] = true
	}
	a, b := intern(S, R)
	toR := make([]int, len(S))
	for j := range toR {
		toR[j] = -1
	}
	for _, p := range lcs(a, b) {
		toR[p[0]] = p[1]
	}
	for k := 0; k+1 < len(sIdx); k++ {
		p, q := sIdx[k], sIdx[k+1]
		extra := (q - p) - (fIdx[w+k+1] - fIdx[w+k])
		for j := q - extra; j < q; j++ {
			drop[j] = true
		}
		// R mirrors S's run if it has the same run between the same two
		// lines; otherwise R is taken as written.
		rp, rq := toR[p], toR[q]
		if extra == 0 || rp < 0 || rq < 0 || rq-rp != q-p || !allBlank(R[rp+1:rq]) {
			continue
		}
		for j := rq - extra; j < rq; j++ {
			dropR[j] = true
		}
	}
	m := blankMatch{tier: t, start: fFirst - keepLead, end: fLast + 1 + keepTrail}
	for j, l := range S {
		if !drop[j] {
			m.S = append(m.S, l)
		}
	}
	for k, l := range R {
		if !dropR[k] {
			m.R = append(m.R, l)
		}
	}
	return m
}
