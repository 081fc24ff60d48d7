package policy

import (
	"sort"
	"strconv"
	"strings"
)

// BurntSushi/toml keeps no position per key that a caller can read (and
// none per element of an array of tables), so the problems of a policy
// file find their place with this small scanner. It reads a document toml
// has already accepted, so it diagnoses nothing: it records where each key
// path is defined — table headers, the elements of arrays of tables (the
// path gets the element's index: deny.1.program), keys, dotted keys, the
// keys of inline tables and the elements of arrays — and on anything it
// does not understand it records less. A lookup falls back to the nearest
// enclosing path it recorded, then to the start of the file.

// keyPath is a path of TOML keys; an element of an array is its index in
// decimal.
type keyPath []string

func (k keyPath) String() string { return strings.Join(k, "\x00") }

// child is k with more keys, never sharing k's backing array.
func (k keyPath) child(keys ...string) keyPath {
	out := make(keyPath, 0, len(k)+len(keys))
	return append(append(out, k...), keys...)
}

type locator struct {
	lines []int          // the byte offset of each line's start
	keys  map[string]int // key path → the byte offset of its key
}

func newLocator(src string) *locator {
	l := &locator{lines: []int{0}, keys: map[string]int{}}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			l.lines = append(l.lines, i+1)
		}
	}
	return l
}

// locate scans a document toml accepted.
func locate(src string) *locator {
	s := &scanner{src: src, loc: newLocator(src), arrays: map[string]int{}}
	s.document()
	return s.loc
}

// position turns a byte offset into a 1-based line and byte column.
func (l *locator) position(off int) (line, col int) {
	off = max(off, 0)
	i := max(sort.Search(len(l.lines), func(i int) bool { return l.lines[i] > off })-1, 0)
	return i + 1, off - l.lines[i] + 1
}

// at is where path, or its nearest recorded ancestor, is defined.
func (l *locator) at(path keyPath) (line, col int) {
	for n := len(path); n > 0; n-- {
		if off, ok := l.keys[path[:n].String()]; ok {
			return l.position(off)
		}
	}
	return 1, 1
}

type scanner struct {
	src    string
	i      int
	loc    *locator
	table  keyPath        // the current table
	arrays map[string]int // array of tables → the elements seen
}

func (s *scanner) record(path keyPath, off int) {
	if _, ok := s.loc.keys[path.String()]; !ok {
		s.loc.keys[path.String()] = off
	}
}

func (s *scanner) peek(n int) byte {
	if s.i+n < len(s.src) {
		return s.src[s.i+n]
	}
	return 0
}

func (s *scanner) document() {
	for {
		s.blank(true)
		if s.i >= len(s.src) {
			return
		}
		start := s.i
		if s.src[s.i] == '[' {
			s.header()
		} else {
			s.keyValue(s.table)
		}
		if s.i == start { // not understood: give up on this line
			s.skipLine()
		}
	}
}

// blank skips spaces and comments, and newlines too if lines is set.
func (s *scanner) blank(lines bool) {
	for s.i < len(s.src) {
		switch c := s.src[s.i]; {
		case c == ' ' || c == '\t':
			s.i++
		case c == '\n' || c == '\r':
			if !lines {
				return
			}
			s.i++
		case c == '#':
			for s.i < len(s.src) && s.src[s.i] != '\n' {
				s.i++
			}
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

func (s *scanner) header() {
	start := s.i
	aot := s.peek(1) == '['
	s.i++
	if aot {
		s.i++
	}
	keys := s.key()
	if keys == nil {
		return
	}
	s.record(keys, start)
	s.table = keys
	if aot {
		n := s.arrays[keys.String()]
		s.arrays[keys.String()] = n + 1
		s.table = keys.child(strconv.Itoa(n))
		s.record(s.table, start)
	}
	s.skipLine()
}

func (s *scanner) keyValue(table keyPath) {
	start := s.i
	keys := s.key()
	if keys == nil {
		return
	}
	s.blank(false)
	if s.peek(0) != '=' {
		return
	}
	s.i++
	path := table.child(keys...)
	s.record(path, start)
	s.value(path)
}

// key reads a dotted key; nil if there is none here.
func (s *scanner) key() keyPath {
	var keys keyPath
	for {
		s.blank(false)
		start := s.i
		switch s.peek(0) {
		case '"', '\'':
			s.str()
			keys = append(keys, unquoteKey(s.src[start:s.i]))
		default:
			for s.i < len(s.src) && isBare(s.src[s.i]) {
				s.i++
			}
			if s.i == start {
				return nil
			}
			keys = append(keys, s.src[start:s.i])
		}
		s.blank(false)
		if s.peek(0) != '.' {
			return keys
		}
		s.i++
	}
}

// unquoteKey is the key a quoted key names (Go's escapes are TOML's but
// for a few that keys hardly use; on those it keeps the raw text).
func unquoteKey(raw string) string {
	if len(raw) < 2 {
		return raw
	}
	if raw[0] == '"' {
		if k, err := strconv.Unquote(raw); err == nil {
			return k
		}
	}
	return raw[1 : len(raw)-1]
}

func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value skips one value, recording the keys of inline tables and the
// elements of arrays under path.
func (s *scanner) value(path keyPath) {
	s.blank(false)
	switch s.peek(0) {
	case '"', '\'':
		s.str()
	case '[':
		s.i++
		for n := 0; ; {
			s.blank(true)
			switch s.peek(0) {
			case 0:
				return
			case ']':
				s.i++
				return
			case ',':
				s.i++
				n++
				continue
			}
			start := s.i
			elem := path.child(strconv.Itoa(n))
			s.record(elem, start)
			s.value(elem)
			if s.i == start {
				s.i++
			}
		}
	case '{':
		s.i++
		for {
			s.blank(true)
			switch s.peek(0) {
			case 0:
				return
			case '}':
				s.i++
				return
			case ',':
				s.i++
				continue
			}
			start := s.i
			s.keyValue(path)
			if s.i == start {
				s.i++
			}
		}
	default: // a number, a boolean, a date
		for s.i < len(s.src) && !strings.ContainsRune(",]}\n#", rune(s.src[s.i])) {
			s.i++
		}
	}
}

// str skips a string of any of TOML's four kinds.
func (s *scanner) str() {
	q := s.src[s.i]
	if strings.HasPrefix(s.src[s.i:], strings.Repeat(string(q), 3)) {
		s.i += 3
		for s.i < len(s.src) {
			if q == '"' && s.src[s.i] == '\\' {
				s.i += 2
				continue
			}
			if strings.HasPrefix(s.src[s.i:], strings.Repeat(string(q), 3)) {
				s.i += 3
				for n := 0; n < 2 && s.peek(0) == q; n++ { // up to two quotes end the content
					s.i++
				}
				return
			}
			s.i++
		}
		s.i = min(s.i, len(s.src))
		return
	}
	s.i++
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		c := s.src[s.i]
		s.i++
		if c == '\\' && q == '"' {
			s.i++
			continue
		}
		if c == q {
			return
		}
	}
	s.i = min(s.i, len(s.src))
}
