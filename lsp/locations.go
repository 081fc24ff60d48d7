package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// location turns a lunad location (an artifact and a symbol span, a line,
// or nothing for the whole artifact) into an LSP location, converting
// positions with the target's content.
func (s *Server) location(ctx context.Context, l lunad.Location) (protocol.Location, error) {
	return s.locations().of(ctx, l)
}

// locator converts many locations, reading each artifact once.
type locator struct {
	s    *Server
	read map[string]readResult
}

type readResult struct {
	m    mapper
	path string
	err  error
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
		r = readResult{m: newMapper(content), path: a.Path, err: err}
		lc.read[l.ID] = r
	}
	if r.err != nil {
		return protocol.Location{}, r.err
	}
	m := r.m
	loc := protocol.Location{URI: lc.s.uriOf(r.path)}
	switch {
	case l.Span != nil:
		loc.Range = m.span(*l.Span)
	case l.Line > 0:
		loc.Range = m.lineRange(l.Line)
	}
	return loc, nil
}
