package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// Hover describes a reference (its target, the target's artifact and
// version, who last changed it and when, its state) or a definition (its
// dependents and how many are stale).
func (s *Server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	loc, ok, err := s.locate(ctx, params.TextDocument.URI, params.Position)
	if err != nil || !ok {
		return nil, rpcError(err)
	}
	pt, err := loc.ws.At(ctx, loc.id, loc.offset)
	if err != nil {
		return nil, rpcError(err)
	}
	var b strings.Builder
	m := newMapper(loc.content)
	var rng *protocol.Range
	switch {
	case pt.Ref != nil:
		describeRef(ctx, loc.ws, &b, *pt.Ref)
		if sp := pt.Ref.From.Span; sp != nil {
			r := m.span(*sp)
			rng = &r
		}
	case pt.Symbol != nil:
		describeSymbol(&b, pt)
	default:
		return nil, nil
	}
	return &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: b.String()}, Range: rng}, nil
}

func describeRef(ctx context.Context, ws lunad.Workspace, b *strings.Builder, r lunad.Reference) {
	if r.State == lunad.RefAmbiguous {
		fmt.Fprintf(b, "**%s** — ambiguous: %s\n", r.Text, r.Reason)
		for _, c := range r.Candidates {
			fmt.Fprintf(b, "- `%s#%s`\n", c.Path, c.Symbol)
		}
		return
	}
	if r.To == nil {
		fmt.Fprintf(b, "**%s** — %s: %s\n", r.Text, r.State, r.Reason)
		return
	}
	what := r.To.Path
	if r.To.Symbol != "" {
		what = r.To.Symbol
		if r.To.Container != "" {
			what = r.To.Container + "." + r.To.Symbol
		}
		fmt.Fprintf(b, "**%s** — %s in `%s`", what, r.To.Kind, r.To.Path)
	} else {
		fmt.Fprintf(b, "**%s**", what)
	}
	if a, err := ws.Artifact(ctx, r.To.ID); err == nil {
		fmt.Fprintf(b, " · v%d", a.Version)
		if h, err := ws.History(ctx, a.ID); err == nil && len(h) > 0 {
			last := h[len(h)-1]
			fmt.Fprintf(b, ", last changed by %s on %s", last.Agent, last.Time.Format("2006-01-02 15:04"))
		}
	}
	b.WriteString("\n\n")
	switch r.State {
	case lunad.RefOK:
		b.WriteString("✓ up to date with this artifact's last edit or acknowledgement\n")
	case lunad.RefUnverified:
		fmt.Fprintf(b, "ℹ **unverified**: %s\n", r.Reason)
	default:
		fmt.Fprintf(b, "⚠ **%s**: %s\n", r.State, r.Reason)
	}
}

func describeSymbol(b *strings.Builder, pt lunad.Point) {
	stale := 0
	for _, d := range pt.Dependents {
		if d.State == lunad.RefStale || d.State == lunad.RefBroken {
			stale++
		}
	}
	fmt.Fprintf(b, "**%s** (%s) in `%s` · v%d · %s", pt.Symbol.Name, pt.Symbol.Kind, pt.Artifact.Path, pt.Artifact.Version, count(len(pt.Dependents), "dependent"))
	if stale > 0 {
		fmt.Fprintf(b, " · %d stale", stale)
	}
	b.WriteString("\n")
	for _, d := range pt.Dependents {
		line := 0
		if d.From.Span != nil {
			line = d.From.Span.Start.Line + 1
		}
		fmt.Fprintf(b, "- `%s:%d` %s (%s)\n", d.From.Path, line, d.Kind, d.State)
	}
}
