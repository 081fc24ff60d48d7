package editor

// This file is a line-level longest-common-subsequence finder: Myers'
// O(ND) algorithm with the linear-space "middle snake" refinement, after
// removing common prefixes and suffixes and the lines that appear on one
// side only (they can never be common).

// intern maps each distinct string of a and b to a small int, so the
// algorithm compares ints.
func intern(a, b []string) ([]int, []int) {
	ids := make(map[string]int, len(a)+len(b))
	conv := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return conv(a), conv(b)
}

// lcs returns the index pairs (i, j), increasing in both, of a longest
// common subsequence of a and b.
func lcs(a, b []int) [][2]int {
	// Lines present on one side only cannot be matched: drop them first,
	// which makes very different inputs cheap.
	inA := make(map[int]bool, len(a))
	inB := make(map[int]bool, len(b))
	for _, x := range a {
		inA[x] = true
	}
	for _, x := range b {
		inB[x] = true
	}
	var ka, kb []int // kept values
	var ia, ib []int // their original indices
	for i, x := range a {
		if inB[x] {
			ka, ia = append(ka, x), append(ia, i)
		}
	}
	for j, x := range b {
		if inA[x] {
			kb, ib = append(kb, x), append(ib, j)
		}
	}
	m := &myers{a: ka, b: kb}
	n := len(ka) + len(kb)
	m.vf = make([]int, 2*n+3)
	m.vb = make([]int, 2*n+3)
	m.compare(0, len(ka), 0, len(kb))
	for k, p := range m.out {
		m.out[k] = [2]int{ia[p[0]], ib[p[1]]}
	}
	return m.out
}

type myers struct {
	a, b   []int
	vf, vb []int
	out    [][2]int
}

func (m *myers) compare(aLo, aHi, bLo, bHi int) {
	for aLo < aHi && bLo < bHi && m.a[aLo] == m.b[bLo] {
		m.out = append(m.out, [2]int{aLo, bLo})
		aLo, bLo = aLo+1, bLo+1
	}
	suffix := 0
	for aLo < aHi && bLo < bHi && m.a[aHi-1] == m.b[bHi-1] {
		aHi, bHi = aHi-1, bHi-1
		suffix++
	}
	if aLo < aHi && bLo < bHi {
		// A snake that makes no progress cannot happen; if it did, the
		// rest would be left unmatched rather than recursing forever.
		x0, y0, x1, y1 := m.middleSnake(aLo, aHi, bLo, bHi)
		size := aHi - aLo + bHi - bLo
		if x0-aLo+y0-bLo < size && aHi-x1+bHi-y1 < size {
			m.compare(aLo, x0, bLo, y0)
			for x, y := x0, y0; x < x1; x, y = x+1, y+1 {
				m.out = append(m.out, [2]int{x, y})
			}
			m.compare(x1, aHi, y1, bHi)
		}
	}
	for k := 0; k < suffix; k++ {
		m.out = append(m.out, [2]int{aHi + k, bHi + k})
	}
}

// middleSnake finds the middle snake of an optimal path from (aLo, bLo) to
// (aHi, bHi): the diagonal run (x0, y0)-(x1, y1) it contains. The inputs
// differ at both ends, so the edit distance is at least 2.
func (m *myers) middleSnake(aLo, aHi, bLo, bHi int) (x0, y0, x1, y1 int) {
	n, mm := aHi-aLo, bHi-bLo
	delta := n - mm
	odd := delta&1 != 0
	half := (n + mm + 1) / 2
	off := len(m.vf) / 2
	vf, vb := m.vf, m.vb
	vf[off+1], vb[off+1] = 0, 0
	for d := 0; d <= half; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && vf[off+k-1] < vf[off+k+1]) {
				x = vf[off+k+1]
			} else {
				x = vf[off+k-1] + 1
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < mm && m.a[aLo+x] == m.b[bLo+y] {
				x, y = x+1, y+1
			}
			vf[off+k] = x
			if kr := delta - k; odd && kr >= -(d-1) && kr <= d-1 && x+vb[off+kr] >= n {
				return aLo + sx, bLo + sy, aLo + x, bLo + y
			}
		}
		for kr := -d; kr <= d; kr += 2 {
			var x int
			if kr == -d || (kr != d && vb[off+kr-1] < vb[off+kr+1]) {
				x = vb[off+kr+1]
			} else {
				x = vb[off+kr-1] + 1
			}
			y := x - kr
			sx, sy := x, y
			for x < n && y < mm && m.a[aHi-1-x] == m.b[bHi-1-y] {
				x, y = x+1, y+1
			}
			vb[off+kr] = x
			if k := delta - kr; !odd && k >= -d && k <= d && x+vf[off+k] >= n {
				return aHi - x, bHi - y, aHi - sx, bHi - sy
			}
		}
	}
	// Unreachable for a correct implementation; fall back to "no common lines".
	return aLo, bLo, aLo, bLo
}
