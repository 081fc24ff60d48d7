package editor

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// doc is content split into lines. Line i is s[start[i]:start[i+1]]: its
// text lines[i] followed by its ending ("\n", "\r\n", or "" for a last line
// without a final newline).
type doc struct {
	s       string
	lines   []string
	start   []int // len(lines)+1 offsets; start[len(lines)] == len(s)
	eol     string
	finalNL bool
}

func newDoc(content []byte) *doc {
	s := string(content)
	n := strings.Count(s, "\n")
	d := &doc{s: s, lines: make([]string, 0, n+1), start: make([]int, 0, n+2), eol: "\n"}
	crlf := 0
	for off := 0; off < len(s); {
		d.start = append(d.start, off)
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			d.lines = append(d.lines, s[off:])
			off = len(s)
			break
		}
		end := off + i
		if end > off && s[end-1] == '\r' {
			crlf++
			end--
		}
		d.lines = append(d.lines, s[off:end])
		off += i + 1
	}
	d.start = append(d.start, len(s))
	d.finalNL = len(s) > 0 && s[len(s)-1] == '\n'
	if crlf > n-crlf {
		d.eol = "\r\n"
	}
	return d
}

// lineEOL is the ending of line i as it is in the content.
func (d *doc) lineEOL(i int) string { return d.s[d.start[i]+len(d.lines[i]) : d.start[i+1]] }

// raw is line i with its ending.
func (d *doc) raw(i int) string { return d.s[d.start[i]:d.start[i+1]] }

// userLines splits edit text (SEARCH, REPLACE) into lines. The text uses LF
// (a CR before an LF is dropped); a final newline does not start another line.
func userLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	out := strings.Split(s, "\n")
	for i, l := range out {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	return out
}

// isBlank reports whether a line is empty or whitespace only.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// builder assembles output content: raw ranges of the old content and new
// lines. Every line it writes gets an ending; finish sets the final newline.
type builder struct {
	buf  []byte
	eol  string
	tail int // length of the ending the last line() wrote, -1 after raw bytes
}

func (b *builder) rawRange(s string) {
	if s != "" {
		b.buf = append(b.buf, s...)
		b.tail = -1
	}
}

func (b *builder) line(text, eol string) {
	if len(b.buf) > 0 && b.buf[len(b.buf)-1] != '\n' {
		b.buf = append(b.buf, b.eol...) // the old last line is not last any more
	}
	if eol == "" {
		eol = b.eol
	}
	b.buf = append(b.buf, text...)
	b.buf = append(b.buf, eol...)
	b.tail = len(eol)
}

// finish makes the output end with a newline or not, as wanted.
func (b *builder) finish(wantNL bool) []byte {
	if len(b.buf) == 0 {
		return []byte{}
	}
	ends := b.buf[len(b.buf)-1] == '\n'
	switch {
	case wantNL && !ends:
		b.buf = append(b.buf, b.eol...)
	case !wantNL && ends && b.tail >= 0:
		b.buf = b.buf[:len(b.buf)-b.tail]
	case !wantNL && ends:
		b.buf = b.buf[:len(b.buf)-1]
		if len(b.buf) > 0 && b.buf[len(b.buf)-1] == '\r' {
			b.buf = b.buf[:len(b.buf)-1]
		}
	}
	return b.buf
}

// Validate returns an error wrapping ErrBinary if content has a NUL byte,
// one wrapping ErrInvalidUTF8 if it is not valid UTF-8 (both are *TextError,
// with the byte offset and line of the first bad byte), or nil.
func Validate(content []byte) error { return validate("", content) }

func validate(what string, b []byte) error {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return &TextError{Err: ErrBinary, What: what, Offset: i, Line: 1 + bytes.Count(b[:i], []byte{'\n'})}
	}
	if utf8.Valid(b) {
		return nil
	}
	i := 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	return &TextError{Err: ErrInvalidUTF8, What: what, Offset: i, Line: 1 + bytes.Count(b[:i], []byte{'\n'})}
}

func validateString(what, s string) error {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return nil
	}
	return validate(what, []byte(s))
}
