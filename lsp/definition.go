package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// Definition goes from a reference to what it names: a symbol, a heading,
// a line or an artifact; an ambiguous name gives every candidate.
func (s *Server) Definition(ctx context.Context, params *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	loc, ok, err := s.locate(ctx, params.TextDocument.URI, params.Position)
	if err != nil || !ok {
		return protocol.LocationSlice{}, rpcError(err)
	}
	pt, err := loc.ws.At(ctx, loc.id, loc.offset)
	if err != nil || pt.Ref == nil {
		return protocol.LocationSlice{}, rpcError(err)
	}
	targets := pt.Ref.Candidates
	if pt.Ref.To != nil && pt.Ref.To.ID != "" {
		targets = append(targets, *pt.Ref.To)
	}
	out := protocol.LocationSlice{}
	for _, t := range targets {
		l, err := s.location(ctx, t)
		if err != nil {
			continue // a target gone since (broken): nothing to jump to
		}
		out = append(out, l)
	}
	return out, nil
}
