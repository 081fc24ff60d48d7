package lsp

import (
	"context"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// TestUnverifiedDiagnostic: a link only a site generator resolves
// (setup.html for setup.md) is an information diagnostic saying so, with
// no code action; a truly missing page stays an error.
func TestUnverifiedDiagnostic(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	diags := func() []protocol.Diagnostic { return s.cl.diags[s.docURI] }
	s.cl.waitFor(t, "first diagnostics", func() bool { d, ok := s.cl.diags[s.docURI]; return ok && len(d) == 0 })
	if _, err := s.svc.Create(ctx, lunad.CreateSpec{Title: "Setup", Path: "setup.md", Content: []byte("# Setup\n")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.Edit(ctx, lunad.EditRequest{ID: "guide.md", Change: lunad.Change{Agent: "writer"},
		BlocksText: "<<<<<<< SEARCH\n# Guide\n=======\n# Guide\n\nSee [setup](setup.html) and [gone](gone.html).\n>>>>>>> REPLACE\n"}); err != nil {
		t.Fatal(err)
	}
	s.cl.waitFor(t, "two diagnostics", func() bool { return len(diags()) == 2 })
	got := map[protocol.DiagnosticSeverity]string{}
	for _, d := range diags() {
		got[d.Severity] = string(d.Message.(protocol.String))
	}
	if m := got[protocol.DiagnosticSeverityInformation]; !strings.Contains(m, "setup.html is the page a site generator makes of setup.md") {
		t.Errorf("information diagnostic %q, want the unverified setup.html", m)
	}
	if m := got[protocol.DiagnosticSeverityError]; !strings.Contains(m, "no artifact at gone.html") {
		t.Errorf("error diagnostic %q, want the broken gone.html", m)
	}
	for _, d := range diags() {
		if d.Severity != protocol.DiagnosticSeverityInformation {
			continue
		}
		actions, err := s.srv.CodeAction(ctx, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI},
			Range: protocol.Range{Start: d.Range.Start, End: d.Range.Start}, Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}}})
		if err != nil {
			t.Fatal(err)
		}
		// Only the ask action, offered everywhere, and no fix for the
		// diagnostic: there is nothing to acknowledge or undo.
		for _, a := range actions {
			if ca, ok := a.(*protocol.CodeAction); !ok || ca.Command.Command != "luna.askPrompt" {
				t.Errorf("code action %#v on an unverified link, want none but the ask action", a)
			}
		}
	}
}
