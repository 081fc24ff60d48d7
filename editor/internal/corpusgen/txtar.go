package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/lunad/lunad/editor/internal/casefile"
)

// A case file is a txtar archive: a header of "key: value" lines, then
// sections introduced by "-- name --" lines. txtar cannot hold a section
// without a final newline, and editors and git like to rewrite CRLF, so every
// section is stored LF-terminated and the header says how to restore it:
//
//	crlf: original expected   these sections use CRLF line endings
//	noeol: original expected  these sections have no final newline
//
// Loading strips the final newline of the noeol sections first, then turns
// every LF of the crlf sections into CRLF.

// Case is one corpus case, with every text exactly as the editor sees it.
type Case struct {
	Kind, Lang, Name string
	Header           [][2]string // extra ordered header fields (source, edit, damage, ...)
	Path             string      // Block.Path
	Expect           string      // "apply", "refuse" or "already-applied"
	Error            string      // expected refusal: "ambiguous", "no-match", "already-applied"
	Original         string
	Search, Replace  string
	Expected         string // only for Expect == "apply"
}

type section struct{ name, data string }

func (c *Case) sections() []section {
	s := []section{{"original", c.Original}, {"search", c.Search}, {"replace", c.Replace}}
	if c.Expect == "apply" {
		s = append(s, section{"expected", c.Expected})
	}
	return s
}

// Encode renders the case as a txtar file.
func (c *Case) Encode() ([]byte, error) {
	var crlf, noeol []string
	var body bytes.Buffer
	for _, s := range c.sections() {
		d := s.data
		if strings.Contains(d, "\r") {
			if strings.Count(d, "\r") != strings.Count(d, "\r\n") || strings.Count(d, "\r\n") != strings.Count(d, "\n") {
				return nil, fmt.Errorf("section %s mixes line endings", s.name)
			}
			d = strings.ReplaceAll(d, "\r\n", "\n")
			crlf = append(crlf, s.name)
		}
		if d != "" && !strings.HasSuffix(d, "\n") {
			d += "\n"
			noeol = append(noeol, s.name)
		}
		for _, line := range strings.SplitAfter(d, "\n") {
			if casefile.IsMarker(line) {
				return nil, fmt.Errorf("section %s holds a txtar marker line %q", s.name, line)
			}
		}
		fmt.Fprintf(&body, "-- %s --\n%s", s.name, d)
	}
	var h bytes.Buffer
	field := func(k, v string) {
		if strings.ContainsAny(v, "\r\n") {
			panic("multi-line header value for " + k)
		}
		fmt.Fprintf(&h, "%s: %s\n", k, v)
	}
	field("kind", c.Kind)
	field("lang", c.Lang)
	field("path", c.Path)
	for _, kv := range c.Header {
		field(kv[0], kv[1])
	}
	field("expect", c.Expect)
	if c.Error != "" {
		field("error", c.Error)
	}
	if len(crlf) > 0 {
		field("crlf", strings.Join(crlf, " "))
	}
	if len(noeol) > 0 {
		field("noeol", strings.Join(noeol, " "))
	}
	h.Write(body.Bytes())
	return h.Bytes(), nil
}

// roundTrip checks that the encoded case decodes to exactly its texts.
func (c *Case) roundTrip(enc []byte) error {
	_, secs, err := casefile.Decode(enc)
	if err != nil {
		return err
	}
	for _, s := range c.sections() {
		if secs[s.name] != s.data {
			return fmt.Errorf("section %s does not round-trip", s.name)
		}
	}
	return nil
}
