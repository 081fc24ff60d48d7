package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/textpos"
)

// mapper converts between byte offsets in a text and LSP positions
// (UTF-16 code units). It is the only place the server converts; the
// arithmetic is textpos.Lines'..
type mapper struct{ lines *textpos.Lines }

func newMapper(text []byte) mapper { return mapper{textpos.New(text)} }

// offset is the byte offset of an LSP position, clamped to the text.
func (m mapper) offset(p protocol.Position) int {
	return m.lines.OffsetUTF16(int(p.Line), int(p.Character))
}

// position is the LSP position of a byte offset.
func (m mapper) position(off int) protocol.Position {
	line, col := m.lines.UTF16Column(off)
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

func (m mapper) rangeOf(start, end int) protocol.Range {
	return protocol.Range{Start: m.position(start), End: m.position(end)}
}

// span converts a lunad span (byte offsets) to an LSP range.
func (m mapper) span(s lunad.Span) protocol.Range { return m.rangeOf(s.Start.Byte, s.End.Byte) }

// lineRange is the range of a whole 1-based line.
func (m mapper) lineRange(line int) protocol.Range {
	start := m.lines.LineStart(line - 1)
	end := m.lines.LineStart(line)
	if end > start {
		end-- // before the newline
	}
	return m.rangeOf(start, end)
}
