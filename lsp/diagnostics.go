package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// diagnosticData travels in Diagnostic.Data so that code actions know
// what to acknowledge and what to diff.
type diagnosticData struct {
	ID     string `json:"id"`               // the referencing artifact
	Symbol string `json:"symbol,omitempty"` // the target symbol, for ack --symbol
	To     string `json:"to,omitempty"`     // the target artifact
	Since  int    `json:"since,omitempty"`  // the target's version that made it stale
}

var severities = map[lunad.RefState]protocol.DiagnosticSeverity{
	lunad.RefStale:      protocol.DiagnosticSeverityWarning,
	lunad.RefBroken:     protocol.DiagnosticSeverityError,
	lunad.RefAmbiguous:  protocol.DiagnosticSeverityInformation,
	lunad.RefUnverified: protocol.DiagnosticSeverityInformation,
}

// diagnostics are an artifact's references that are not ok: stale
// (warning, with what changed and since which commit), broken (error),
// ambiguous and unverified (information: only a site generator resolves it).
func (s *Server) diagnostics(ctx context.Context, id string) ([]protocol.Diagnostic, error) {
	ws, err := s.ready()
	if err != nil {
		return nil, err
	}
	outgoing, err := ws.Outgoing(ctx, id)
	if err != nil {
		return nil, err
	}
	content, _, err := ws.Read(ctx, id, "")
	if err != nil {
		return nil, err
	}
	m := newMapper(content)
	out := []protocol.Diagnostic{}
	for _, r := range outgoing {
		sev, bad := severities[r.State]
		if !bad {
			continue
		}
		var rng protocol.Range
		if r.From.Span != nil {
			rng = m.span(*r.From.Span)
		}
		msg := r.Reason
		if msg == "" {
			msg = fmt.Sprintf("%s reference %q", r.State, r.Text)
		}
		data := diagnosticData{ID: id}
		if r.To != nil {
			data.Symbol, data.To = r.To.Symbol, r.To.ID
		}
		if r.Since != nil {
			data.Since = r.Since.Number
		}
		raw, _ := json.Marshal(data)
		out = append(out, protocol.Diagnostic{Range: rng, Severity: sev, Source: protocol.NewOptional("lunad"),
			Code: protocol.String(string(r.State)), Message: protocol.String(msg), Data: raw})
	}
	return out, nil
}

// publish sends a document's diagnostics (none for a file that is not an
// artifact).
func (s *Server) publish(ctx context.Context, d *document) {
	diags := []protocol.Diagnostic{}
	if id, _ := s.docState(d.uri); id != "" {
		got, err := s.diagnostics(ctx, id)
		if err != nil {
			s.log.Warn("diagnostics", "uri", d.uri, "err", err)
			return
		}
		diags = got
	}
	if err := s.peer().PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: d.uri, Diagnostics: diags}); err != nil {
		s.log.Debug("publish diagnostics", "err", err)
	}
}
