package workflow

import (
	"sort"
	"strconv"
	"strings"
)

// BurntSushi/toml reports no position per key, so problems find their
// place in the source with a small scanner of their own. It reads a
// document toml has already accepted (so it need not diagnose anything),
// and records where every key path is defined: table headers, array of
// tables elements (the path gets the element's index: stages.a.next.1),
// dotted keys, inline tables and arrays, on one line or many. It never
// fails: on input it does not understand it records less, and a lookup
// falls back to the nearest enclosing path that it did record.

// span is where a key path is defined: the key (or the table header) and
// its value, as byte offsets into the source (val is -1 for a header).
type span struct {
	key, val, end int
}

// index maps key paths to their spans in one source text.
type index struct {
	src   string
	lines []int // byte offset of the start of each line
	spans map[string]span
}

// pathKey joins a key path; the separator cannot occur in a TOML key that
// matters here (a stage name with it is rejected anyway).
func pathKey(path []string) string { return strings.Join(path, "\x00") }

func newIndex(src string) *index {
	ix := &index{src: src, lines: lineStarts(src), spans: map[string]span{}}
	s := &scanner{ix: ix, src: src, arrays: map[string]int{}}
	s.document()
	return ix
}

func lineStarts(src string) []int {
	lines := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// position turns a byte offset into a 1-based line and byte column.
func (ix *index) position(off int) (line, col int) {
	if off < 0 {
		return 1, 1
	}
	i := sort.Search(len(ix.lines), func(i int) bool { return ix.lines[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, off - ix.lines[i] + 1
}

// find returns the span of path, or of its nearest recorded ancestor (and
// the start of the file if none is recorded).
func (ix *index) find(path ...string) span {
	for n := len(path); n > 0; n-- {
		if sp, ok := ix.spans[pathKey(path[:n])]; ok {
			return sp
		}
	}
	return span{key: 0, val: -1, end: -1}
}

// at returns the line and column of the key path (or its nearest ancestor).
func (ix *index) at(path ...string) (line, col int) {
	return ix.position(ix.find(path...).key)
}

// stringValue returns the offset of the first byte of path's value when
// that value is a one-line string whose source text is exactly s (no
// escapes), so that a position inside s maps to the file; ok is false
// otherwise.
func (ix *index) stringValue(s string, path ...string) (off int, ok bool) {
	sp, found := ix.spans[pathKey(path)]
	if !found || sp.val < 0 || sp.end > len(ix.src) || sp.end-sp.val < 2 {
		return 0, false
	}
	raw := ix.src[sp.val:sp.end]
	q := raw[0]
	if (q != '"' && q != '\'') || raw[len(raw)-1] != q || strings.HasPrefix(raw, `"""`) || strings.HasPrefix(raw, `'''`) {
		return 0, false
	}
	if raw[1:len(raw)-1] != s || strings.ContainsAny(s, "\n\\") {
		return 0, false
	}
	return sp.val + 1, true
}

type scanner struct {
	ix     *index
	src    string
	i      int
	arrays map[string]int // array of tables path → elements so far
}

func (s *scanner) record(path []string, sp span) {
	k := pathKey(path)
	if _, ok := s.ix.spans[k]; !ok {
		s.ix.spans[k] = sp
	}
}

// recordPrefixes records sp for path and each of its ancestors that has
// no position yet (a dotted key or a sub-table defines them implicitly).
func (s *scanner) recordPrefixes(path []string, sp span) {
	for n := 1; n <= len(path); n++ {
		s.record(path[:n], span{key: sp.key, val: -1, end: -1})
	}
	s.ix.spans[pathKey(path)] = sp
}

func (s *scanner) peek(off int) byte {
	if s.i+off < len(s.src) {
		return s.src[s.i+off]
	}
	return 0
}

// blank skips spaces and tabs (and newlines and comments if lines is set).
func (s *scanner) blank(lines bool) {
	for s.i < len(s.src) {
		switch c := s.src[s.i]; {
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
		case lines && c == '\n':
			s.i++
		case lines && c == '#':
			s.skipLine()
		default:
			return
		}
	}
}

func (s *scanner) skipLine() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.i++
	}
}

func (s *scanner) document() {
	if strings.HasPrefix(s.src, "\uFEFF") {
		s.i = 3
	}
	var table []string
	for s.i < len(s.src) {
		start := s.i
		s.blank(true)
		if s.i >= len(s.src) {
			return
		}
		switch {
		case s.peek(0) == '[' && s.peek(1) == '[':
			at := s.i
			s.i += 2
			keys := s.key()
			s.blank(false)
			if s.peek(0) == ']' && s.peek(1) == ']' {
				s.i += 2
			}
			if len(keys) == 0 {
				break
			}
			base := append(s.resolve(keys[:len(keys)-1]), keys[len(keys)-1])
			n := s.arrays[pathKey(base)]
			s.arrays[pathKey(base)] = n + 1
			table = append(base, strconv.Itoa(n))
			s.recordPrefixes(table, span{key: at, val: -1, end: -1})
		case s.peek(0) == '[':
			at := s.i
			s.i++
			keys := s.key()
			s.blank(false)
			if s.peek(0) == ']' {
				s.i++
			}
			table = s.resolve(keys)
			if len(table) > 0 {
				s.recordPrefixes(table, span{key: at, val: -1, end: -1})
			}
		default:
			s.keyValue(table)
		}
		s.blank(false)
		if s.peek(0) == '#' {
			s.skipLine()
		}
		if s.i == start { // nothing understood: move on
			s.i++
		}
	}
}

// resolve turns a header's keys into a path, inserting the index of the
// last element of each array of tables it goes through.
func (s *scanner) resolve(keys []string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k)
		if n, ok := s.arrays[pathKey(out)]; ok && n > 0 {
			out = append(out, strconv.Itoa(n-1))
		}
	}
	return out
}

// keyValue reads `a.b = value` in the table at path parent.
func (s *scanner) keyValue(parent []string) {
	at := s.i
	keys := s.key()
	if len(keys) == 0 {
		return
	}
	s.blank(false)
	if s.peek(0) != '=' {
		return
	}
	s.i++
	s.blank(false)
	path := append(append([]string(nil), parent...), keys...)
	val := s.i
	s.recordPrefixes(path, span{key: at, val: val, end: val})
	s.value(path)
	s.ix.spans[pathKey(path)] = span{key: at, val: val, end: s.i}
}

// key reads a (dotted) key: bare, "basic" or 'literal' parts.
func (s *scanner) key() []string {
	var keys []string
	for {
		s.blank(false)
		switch c := s.peek(0); {
		case c == '"' || c == '\'':
			start := s.i
			s.str()
			k, err := unquoteKey(s.src[start:s.i])
			if err != nil {
				return keys
			}
			keys = append(keys, k)
		case isBare(c):
			start := s.i
			for s.i < len(s.src) && isBare(s.src[s.i]) {
				s.i++
			}
			keys = append(keys, s.src[start:s.i])
		default:
			return keys
		}
		s.blank(false)
		if s.peek(0) != '.' {
			return keys
		}
		s.i++
	}
}

func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func unquoteKey(q string) (string, error) {
	if len(q) >= 2 && q[0] == '\'' {
		return q[1 : len(q)-1], nil
	}
	return strconv.Unquote(q)
}

// value skips one value, recording the keys of inline tables and the
// elements of arrays under path.
func (s *scanner) value(path []string) {
	switch c := s.peek(0); {
	case c == '"' || c == '\'':
		s.str()
	case c == '{':
		s.items('}', func() { s.keyValue(path) })
	case c == '[':
		n := 0
		s.items(']', func() {
			at := s.i
			elem := append(append([]string(nil), path...), strconv.Itoa(n))
			s.recordPrefixes(elem, span{key: at, val: at, end: at})
			s.value(elem)
			s.ix.spans[pathKey(elem)] = span{key: at, val: at, end: s.i}
			n++
		})
	default: // a number, a boolean, a date
		for s.i < len(s.src) && !strings.ContainsRune(",]}# \t\r\n", rune(s.src[s.i])) {
			s.i++
		}
	}
}

// items reads the comma-separated items of an inline table or an array,
// from its opening bracket to close, calling item at the start of each.
func (s *scanner) items(close byte, item func()) {
	s.i++
	for s.i < len(s.src) {
		s.blank(true)
		switch s.peek(0) {
		case close:
			s.i++
			return
		case ',':
			s.i++
			continue
		}
		before := s.i
		item()
		if s.i == before { // not understood: give up on this value
			return
		}
	}
}

// str skips a string of any of the four kinds.
func (s *scanner) str() {
	defer func() { s.i = min(s.i, len(s.src)) }()
	q := s.peek(0)
	if s.peek(1) == q && s.peek(2) == q { // multi-line
		s.i += 3
		for s.i < len(s.src) {
			if q == '"' && s.src[s.i] == '\\' {
				s.i += 2
				continue
			}
			if s.peek(0) == q && s.peek(1) == q && s.peek(2) == q {
				s.i += 3
				for s.peek(0) == q { // up to two quotes may end the content
					s.i++
				}
				return
			}
			s.i++
		}
		return
	}
	s.i++
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		c := s.src[s.i]
		if q == '"' && c == '\\' {
			s.i += 2
			continue
		}
		s.i++
		if c == q {
			return
		}
	}
}
