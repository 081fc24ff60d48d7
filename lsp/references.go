package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// References lists the references of other artifacts to the definition
// at the position, or, on a reference, to the definition it names.
func (s *Server) References(ctx context.Context, params *protocol.ReferenceParams) ([]protocol.Location, error) {
	loc, ok, err := s.locate(ctx, params.TextDocument.URI, params.Position)
	if err != nil || !ok {
		return []protocol.Location{}, rpcError(err)
	}
	deps, decl, err := s.dependents(ctx, loc.ws, loc.id, loc.offset)
	if err != nil {
		return []protocol.Location{}, rpcError(err)
	}
	out := []protocol.Location{}
	locs := s.locations()
	if params.Context.IncludeDeclaration && decl != nil {
		if l, err := locs.of(ctx, *decl); err == nil {
			out = append(out, l)
		}
	}
	for _, r := range deps {
		if l, err := locs.of(ctx, r.From); err == nil {
			out = append(out, l)
		}
	}
	return out, nil
}

// dependents are the references to the symbol at an offset: the
// definition there, or the one the reference there resolves to.
func (s *Server) dependents(ctx context.Context, ws lunad.Workspace, id string, offset int) ([]lunad.Reference, *lunad.Location, error) {
	pt, err := ws.At(ctx, id, offset)
	if err != nil {
		return nil, nil, err
	}
	if pt.Ref != nil && pt.Ref.To != nil && pt.Ref.To.Span != nil {
		target, err := ws.At(ctx, pt.Ref.To.ID, pt.Ref.To.Span.Start.Byte)
		if err != nil {
			return nil, nil, err
		}
		return target.Dependents, pt.Ref.To, nil
	}
	if pt.Symbol != nil {
		decl := lunad.Location{ID: pt.Artifact.ID, Path: pt.Artifact.Path, Symbol: pt.Symbol.Name, Span: &pt.Symbol.Span}
		return pt.Dependents, &decl, nil
	}
	return nil, nil, nil
}
