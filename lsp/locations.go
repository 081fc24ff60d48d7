package lsp

import (
	"bytes"
	"context"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// location turns a lunad location (an artifact and a symbol span, a line,
// or nothing for the whole artifact) into an LSP location, converting
// positions with the target's content. A symbol's location is its name
// (the LSP selectionRange), where an editor puts the cursor on a jump,
// not the whole definition.
func (s *Server) location(ctx context.Context, l lunad.Location) (protocol.Location, error) {
	return s.locations().of(ctx, l)
}

// locator converts many locations, reading each artifact once.
type locator struct {
	s    *Server
	read map[string]readResult
}

type readResult struct {
	m       mapper
	content []byte
	path    string
	err     error
}

func (s *Server) locations() *locator { return &locator{s: s, read: map[string]readResult{}} }

func (lc *locator) of(ctx context.Context, l lunad.Location) (protocol.Location, error) {
	r, ok := lc.read[l.ID]
	if !ok {
		ws, err := lc.s.ready()
		if err != nil {
			return protocol.Location{}, err
		}
		content, a, err := ws.Read(ctx, l.ID, "")
		r = readResult{m: newMapper(content), content: content, path: a.Path, err: err}
		lc.read[l.ID] = r
	}
	if r.err != nil {
		return protocol.Location{}, r.err
	}
	m := r.m
	loc := protocol.Location{URI: lc.s.uriOf(r.path)}
	switch {
	case l.Span != nil && l.Symbol != "":
		loc.Range = m.rangeOf(nameIn(r.content, *l.Span, l.Symbol))
	case l.Span != nil:
		loc.Range = m.span(*l.Span)
	case l.Line > 0:
		loc.Range = m.lineRange(l.Line)
	}
	return loc, nil
}

// nameIn is the byte range of name in content within span: its first
// occurrence there not inside a longer identifier (a function's name after
// "def", a heading's text after "#"), else the empty range at the span's
// start.
func nameIn(content []byte, span lunad.Span, name string) (start, end int) {
	lo, hi := span.Start.Byte, min(span.End.Byte, len(content))
	if name == "" || lo < 0 || lo > hi {
		return lo, lo
	}
	for from := lo; from < hi; {
		i := bytes.Index(content[from:hi], []byte(name))
		if i < 0 {
			break
		}
		start, end = from+i, from+i+len(name)
		if !identByte(content, start-1) && !identByte(content, end) {
			return start, end
		}
		from = start + 1
	}
	return lo, lo
}

// identByte reports whether content[i] exists and is an identifier byte
// (a letter, a digit, _ or any byte of a non-ASCII character).
func identByte(content []byte, i int) bool {
	if i < 0 || i >= len(content) {
		return false
	}
	c := content[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
