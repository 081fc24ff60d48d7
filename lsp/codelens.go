package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/lunad/lunad"
)

// CodeLens puts "v7 · 3 dependents · 1 stale" on an artifact's first line
// (its version, the references of other artifacts to it, its own stale or
// broken references) and "3 dependents · 1 stale" on each definition
// that has dependents. The header runs luna.history, a definition's lens
// luna.references.
func (s *Server) CodeLens(ctx context.Context, params *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	lenses, err := s.lenses(ctx, params.TextDocument.URI)
	if err == nil {
		s.shownLenses(params.TextDocument.URI, lensKey(lenses))
	}
	return lenses, err
}

// lenses are the code lenses of the document at u.
func (s *Server) lenses(ctx context.Context, u uri.URI) ([]protocol.CodeLens, error) {
	ws, err := s.ready()
	if err != nil {
		return nil, err
	}
	loc, ok, err := s.locate(ctx, u, protocol.Position{})
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

// lensKey is what lenses show: their lines and titles.
func lensKey(lenses []protocol.CodeLens) string {
	var b strings.Builder
	for _, l := range lenses {
		fmt.Fprintf(&b, "%d %s\n", l.Range.Start.Line, l.Command.Title)
	}
	return b.String()
}

// shownLenses records that the client was given lenses showing key for
// the open document at u.
func (s *Server) shownLenses(u uri.URI, key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.docs[u]; d != nil {
		d.lenses = key
	}
}

// refreshLenses asks the client to ask for code lenses again
// (workspace/codeLens/refresh) if those of an open document it was given
// no longer show what the workspace holds — a version, a count of
// dependents or of stale references changed, by a save or from outside —
// and it declared workspace.codeLens.refreshSupport. refresh calls it once
// per burst of changes (Debounce).
func (s *Server) refreshLenses() {
	s.mu.Lock()
	if !s.lensRefresh {
		s.mu.Unlock()
		return
	}
	shown := map[uri.URI]string{}
	for u, d := range s.docs {
		if d.lenses != "" {
			shown[u] = d.lenses
		}
	}
	s.mu.Unlock()
	stale := false
	for u, key := range shown {
		lenses, err := s.lenses(s.ctx, u)
		if err != nil || lensKey(lenses) == key {
			continue
		}
		stale = true
		s.shownLenses(u, lensKey(lenses))
	}
	if stale {
		if err := s.peer().CodeLensRefresh(s.ctx); err != nil {
			s.log.Debug("codeLens/refresh", "err", err)
		}
	}
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
