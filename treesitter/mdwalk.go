package treesitter

import (
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// The Markdown block tree is walked with a tree cursor rather than queried:
// the query cursor's time grew faster than the tree (a 1 MB line of '['
// took 1.8 s in ts_query_cursor_next_match, 2 MB 8 s), while a cursor walk
// visits each node once. The walk finds what queries/markdown.scm
// describes; the query stays for reference and for the grammar test.

// The block nodes the walk acts on.
const (
	mdSection      = "section"
	mdATXHeading   = "atx_heading"
	mdSetext       = "setext_heading"
	mdLinkRefDef   = "link_reference_definition"
	mdLinkDest     = "link_destination"
	mdLinkLabel    = "link_label"
	mdFenced       = "fenced_code_block"
	mdInfoString   = "info_string"
	mdLanguage     = "language"
	mdFenceContent = "code_fence_content"
	mdInline       = "inline"
	mdParagraph    = "paragraph"
	mdHTMLBlock    = "html_block"
	// a pipe table's cell holds inline text the block grammar does not
	// wrap in an inline node: the walk reports it as one (mdInline)
	mdTableCell = "pipe_table_cell"
)

var mdSymbols struct {
	once sync.Once
	of   map[sitter.Symbol]string // node symbol → one of the names above
}

// blockKind names a block node the walk acts on, or "".
func blockKind(ts *sitter.Language, n *sitter.Node) string {
	mdSymbols.once.Do(func() {
		want := map[string]bool{mdSection: true, mdSetext: true, mdLinkRefDef: true, mdFenced: true, mdInline: true, mdHTMLBlock: true, mdTableCell: true}
		mdSymbols.of = map[sitter.Symbol]string{}
		for s := range sitter.Symbol(ts.SymbolCount()) {
			if name := ts.SymbolName(s); want[name] && ts.SymbolType(s) == sitter.SymbolTypeRegular {
				if name == mdTableCell {
					name = mdInline
				}
				mdSymbols.of[s] = name
			}
		}
	})
	return mdSymbols.of[n.Symbol()]
}

// walkBlocks calls fn for every block node blockKind names, in document
// order, without descending into inline spans.
func walkBlocks(ts *sitter.Language, root *sitter.Node, fn func(kind string, n *sitter.Node)) {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	for {
		n := c.CurrentNode()
		k := blockKind(ts, n)
		if k != "" {
			fn(k, n)
		}
		if k != mdInline && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return
			}
		}
	}
}

// namedChild returns n's first named child of type typ, or nil.
func namedChild(n *sitter.Node, typ string) *sitter.Node {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		if ch := c.CurrentNode(); ch.IsNamed() && ch.Type() == typ {
			return ch
		}
	}
	return nil
}
