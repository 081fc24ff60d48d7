package treesitter

import (
	"bytes"
	"fmt"
)

// MaxNesting is the deepest nesting of Markdown block containers (block
// quotes and list items) given to the grammar. tree-sitter-markdown's
// scanner aborts the process (stack.c ts_stack_push assertion, SIGABRT) at
// 256 open containers — 256 '>' in a row, "- " repeated 256 times, a list
// nested 256 deep — and an abort in C cannot be recovered from in Go.
const MaxNesting = 100

// guardNesting gives the Markdown grammar a copy of src in which no line can
// open more than MaxNesting containers: on a line whose prefix could,
// the container markers past the limit are replaced by spaces of the same
// length, so that every offset stays the same and the text past them is read
// as text. It returns src itself when no line comes near the limit, and the
// 1-based numbers of the lines it changed.
//
// The bound is per line, with no state carried: a line keeps open only the
// containers its own prefix continues — a '>' for each block quote, at
// least two columns of indentation for each list item — and opens those
// whose markers it holds, or opens nothing (a lazy continuation line keeps
// what is open without adding). So the containers open after a line number
// at most the '>' and list markers of its prefix plus half its indentation,
// and a file whose every line is within the bound is within it.
func guardNesting(src []byte) ([]byte, []int) {
	var out []byte
	var changed []int
	line := 0
	for start := 0; start < len(src); line++ {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		if 2*(end-start) > MaxNesting { // a shorter line cannot reach it (a tab is 4 columns: 2 levels)
			if cut := nestingCut(src[start:end]); cut >= 0 {
				if out == nil {
					out = append([]byte(nil), src...)
				}
				blankMarkers(out[start+cut : end])
				changed = append(changed, line+1)
			}
		}
		start = end + 1
	}
	if out == nil {
		return src, nil
	}
	return out, changed
}

// nestingCut returns the offset in l of the first container marker that
// would make l's prefix open more than MaxNesting containers, or -1. A space
// or tab right after a marker belongs to it; other whitespace may continue
// list items, each needing at least two columns.
func nestingCut(l []byte) int {
	depth, cols := 0, 0
	for i := 0; i < len(l); {
		at := i
		switch c := l[i]; {
		case c == ' ':
			cols++
			i++
			continue
		case c == '\t':
			cols += 4
			i++
			continue
		case c == '>':
			i++
		default:
			n := listMarker(l[i:])
			if n == 0 {
				return -1 // the prefix ends: the rest is content
			}
			i += n
		}
		if depth++; depth+cols/2 > MaxNesting {
			return at
		}
		if i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++ // the marker's own space
		}
	}
	return -1
}

// listMarker returns the length of the list item marker at the start of l
// ("-", "*", "+", or 1-9 digits and "." or ")", followed by a space, a tab or
// the end of the line), or 0.
func listMarker(l []byte) int {
	n := 0
	switch {
	case len(l) > 0 && (l[0] == '-' || l[0] == '*' || l[0] == '+'):
		n = 1
	default:
		for n < len(l) && n < 9 && l[n] >= '0' && l[n] <= '9' {
			n++
		}
		if n == 0 || n == len(l) || l[n] != '.' && l[n] != ')' {
			return 0
		}
		n++
	}
	if n < len(l) && l[n] != ' ' && l[n] != '\t' && l[n] != '\r' {
		return 0
	}
	return n
}

// blankMarkers turns the container markers in l ('>', list markers) into
// spaces, up to the first byte that is neither a marker nor whitespace.
func blankMarkers(l []byte) {
	for i := 0; i < len(l); {
		switch c := l[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '>':
			l[i] = ' '
			i++
		default:
			n := listMarker(l[i:])
			if n == 0 {
				return
			}
			for j := i; j < i+n; j++ {
				l[j] = ' '
			}
			i += n
		}
	}
}

// nestingNote says which lines guardNesting changed, for File.Partial.
func nestingNote(lines []int) string {
	if len(lines) == 0 {
		return ""
	}
	where := fmt.Sprintf("line %d", lines[0])
	if len(lines) > 1 {
		where = fmt.Sprintf("%d lines from line %d", len(lines), lines[0])
	}
	return fmt.Sprintf("block quotes and lists nested deeper than %d (%s): the markers past that depth are read as text", MaxNesting, where)
}
