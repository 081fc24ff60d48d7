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
	ws, err := s.ready()
	if err != nil {
		return protocol.Location{}, err
	}
	content, a, err := ws.Read(ctx, l.ID, "")
	if err != nil {
		return protocol.Location{}, err
	}
	m := newMapper(content)
	loc := protocol.Location{URI: s.uriOf(a.Path)}
	switch {
	case l.Span != nil:
		loc.Range = m.span(*l.Span)
	case l.Line > 0:
		loc.Range = m.lineRange(l.Line)
	}
	return loc, nil
}

// from is where a reference is written, as an LSP location.
func (s *Server) from(ctx context.Context, r lunad.Reference) (protocol.Location, error) {
	return s.location(ctx, r.From)
}
