package lsp

import (
	"context"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
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
