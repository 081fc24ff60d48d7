package editor

import (
	"fmt"
	"strings"
)

// ApplyPatch applies a unified diff of one file to content: all hunks or
// none. Headers (---/+++, diff --git, index) are optional and ignored. Each
// hunk's context and '-' lines must match the content exactly, except that
// CRLF and LF line ends are not told apart. A hunk is looked for
// first where its @@ header says (shifted by how far the previous hunk
// moved), then anywhere after the previous hunk: it must be found exactly
// once there, else *NoMatchError or *AmbiguousError (Kind "hunk"). Hunks
// must come in file order and not overlap. A hunk with no context and no
// '-' lines is placed by its header alone.
//
// Added lines end as they do in the patch (a "+x\r" line ends in CRLF),
// except that a hunk without any CR is taken to use the file's endings when
// the lines it touches end in CRLF: a diff written with LF for a CRLF file
// adds CRLF lines. "\ No newline at end of file" markers are obeyed; with
// none, the final newline or its absence is kept. So
// ApplyPatch(a, Diff(x, y, a, b)) returns b exactly.
//
// Malformed patches give a *ParseError wrapping ErrBadPatch. The content
// and the patch must be UTF-8 text (ErrBinary, ErrInvalidUTF8).
func ApplyPatch(content []byte, patch string) (Result, error) {
	if err := validate("content", content); err != nil {
		return Result{}, err
	}
	if err := validateString("patch", patch); err != nil {
		return Result{}, err
	}
	hunks, err := parsePatch(patch)
	if err != nil {
		return Result{}, err
	}
	d := newDoc(content)
	mt := newMatcher(d)
	b := &builder{buf: make([]byte, 0, len(content)+len(patch)), eol: d.eol}
	cursor, delta := 0, 0
	oldNoNL, newNoNL := false, false
	matches := make([]Match, 0, len(hunks))
	for hi := range hunks {
		h := &hunks[hi]
		at, err := locate(mt, h, hi, cursor, delta)
		if err != nil {
			return Result{}, err
		}
		old := h.old()
		if h.oldStart >= 0 {
			delta = at - h.oldStart
		}
		// The "\ No newline" markers may only follow each side's last line,
		// which must be the file's last line.
		lastOld, lastNew := -1, -1
		for k, l := range h.lines {
			if l.kind != '+' {
				lastOld = k
			}
			if l.kind != '-' {
				lastNew = k
			}
		}
		for k, l := range h.lines {
			if !l.noNL {
				continue
			}
			if (l.kind != '+' && k != lastOld) || (l.kind != '-' && k != lastNew) || hi != len(hunks)-1 || at+len(old) != len(d.lines) {
				return Result{}, badPatch(hi, h.line, "\"\\ No newline at end of file\" may only follow the last line of the file")
			}
			oldNoNL = oldNoNL || l.kind != '+'
			newNoNL = newNoNL || l.kind != '-'
		}
		b.rawRange(d.s[d.start[cursor]:d.start[at]])
		crlf := useCRLF(d, h, at)
		k := at
		for _, l := range h.lines {
			switch l.kind {
			case ' ':
				b.line(d.lines[k], d.lineEOL(k))
				k++
			case '-':
				k++
			case '+':
				text, eol := l.text, "\n"
				switch {
				case l.noNL:
					eol = ""
				case strings.HasSuffix(text, "\r"):
					text, eol = text[:len(text)-1], "\r\n"
				case crlf:
					eol = "\r\n"
				}
				b.line(text, eol)
			}
		}
		cursor = k
		matches = append(matches, Match{Block: hi, Tier: TierPatch, StartLine: at + 1, EndLine: k})
	}
	b.rawRange(d.s[d.start[cursor]:])
	wantNL := true
	switch {
	case newNoNL:
		wantNL = false
	case oldNoNL:
		wantNL = true
	case len(d.lines) > 0:
		wantNL = d.finalNL
	}
	return Result{Content: b.finish(wantNL), Matches: matches}, nil
}

// sameLine compares a patch line with content line i: exactly (a CRLF line
// is "text\r" in a patch), or ignoring a CR at the end of the patch line.
func sameLine(p string, d *doc, i int) bool {
	f := d.lines[i]
	return strings.TrimSuffix(p, "\r") == f || p == f+strings.TrimSuffix(d.lineEOL(i), "\n")
}

// locate finds where hunk h (number hi) applies: at its stated line
// (shifted by delta) if its old lines are there, else at the one place at
// or after cursor where they are.
func locate(mt *matcher, h *hunk, hi, cursor, delta int) (int, error) {
	d := mt.d
	old := h.old()
	n, m := len(d.lines), len(old)
	if m == 0 {
		at := h.oldStart + delta
		if h.oldStart < 0 || at < cursor || at > n {
			return 0, badPatch(hi, h.line, "the hunk only adds lines and its @@ line does not say where (a line between %d and %d); add context lines", cursor, n)
		}
		return at, nil
	}
	atEOF := old[m-1].noNL
	fits := func(p int) bool {
		if p < cursor || p+m > n || (atEOF && p+m != n) {
			return false
		}
		for j, l := range old {
			if !sameLine(l.text, d, p+j) {
				return false
			}
		}
		return true
	}
	if h.oldStart >= 0 && fits(h.oldStart+delta) {
		return h.oldStart + delta, nil
	}
	var cands []int
	for p := cursor; p+m <= n; p++ {
		if sameLine(old[0].text, d, p) && fits(p) {
			cands = append(cands, p)
		}
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		S := make([]string, m)
		for j, l := range old {
			S[j] = strings.TrimSuffix(l.text, "\r")
		}
		where := "anywhere in the file"
		if cursor > 0 {
			where = fmt.Sprintf("anywhere after line %d (where the previous hunk ends)", cursor)
		}
		if h.oldStart >= 0 {
			where = fmt.Sprintf("at line %d and %s", h.oldStart+delta+1, where)
		}
		e := mt.noMatch("hunk", hi, S, fmt.Sprintf("looked for %s %s", h.header, where))
		return 0, e
	}
	a := ambiguous(hi, TierPatch, cands)
	a.Kind = "hunk"
	return 0, a
}

// useCRLF reports whether the hunk's added lines without a CR should end
// in CRLF: the hunk has no CR at all and every line it touches ends in CRLF.
func useCRLF(d *doc, h *hunk, at int) bool {
	for _, l := range h.lines {
		if strings.HasSuffix(l.text, "\r") {
			return false
		}
	}
	k, crlf := at, 0
	for _, l := range h.lines {
		if l.kind == '+' {
			continue
		}
		switch d.lineEOL(k) {
		case "\r\n":
			crlf++
		case "\n":
			return false
		}
		k++
	}
	return crlf > 0
}
