package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// CodeLens puts "v7 · 3 dependents · 1 stale" on an artifact's first line
// (its version, the references of other artifacts to it, its own stale or
// broken references) and "3 dependents · 1 stale" on each definition
// that has dependents. The header runs luna.history, a definition's lens
// luna.references.
func (s *Server) CodeLens(ctx context.Context, params *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	ws, err := s.ready()
	if err != nil {
		return nil, err
	}
	loc, ok, err := s.locate(ctx, params.TextDocument.URI, protocol.Position{})
	if err != nil || !ok {
		return []protocol.CodeLens{}, rpcError(err)
	}
	rep, err := ws.Refs(ctx, loc.id)
	if err != nil {
		return nil, rpcError(err)
	}
	_, syms, err := ws.Symbols(ctx, loc.id)
	if err != nil {
		syms = nil // not parsed (plain text, too large): only the header
	}
	own := 0
	for _, r := range rep.Outgoing {
		if r.State == lunad.RefStale || r.State == lunad.RefBroken {
			own++
		}
	}
	m := newMapper(loc.content)
	header := fmt.Sprintf("v%d · %s", rep.Artifact.Version, count(len(rep.Incoming), "dependent"))
	if own > 0 {
		header += fmt.Sprintf(" · %d stale", own)
	}
	lenses := []protocol.CodeLens{{Range: m.rangeOf(0, 0), Command: command(header, "luna.history", rep.Artifact.ID)}}
	for _, sym := range syms {
		deps, stale := 0, 0
		for _, r := range rep.Incoming {
			if r.To != nil && r.To.Symbol == sym.Name && r.To.Container == sym.Container {
				deps++
				if r.State == lunad.RefStale || r.State == lunad.RefBroken {
					stale++
				}
			}
		}
		if deps == 0 {
			continue
		}
		title := count(deps, "dependent")
		if stale > 0 {
			title += fmt.Sprintf(" · %d stale", stale)
		}
		lenses = append(lenses, protocol.CodeLens{Range: m.rangeOf(sym.Span.Start.Byte, sym.Span.Start.Byte),
			Command: command(title, "luna.references", rep.Artifact.ID, sym.Name)})
	}
	return lenses, nil
}

// command builds an LSP command with JSON arguments.
func command(title, name string, args ...any) protocol.Command {
	c := protocol.Command{Title: title, Command: name}
	for _, a := range args {
		raw, _ := json.Marshal(a)
		c.Arguments = append(c.Arguments, protocol.LSPAny(raw))
	}
	return c
}

// count is n things in words: "1 dependent", "3 dependents".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
