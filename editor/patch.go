package editor

import (
	"fmt"
	"strconv"
	"strings"
)

// hunk is one parsed "@@" hunk of a unified diff.
type hunk struct {
	header             string
	line               int // 1-based line of the header in the patch
	oldStart           int // 0-based index of the first old line (or insertion point), -1 if not given
	oldCount, newCount int // from the header, -1 if not given
	lines              []hunkLine
}

type hunkLine struct {
	kind byte   // ' ', '-' or '+'
	text string // the line after its prefix, without "\n" (may end in "\r")
	noNL bool   // followed by "\ No newline at end of file"
}

func (h *hunk) count(kinds string) int {
	n := 0
	for _, l := range h.lines {
		if strings.IndexByte(kinds, l.kind) >= 0 {
			n++
		}
	}
	return n
}

// old is the hunk's context and removed lines.
func (h *hunk) old() []hunkLine {
	var out []hunkLine
	for _, l := range h.lines {
		if l.kind != '+' {
			out = append(out, l)
		}
	}
	return out
}

func badPatch(hunk, line int, format string, args ...any) error {
	return &ParseError{Err: ErrBadPatch, Block: hunk, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// isFileHeader reports whether lines[i] starts a "--- "/"+++ " header pair.
func isFileHeader(lines []string, i int) bool {
	return strings.HasPrefix(lines[i], "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ")
}

// parsePatch parses a one-file unified diff. Lines before the first hunk
// (diff/index/---/+++ headers, a ``` fence, prose) are skipped.
func parsePatch(patch string) ([]hunk, error) {
	lines := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")
	var hunks []hunk
	changes := 0
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "@@"):
			h, err := parseHeader(l, i+1, len(hunks))
			if err != nil {
				return nil, err
			}
			next, err := h.readBody(lines, i+1, len(hunks))
			if err != nil {
				return nil, err
			}
			if len(h.lines) == 0 {
				return nil, badPatch(len(hunks), i+1, "the hunk has no lines; give context, '-' and '+' lines after the @@ line")
			}
			changes += h.count("+-")
			hunks = append(hunks, h)
			i = next
		case len(hunks) > 0 && l == "-- ":
			i = len(lines) // git format-patch's signature: the end
		case isFileHeader(lines, i) && len(hunks) > 0:
			return nil, badPatch(-1, i+1, "a second file header; a patch may change one file only")
		case len(hunks) > 0 && l != "" && strings.IndexByte(" +-\\", l[0]) >= 0:
			return nil, badPatch(len(hunks)-1, i+1, "a hunk line outside any hunk; check the @@ line counts")
		default:
			i++
		}
	}
	if len(hunks) == 0 {
		return nil, badPatch(-1, 1, "no hunks; a unified diff has \"@@ -OLD,COUNT +NEW,COUNT @@\" lines, each followed by ' ' (context), '-' and '+' lines")
	}
	if changes == 0 {
		return nil, badPatch(-1, hunks[0].line, "the patch has no '-' or '+' lines, so it changes nothing")
	}
	return hunks, nil
}

// parseHeader reads "@@ -a,b +c,d @@". A header without numbers ("@@ @@",
// "@@ ... @@") leaves them unknown (-1): the hunk is then found by its lines
// alone. Numbers that are there must be right: a negative count or a
// garbled range is a *ParseError, not a guess.
func parseHeader(l string, line, idx int) (hunk, error) {
	h := hunk{header: l, line: line, oldStart: -1, oldCount: -1, newCount: -1}
	rest := strings.TrimPrefix(l, "@@")
	if end := strings.Index(rest, "@@"); end >= 0 {
		rest = rest[:end]
	}
	f := strings.Fields(rest)
	if !givesNumbers(f) {
		return h, nil
	}
	bad := func(why string) (hunk, error) {
		return hunk{}, badPatch(idx, line, "the hunk header %q %s; write \"@@ -OLD,COUNT +NEW,COUNT @@\" with line numbers from 1 and counts from 0, or \"@@ @@\" to let lunad find the place", l, why)
	}
	if len(f) != 2 || !strings.HasPrefix(f[0], "-") || !strings.HasPrefix(f[1], "+") {
		return bad("does not have one -OLD and one +NEW range")
	}
	oa, oc, err := parseRange(f[0][1:])
	if err != "" {
		return bad("has an old range " + f[0] + " " + err)
	}
	_, nc, err := parseRange(f[1][1:])
	if err != "" {
		return bad("has a new range " + f[1] + " " + err)
	}
	h.oldCount, h.newCount = oc, nc
	h.oldStart = oa - 1
	if oc == 0 {
		h.oldStart = oa // insertion after line oa
	}
	h.oldStart = max(h.oldStart, 0)
	return h, nil
}

// givesNumbers reports whether a header's fields try to give line numbers: a
// field of '-' or '+' followed by a digit, ',' or another sign.
func givesNumbers(f []string) bool {
	for _, s := range f {
		if len(s) > 1 && (s[0] == '-' || s[0] == '+') && strings.IndexByte("0123456789,-+", s[1]) >= 0 {
			return true
		}
	}
	return false
}

// parseRange reads "START[,COUNT]"; it returns why it is wrong, or "".
func parseRange(s string) (start, count int, why string) {
	a, b, found := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, "whose start is not a line number"
	}
	count = 1
	if found {
		if count, err = strconv.Atoi(b); err != nil {
			return 0, 0, "whose count is not a number"
		}
		if count < 0 {
			return 0, 0, "whose count is negative"
		}
	}
	return start, count, ""
}

// readBody reads the hunk's lines from lines[i:] and returns the index of
// the first line after them. The body ends at the next @@ line, file header
// or non-hunk line; an empty line is a blank context line unless the
// header's counts are already met (or, without counts, nothing but blank
// lines follows).
func (h *hunk) readBody(lines []string, i, idx int) (int, error) {
	nOld, nNew := 0, 0
	for ; i < len(lines); i++ {
		l := lines[i]
		met := h.oldCount >= 0 && nOld >= h.oldCount && nNew >= h.newCount
		// The next hunk, the next file (unless the counts say these are
		// "-- x" and "++ y" lines), or git format-patch's signature.
		if strings.HasPrefix(l, "@@") || (met || h.oldCount < 0) && isFileHeader(lines, i) || met && l == "-- " {
			break
		}
		if l == "" {
			if met || (h.oldCount < 0 && !moreHunkLines(lines, i)) {
				break
			}
			l = " "
		}
		switch l[0] {
		case ' ', '-', '+':
			h.lines = append(h.lines, hunkLine{kind: l[0], text: l[1:]})
			if l[0] != '+' {
				nOld++
			}
			if l[0] != '-' {
				nNew++
			}
			continue
		case '\\':
			if len(h.lines) == 0 || h.lines[len(h.lines)-1].noNL {
				return 0, badPatch(idx, i+1, "a \"\\ No newline at end of file\" line must follow a hunk line")
			}
			h.lines[len(h.lines)-1].noNL = true
			continue
		}
		break
	}
	if i == len(lines) && h.oldCount >= 0 && (nOld < h.oldCount || nNew < h.newCount) {
		return 0, badPatch(idx, h.line, "the header %s promises %d old and %d new lines but the patch ends after %d and %d; it looks cut off", h.header, h.oldCount, h.newCount, nOld, nNew)
	}
	return i, nil
}

// moreHunkLines reports whether a hunk line follows the blank lines at i.
func moreHunkLines(lines []string, i int) bool {
	for ; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		return strings.IndexByte(" +-\\", l[0]) >= 0 && !isFileHeader(lines, i)
	}
	return false
}
