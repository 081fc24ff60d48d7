package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
)

// TestCodeActionOnly: code actions are filtered by the request's
// context.only, a kind matching the kinds below it (by prefix), as VS Code
// asks for them.
func TestCodeActionOnly(t *testing.T) {
	s := start(t)
	sel := protocol.Range{Start: at(guideMd, "Call"), End: at(guideMd, "to read")}
	for _, c := range []struct {
		name string
		only []protocol.CodeActionKind
		want []string
	}{
		{"no filter", nil, []string{"refactor.lunad.ask", "refactor.rewrite"}},
		{"refactor", []protocol.CodeActionKind{"refactor"}, []string{"refactor.lunad.ask", "refactor.rewrite"}},
		{"refactor.rewrite", []protocol.CodeActionKind{"refactor.rewrite"}, []string{"refactor.rewrite"}},
		{"refactor.lunad", []protocol.CodeActionKind{"refactor.lunad"}, []string{"refactor.lunad.ask"}},
		{"quickfix", []protocol.CodeActionKind{"quickfix"}, []string{}},
		{"a prefix that is not a kind", []protocol.CodeActionKind{"refac"}, []string{}},
		{"two kinds", []protocol.CodeActionKind{"quickfix", "refactor.rewrite"}, []string{"refactor.rewrite"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			actions, err := s.srv.CodeAction(context.Background(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI},
				Range: sel, Context: protocol.CodeActionContext{Only: c.only}})
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, a := range actions {
				got = append(got, string(*a.(*protocol.CodeAction).Kind))
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("kinds %v, want %v", got, c.want)
			}
		})
	}
}

// TestJumpLandsOnName: definition and the declaration among references
// point at the symbol's name — where F12 puts the cursor —, as does a
// document symbol's selectionRange, not at the definition's first column.
func TestJumpLandsOnName(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	name := protocol.Range{Start: protocol.Position{Line: 3, Character: 4}, End: protocol.Position{Line: 3, Character: 16}}
	res, err := s.srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI}, Position: at(guideMd, "parse_config")}})
	if err != nil {
		t.Fatal(err)
	}
	if locs, ok := res.(protocol.LocationSlice); !ok || len(locs) != 1 || locs[0].URI != s.cfgURI || locs[0].Range != name {
		t.Errorf("definition = %+v, want config.py %+v (parse_config)", res, name)
	}
	refs, err := s.srv.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.cfgURI}, Position: at(configPy, "parse_config")},
		Context: protocol.ReferenceContext{IncludeDeclaration: true}})
	if err != nil || len(refs) == 0 || refs[0].URI != s.cfgURI || refs[0].Range != name {
		t.Errorf("declaration among references = %+v (%v), want config.py %+v", refs, err, name)
	}
	syms, err := s.srv.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.cfgURI}})
	if err != nil {
		t.Fatal(err)
	}
	list, _ := syms.(protocol.DocumentSymbolSlice)
	if len(list) != 1 || list[0].SelectionRange != name || list[0].Range.Start != (protocol.Position{Line: 3}) {
		t.Errorf("document symbols = %+v, want parse_config with selection %+v", syms, name)
	}
}

// TestLensAndHoverCounts: one dependent is "1 dependent".
func TestLensAndHoverCounts(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	lenses, err := s.srv.CodeLens(ctx, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.cfgURI}})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, l := range lenses {
		titles = append(titles, l.Command.Title)
	}
	if !slices.Equal(titles, []string{"v1 · 1 dependent", "1 dependent"}) {
		t.Errorf("lenses %q, want the header and parse_config's, each 1 dependent", titles)
	}
	hover, err := s.srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: s.cfgURI}, Position: at(configPy, "parse_config")}})
	if err != nil || hover == nil {
		t.Fatalf("hover: %v %v", hover, err)
	}
	if text := hover.Contents.(*protocol.MarkupContent).Value; !strings.Contains(text, "· v1 · 1 dependent") || strings.Contains(text, "dependents") {
		t.Errorf("hover %q, want 1 dependent", text)
	}
}

// TestLensRefresh: when what an open document's code lenses show changes
// — here a new article outside the editor mentions parse_config, so
// config.py has 2 dependents — the server sends workspace/codeLens/refresh
// once, to a client that declared refreshSupport only; a change that
// leaves the lenses as they were sends none.
func TestLensRefresh(t *testing.T) {
	for _, c := range []struct {
		name    string
		support bool
		want    int
	}{
		{"refreshSupport", true, 1},
		{"no refreshSupport", false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			support := c.support
			s := startConfigured(t, startConfig{caps: protocol.ClientCapabilities{Workspace: &protocol.WorkspaceClientCapabilities{
				CodeLens: &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &support}}}})
			ctx := context.Background()
			if err := s.srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: s.cfgURI, LanguageID: "python", Version: 1, Text: configPy}}); err != nil {
				t.Fatal(err)
			}
			lensTitles := func() []string {
				lenses, err := s.srv.CodeLens(ctx, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.cfgURI}})
				if err != nil {
					t.Fatal(err)
				}
				var titles []string
				for _, l := range lenses {
					titles = append(titles, l.Command.Title)
				}
				return titles
			}
			if got := lensTitles(); !slices.Equal(got, []string{"v1 · 1 dependent", "1 dependent"}) {
				t.Fatalf("lenses %q", got)
			}
			// barrier makes a change no lens shows and waits until the
			// server has handled it: it refreshes in order, the lenses
			// after the diagnostics.
			n := 0
			barrier := func() {
				n++
				s.cl.mu.Lock()
				before := s.cl.published
				s.cl.mu.Unlock()
				if _, err := s.svc.Create(ctx, lunad.CreateSpec{Title: fmt.Sprint("other ", n), Path: fmt.Sprintf("other%d.txt", n), Content: []byte("nothing\n")}); err != nil {
					t.Fatal(err)
				}
				s.cl.waitFor(t, "diagnostics after the change", func() bool { return s.cl.published >= before+2 })
			}
			barrier()
			barrier()
			refreshes := func() int { s.cl.mu.Lock(); defer s.cl.mu.Unlock(); return s.cl.lensRefreshes }
			if got := refreshes(); got != 0 {
				t.Fatalf("%d lens refreshes after changes no lens shows, want 0", got)
			}
			if _, err := s.svc.Create(ctx, lunad.CreateSpec{Title: "Notes", Path: "notes.md", Content: []byte("# Notes\n\nSee `parse_config`.\n")}); err != nil {
				t.Fatal(err)
			}
			barrier()
			barrier()
			if got := refreshes(); got != c.want {
				t.Errorf("%d lens refreshes after a new dependent, want %d", got, c.want)
			}
			if got := lensTitles(); !slices.Equal(got, []string{"v1 · 2 dependents", "2 dependents"}) {
				t.Errorf("lenses after it %q", got)
			}
		})
	}
}
