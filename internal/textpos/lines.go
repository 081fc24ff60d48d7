package textpos

import (
	"sort"
	"unicode/utf8"
)

// Position is a place in a file: a byte offset plus its 0-based line and
// 0-based column counted in bytes from the start of that line.
type Position struct{ Byte, Line, Column int }

// Span is a half-open byte range [Start.Byte, End.Byte).
type Span struct{ Start, End Position }

// Lines indexes the line starts of a text so that conversions between byte
// offsets, (line, byte column) and (line, UTF-16 column) cost O(log lines).
// A line ends after '\n'; a '\r' before it belongs to the line's content,
// so CRLF files count one line per CRLF. All positions in this package are
// computed here, never taken from tree-sitter points.
type Lines struct {
	text   []byte
	starts []int // byte offset of each line start; starts[0] == 0
}

// New indexes text. The text is retained, not copied.
func New(text []byte) *Lines {
	starts := make([]int, 1, 1+len(text)/32)
	for i, b := range text {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &Lines{text: text, starts: starts}
}

// Count is the number of lines (a text ending in '\n' has an empty last line).
func (l *Lines) Count() int { return len(l.starts) }

// LineStart is the byte offset where line begins (clamped to the text).
func (l *Lines) LineStart(line int) int {
	if line < 0 {
		return 0
	}
	if line >= len(l.starts) {
		return len(l.text)
	}
	return l.starts[line]
}

// lineEnd is the offset of the line's '\n' (or the end of text); a '\r'
// before the '\n' is excluded so columns never point inside CRLF.
func (l *Lines) lineEnd(line int) int {
	if line+1 >= len(l.starts) {
		return len(l.text) // last line: no newline after it
	}
	end := l.starts[line+1] - 1 // the '\n'
	if end > l.starts[line] && l.text[end-1] == '\r' {
		end--
	}
	return end
}

// Position converts a byte offset (clamped to [0, len]) to a Position.
func (l *Lines) Position(off int) Position {
	if off < 0 {
		off = 0
	}
	if off > len(l.text) {
		off = len(l.text)
	}
	line := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
	return Position{Byte: off, Line: line, Column: off - l.starts[line]}
}

// Span converts a byte range to a Span.
func (l *Lines) Span(start, end int) Span { return Span{l.Position(start), l.Position(end)} }

// Offset converts (line, byte column) to a byte offset, clamping the column
// to the line's content (before any CR LF) and the line to the text.
func (l *Lines) Offset(line, col int) int {
	if line >= len(l.starts) {
		return len(l.text)
	}
	start := l.LineStart(line)
	if col < 0 {
		col = 0
	}
	if start+col > l.lineEnd(line) {
		return l.lineEnd(line)
	}
	return start + col
}

// UTF16Column is the column of off in UTF-16 code units, as LSP counts by
// default: characters outside the BMP (emoji, U+1D11E) count 2, others 1;
// an invalid byte counts 1 (as U+FFFD would).
func (l *Lines) UTF16Column(off int) (line, col int) {
	p := l.Position(off)
	return p.Line, utf16Len(l.text[l.starts[p.Line]:p.Byte])
}

// OffsetUTF16 converts an LSP (line, UTF-16 character) position to a byte
// offset. A column inside a surrogate pair or past the line end snaps to the
// end of that character or line, as the LSP spec asks.
func (l *Lines) OffsetUTF16(line, col int) int {
	if line >= len(l.starts) {
		return len(l.text)
	}
	i, end := l.LineStart(line), l.lineEnd(line)
	for n := 0; i < end && n < col; {
		r, size := utf8.DecodeRune(l.text[i:end])
		n += runeUTF16(r)
		i += size
	}
	return i
}

func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		n += runeUTF16(r)
		b = b[size:]
	}
	return n
}

func runeUTF16(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}
