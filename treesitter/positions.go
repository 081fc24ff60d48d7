package treesitter

import "github.com/lunad/lunad/internal/textpos"

// Positions are textpos's: the parser's spans are byte offsets with their
// line and byte column, computed from the text, never from tree-sitter
// points.
type (
	Position = textpos.Position
	Span     = textpos.Span
	Lines    = textpos.Lines
)

// NewLines indexes text (textpos.New).
func NewLines(text []byte) *Lines { return textpos.New(text) }
