package editor

import (
	"slices"
	"strings"
)

// A three-way merge of lines (diff3): the changes from base to ours and
// from base to theirs, both kept when they touch different lines. Lines are
// compared and copied with their endings, so the result is byte-exact: a
// CRLF line stays CRLF, a last line without a newline stays without one.

// Conflict is one place where ours and theirs changed the same lines of
// base differently: the lines of each side, with their endings. Line is
// the 1-based line of ours where the conflict starts (for a conflict
// that only inserts, the line it inserts before).
type Conflict struct {
	Line   int    `json:"line"`
	Base   string `json:"base"`
	Ours   string `json:"ours"`
	Theirs string `json:"theirs"`
}

// Merge3 merges the changes base→ours and base→theirs. With no conflict it
// returns the merged text and nil; otherwise nil and every conflict, in
// order. A region changed on one side only takes that side's lines; one
// changed the same way on both takes them once. Changes to adjacent lines
// conflict, as they do in git, since no line between them shows where one
// ends and the other begins.
//
// Merge3(x, x, y) == y, Merge3(x, y, x) == y and Merge3(x, y, y) == y, and
// a clean merge does not depend on which side is ours.
func Merge3(base, ours, theirs []byte) ([]byte, []Conflict) {
	b, o, t := rawLines(newDoc(base)), rawLines(newDoc(ours)), rawLines(newDoc(theirs))
	toOurs, toTheirs := shared(o, b), shared(t, b) // for each base line, its line in ours, in theirs
	var out strings.Builder
	var conflicts []Conflict
	i, j, k := 0, 0, 0
	for i < len(b) || j < len(o) || k < len(t) {
		if i < len(b) && toOurs[i] == j && toTheirs[i] == k {
			out.WriteString(b[i]) // stable: the same line in all three
			i, j, k = i+1, j+1, k+1
			continue
		}
		// An unstable chunk, up to the next base line both sides kept.
		ni := i
		for ni < len(b) && (toOurs[ni] < 0 || toTheirs[ni] < 0) {
			ni++
		}
		nj, nk := len(o), len(t)
		if ni < len(b) {
			nj, nk = toOurs[ni], toTheirs[ni]
		}
		cb, co, ct := b[i:ni], o[j:nj], t[k:nk]
		switch {
		case slices.Equal(co, cb):
			writeLines(&out, ct)
		case slices.Equal(ct, cb), slices.Equal(co, ct):
			writeLines(&out, co)
		default:
			conflicts = append(conflicts, Conflict{Line: j + 1, Base: strings.Join(cb, ""),
				Ours: strings.Join(co, ""), Theirs: strings.Join(ct, "")})
		}
		i, j, k = ni, nj, nk
	}
	if conflicts != nil {
		return nil, conflicts
	}
	return []byte(out.String()), nil
}

func writeLines(out *strings.Builder, ls []string) {
	for _, l := range ls {
		out.WriteString(l)
	}
}
