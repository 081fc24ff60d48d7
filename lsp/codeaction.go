package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// CodeAction offers, on a stale reference's diagnostic, "acknowledge"
// (luna.ack) and "show what changed" (luna.diff of the target at the
// version that made it stale); on a selection, "apply SEARCH/REPLACE from
// clipboard" (luna.editFromClipboard, run by the editor extension, which
// reads the clipboard and calls luna.edit); on any file of the workspace,
// "ask the agents about this artifact…" (luna.askPrompt, run by the editor
// extension, which asks for the request and sends luna.ask with the buffer
// as the active artifact). Only the kinds the request's context asks for
// are given (only).
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	if _, err := s.ready(); err != nil {
		return nil, err
	}
	out := []protocol.CommandOrCodeAction{}
	quickfix := protocol.CodeActionKindQuickFix
	for _, d := range params.Context.Diagnostics {
		src, _ := d.Source.Get()
		if src != "lunad" || len(d.Data) == 0 || d.Code == protocol.String(lunad.RefUnverified) {
			continue // an unverified link is information: acknowledging it changes nothing
		}
		var data diagnosticData
		if json.Unmarshal(d.Data, &data) != nil {
			continue
		}
		diag := []protocol.Diagnostic{d}
		title := "lunad: acknowledge (still right)"
		ack := command(title, "luna.ack", data.ID)
		if data.Symbol != "" {
			title = "lunad: acknowledge the change to " + data.Symbol
			ack = command(title, "luna.ack", data.ID, data.Symbol)
		}
		out = append(out, &protocol.CodeAction{Title: title, Kind: &quickfix, Diagnostics: diag, Command: ack})
		if data.To != "" && data.Since > 1 {
			diff := command("lunad: show what changed", "luna.diff", data.To, data.Since-1, data.Since)
			out = append(out, &protocol.CodeAction{Title: diff.Title, Kind: &quickfix, Diagnostics: diag, Command: diff})
		}
	}
	if _, ok := s.relPath(params.TextDocument.URI); ok {
		ask := command("lunad: ask the agents about this artifact…", "luna.askPrompt", string(params.TextDocument.URI))
		kind := protocol.CodeActionKind("refactor.lunad.ask")
		out = append(out, &protocol.CodeAction{Title: ask.Title, Kind: &kind, Command: ask})
	}
	if params.Range.Start != params.Range.End {
		edit := command("lunad: apply SEARCH/REPLACE from clipboard", "luna.editFromClipboard", string(params.TextDocument.URI))
		refactor := protocol.CodeActionKindRefactorRewrite
		out = append(out, &protocol.CodeAction{Title: edit.Title, Kind: &refactor, Command: edit})
	}
	return only(out, params.Context.Only), nil
}

// only keeps the actions of the kinds a client asked for (the request's
// context.only; all when it names none): a kind matches itself and the
// kinds below it, "refactor" matching "refactor.rewrite" — by prefix, as
// the specification says. VS Code asks for one kind at a time (quick
// fixes, a refactoring menu) and logs and drops actions of other kinds.
func only(actions []protocol.CommandOrCodeAction, kinds []protocol.CodeActionKind) []protocol.CommandOrCodeAction {
	if len(kinds) == 0 {
		return actions
	}
	out := []protocol.CommandOrCodeAction{}
	for _, a := range actions {
		ca, ok := a.(*protocol.CodeAction)
		if !ok || ca.Kind == nil {
			continue
		}
		for _, k := range kinds {
			if *ca.Kind == k || strings.HasPrefix(string(*ca.Kind), string(k)+".") {
				out = append(out, a)
				break
			}
		}
	}
	return out
}
