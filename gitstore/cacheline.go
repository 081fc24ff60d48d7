package gitstore

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/lunad/lunad"
)

// decodeEntry decodes one line of the commit cache (an entry as
// json.Marshal writes it). Every process that opens a store reads the
// whole cache, one line per commit of the repository's history:
// encoding/json took ~8 µs a line, 40 ms of a `lunad edit` in a
// repository of 5,000 commits, more than all the rest of the edit. The
// lines are decoded here by a parser of exactly the shape json.Marshal
// gives an entry (its keys, each once, no whitespace, strings without
// escapes, integers); any other line — a subject with a quote in it, a
// field a later lunad added — goes to encoding/json, so the result is
// always what json.Unmarshal gives. in interns the short strings that
// repeat from line to line (authors, agents, operations); nil: none.
func decodeEntry(line []byte, in interner) (*entry, error) {
	if e, ok := decodeEntryFast(line, in); ok {
		return e, nil
	}
	var e entry
	if err := json.Unmarshal(line, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// interner maps short strings to one copy of each.
type interner map[string]string

func (in interner) get(b []byte) string {
	if len(b) > 32 || in == nil {
		return string(b)
	}
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	in[s] = s
	return s
}

// decodeEntryFast is decodeEntry's parser; false: the line is not of the
// shape it reads.
func decodeEntryFast(line []byte, in interner) (*entry, bool) {
	d := entryDecoder{b: line}
	e := &entry{}
	var seen fields
	for d.begin(); d.more(); {
		switch key := d.key(); string(key) {
		case "c":
			d.once(&seen, 0)
			e.Commit = string(d.str())
		case "p":
			d.once(&seen, 1)
			e.Parents = d.strs()
		case "t":
			d.once(&seen, 2)
			e.Unix = d.int()
		case "a":
			d.once(&seen, 3)
			e.Author = in.get(d.str())
		case "r":
			d.once(&seen, 4)
			d.record(&e.Rec, in)
		case "l":
			d.once(&seen, 5)
			e.Lunad = d.boolean()
		default:
			d.bad = true
		}
	}
	return e, !d.bad && d.i == len(d.b)
}

// fields records the keys of an object already read.
type fields uint16

// entryDecoder reads JSON of the restricted shape decodeEntryFast accepts;
// bad is set at the first thing it does not read.
type entryDecoder struct {
	b     []byte
	i     int
	bad   bool
	first bool // in an object, before its first key
}

func (d *entryDecoder) lit(s string) bool {
	if !d.bad && d.i+len(s) <= len(d.b) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// begin opens an object, whose keys more and key then read:
//
//	for d.begin(); d.more(); { switch string(d.key()) { ... } }
func (d *entryDecoder) begin() {
	if !d.lit("{") {
		d.bad = true
	}
	d.first = true
}

// more reports whether another key follows (it reads the comma before
// it), false at the end of the object (read) or on bad input.
func (d *entryDecoder) more() bool {
	if d.bad {
		return false
	}
	if d.lit("}") {
		d.first = false // what follows the object needs its comma
		return false
	}
	if !d.first && !d.lit(",") {
		d.bad = true
		return false
	}
	d.first = false
	return true
}

// key reads a key and its colon.
func (d *entryDecoder) key() []byte {
	k := d.str()
	if !d.lit(":") {
		d.bad = true
	}
	return k
}

// once marks field n of an object as read: a key given twice is not read
// (json.Unmarshal would merge the values of some).
func (d *entryDecoder) once(seen *fields, n uint) {
	if *seen&(1<<n) != 0 {
		d.bad = true
	}
	*seen |= 1 << n
}

// str reads a string without escapes or control characters, of valid
// UTF-8 (what json.Unmarshal would change is left to it); the bytes are
// the line's.
func (d *entryDecoder) str() []byte {
	if !d.lit(`"`) {
		d.bad = true
		return nil
	}
	n := bytes.IndexByte(d.b[d.i:], '"')
	if n < 0 {
		d.bad = true
		return nil
	}
	s := d.b[d.i : d.i+n]
	d.i += n + 1
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			d.bad = true
			return nil
		}
	}
	if !utf8.Valid(s) {
		d.bad = true
	}
	return s
}

// strs reads null or an array of strings.
func (d *entryDecoder) strs() []string {
	return array(d, func() string { return string(d.str()) })
}

// array reads null (nil) or an array whose elements elem reads.
func array[T any](d *entryDecoder, elem func() T) []T {
	if d.lit("null") {
		return nil
	}
	if !d.lit("[") {
		d.bad = true
		return nil
	}
	out := []T{}
	if d.lit("]") {
		return out
	}
	for !d.bad {
		out = append(out, elem())
		if d.lit("]") {
			return out
		}
		if !d.lit(",") {
			d.bad = true
		}
	}
	return nil
}

// int reads an integer as JSON writes it: -?(0|[1-9][0-9]*).
func (d *entryDecoder) int() int64 {
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n := d.i - digits
	if n == 0 || n > 1 && d.b[digits] == '0' || d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.bad = true
		return 0
	}
	v, err := strconv.ParseInt(string(d.b[start:d.i]), 10, strconv.IntSize)
	if err != nil {
		d.bad = true
	}
	return v
}

func (d *entryDecoder) boolean() bool {
	switch {
	case d.lit("true"):
		return true
	case d.lit("false"):
		return false
	}
	d.bad = true
	return false
}

// record reads an entry's "r".
func (d *entryDecoder) record(r *record, in interner) {
	var seen fields
	for d.begin(); d.more(); {
		switch key := d.key(); string(key) {
		case "Op":
			d.once(&seen, 0)
			r.Op = lunad.Op(in.get(d.str()))
		case "Artifact":
			d.once(&seen, 1)
			r.Artifact = string(d.str())
		case "Version":
			d.once(&seen, 2)
			r.Version = int(d.int())
		case "Agent":
			d.once(&seen, 3)
			r.Agent = in.get(d.str())
		case "Key":
			d.once(&seen, 4)
			r.Key = string(d.str())
		case "Request":
			d.once(&seen, 5)
			r.Request = string(d.str())
		case "Target":
			d.once(&seen, 6)
			r.Target = int(d.int())
		case "Also":
			d.once(&seen, 7)
			r.Also = d.also(in)
		case "Extra":
			d.once(&seen, 8)
			r.Extra = d.extra(in)
		case "Subject":
			d.once(&seen, 9)
			r.Subject = string(d.str())
		default:
			d.bad = true
		}
	}
}

// also reads null or an array of {"ID","Op","Version"} objects.
func (d *entryDecoder) also(in interner) []alsoVersion {
	return array(d, func() alsoVersion {
		var a alsoVersion
		var seen fields
		for d.begin(); d.more(); {
			switch key := d.key(); string(key) {
			case "ID":
				d.once(&seen, 0)
				a.ID = string(d.str())
			case "Op":
				d.once(&seen, 1)
				a.Op = lunad.Op(in.get(d.str()))
			case "Version":
				d.once(&seen, 2)
				a.Version = int(d.int())
			default:
				d.bad = true
			}
		}
		return a
	})
}

// extra reads null or an object of strings.
func (d *entryDecoder) extra(in interner) map[string]string {
	if d.lit("null") {
		return nil
	}
	m := map[string]string{}
	for d.begin(); d.more(); {
		k := d.key()
		if _, dup := m[string(k)]; dup {
			d.bad = true
		}
		m[in.get(k)] = in.get(d.str())
	}
	return m
}
