package workspace

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/treesitter"
)

// At tells what is at a byte offset of an artifact's current content: the
// reference written there, resolved and evaluated like `refs` does, and
// otherwise (no reference there) the innermost definition containing it
// with the references of other artifacts to it. The language server's definition, hover and references
// and the MCP server's find_references all answer from here. Returns
// lunad.ErrNotFound for an unknown artifact, lunad.ErrInvalid for an
// offset outside the content.
func (s *Service) At(ctx context.Context, ref string, offset int) (lunad.Point, error) {
	content, a, err := s.store.Read(ctx, ref, "")
	if err != nil {
		return lunad.Point{}, err
	}
	if offset < 0 || offset > len(content) {
		return lunad.Point{}, fmt.Errorf("%w: offset %d is outside %s (%d bytes)", lunad.ErrInvalid, offset, a.Path, len(content))
	}
	ix, ev, err := s.evaluate(ctx)
	if err != nil {
		return lunad.Point{}, err
	}
	pt := lunad.Point{Artifact: a}
	var (
		res   []treesitter.Resolution
		entry treesitter.Entry
	)
	ix.View(func(g *treesitter.Graph) {
		res = g.Resolve(a.ID)
		entry, _ = g.Entry(a.ID)
	})
	if entry.File == nil {
		return pt, nil
	}
	if r := innermostRef(res, offset); r != nil {
		got, ok, err := ev.evaluate(*r)
		if err != nil {
			return lunad.Point{}, err
		}
		if ok {
			pt.Ref = &got
		}
	} else if snippetAt(entry.File, offset) {
		snips, err := ev.snippets(entry, scopeOf(entry, res))
		if err != nil {
			return lunad.Point{}, err
		}
		for i := range snips {
			if sp := snips[i].From.Span; sp != nil && sp.Start.Byte <= offset && offset <= sp.End.Byte {
				pt.Ref = &snips[i]
			}
		}
	}
	if sym, ok := innermostSymbol(entry.File, offset); ok && pt.Ref == nil {
		ls := lunad.Symbol{Name: sym.Name, Kind: sym.Kind, Container: sym.Container, Span: span(sym.Span), Fingerprint: sym.Fingerprint}
		pt.Symbol = &ls
		var incoming []treesitter.Resolution
		ix.View(func(g *treesitter.Graph) { incoming = g.IncomingResolvedTo(a.ID, sym.Name, sym.Container) })
		for _, in := range incoming {
			got, ok, err := ev.evaluate(in)
			if err != nil {
				return lunad.Point{}, err
			}
			if ok {
				pt.Dependents = append(pt.Dependents, got)
			}
		}
	}
	return pt, nil
}

// innermostRef is the reference (not a snippet) whose span holds offset;
// the end is included, so a cursor just after a name still finds it.
func innermostRef(res []treesitter.Resolution, offset int) *treesitter.Resolution {
	var best *treesitter.Resolution
	for i := range res {
		sp := res[i].Ref.Span
		if sp.Start.Byte <= offset && offset <= sp.End.Byte &&
			(best == nil || sp.End.Byte-sp.Start.Byte < best.Ref.Span.End.Byte-best.Ref.Span.Start.Byte) {
			best = &res[i]
		}
	}
	return best
}

func snippetAt(f *treesitter.File, offset int) bool {
	for _, r := range f.References {
		if r.Kind == "snippet" && r.Span.Start.Byte <= offset && offset <= r.Span.End.Byte {
			return true
		}
	}
	return false
}

func innermostSymbol(f *treesitter.File, offset int) (treesitter.Symbol, bool) {
	var best treesitter.Symbol
	found := false
	for _, sym := range f.Symbols {
		if sym.Span.Start.Byte <= offset && offset < sym.Span.End.Byte &&
			(!found || sym.Span.End.Byte-sym.Span.Start.Byte < best.Span.End.Byte-best.Span.Start.Byte) {
			best, found = sym, true
		}
	}
	return best, found
}

// SearchSymbols finds definitions whose name contains query, ignoring
// case: exact matches first, then prefixes, then the rest, each by path.
func (s *Service) SearchSymbols(ctx context.Context, query string, limit int) ([]lunad.SymbolHit, error) {
	ix, err := s.refIndex(ctx)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(query)
	var hits []lunad.SymbolHit

	ix.View(func(g *treesitter.Graph) {
		for _, id := range g.IDs() {
			p, syms, _ := g.Symbols(id) // not Entry: references are most of an artifact, and not read here
			for _, sym := range syms {
				name := strings.ToLower(sym.Name)
				if !strings.Contains(name, q) {
					continue
				}
				hits = append(hits, lunad.SymbolHit{ID: id, Path: p, Symbol: lunad.Symbol{Name: sym.Name, Kind: sym.Kind,
					Container: sym.Container, Span: span(sym.Span), Fingerprint: sym.Fingerprint}})
			}
		}
	})
	score := func(h lunad.SymbolHit) int {
		switch name := strings.ToLower(h.Symbol.Name); {
		case name == q:
			return 0
		case strings.HasPrefix(name, q):
			return 1
		}
		return 2
	}

	sort.SliceStable(hits, func(i, j int) bool {
		if a, b := score(hits[i]), score(hits[j]); a != b {
			return a < b
		}
		return hits[i].Path < hits[j].Path
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}
