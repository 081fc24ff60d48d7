package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

var symbolKinds = map[string]protocol.SymbolKind{
	"function": protocol.SymbolKindFunction, "method": protocol.SymbolKindMethod, "type": protocol.SymbolKindClass,
	"constant": protocol.SymbolKindConstant, "heading": protocol.SymbolKindString,
}

func kindOf(k string) protocol.SymbolKind {
	if v, ok := symbolKinds[k]; ok {
		return v
	}
	return protocol.SymbolKindVariable
}

// DocumentSymbol lists the definitions of a document (flat, in order).
func (s *Server) DocumentSymbol(ctx context.Context, params *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	loc, ok, err := s.locate(ctx, params.TextDocument.URI, protocol.Position{})
	if err != nil || !ok {
		return protocol.DocumentSymbolSlice{}, rpcError(err)
	}
	_, syms, err := loc.ws.Symbols(ctx, loc.id)
	if err != nil {
		return protocol.DocumentSymbolSlice{}, nil // plain text or not parsed: no symbols
	}
	m := newMapper(loc.content)
	out := protocol.DocumentSymbolSlice{}
	for _, sym := range syms {
		detail := sym.Container
		out = append(out, protocol.DocumentSymbol{Name: sym.Name, Detail: &detail, Kind: kindOf(sym.Kind),
			Range: m.span(sym.Span), SelectionRange: m.rangeOf(nameIn(loc.content, sym.Span, sym.Name))})
	}
	return out, nil
}

// Symbols searches definitions across the workspace (workspace/symbol).
func (s *Server) Symbols(ctx context.Context, params *protocol.WorkspaceSymbolParams) (protocol.WorkspaceSymbolResult, error) {
	ws, err := s.ready()
	if err != nil {
		return nil, err
	}
	hits, err := ws.SearchSymbols(ctx, params.Query, 100)
	if err != nil {
		return nil, rpcError(err)
	}
	out := protocol.WorkspaceSymbolSlice{}
	for _, h := range hits {
		l, err := s.location(ctx, lunad.Location{ID: h.ID, Span: &h.Symbol.Span})
		if err != nil {
			continue
		}
		container := h.Path
		if h.Symbol.Container != "" {
			container = h.Symbol.Container + " · " + h.Path
		}
		out = append(out, protocol.WorkspaceSymbol{
			BaseSymbolInformation: protocol.BaseSymbolInformation{Name: h.Symbol.Name, Kind: kindOf(h.Symbol.Kind), ContainerName: &container},
			Location:              &l,
		})
	}
	return out, nil
}
