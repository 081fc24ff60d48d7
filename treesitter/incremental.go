package treesitter

import (
	"errors"
	sitter "github.com/smacker/go-tree-sitter"
)

// Doc is an open artifact whose syntax tree is kept so that Update can
// re-parse incrementally. A Doc belongs to the Parser that opened it and
// shares its goroutine confinement. Close it to free the tree.
type Doc struct {
	p       *Parser
	typ     string
	g       *grammar // nil for plain text or while skipped
	content []byte   // private copy of the current content
	tree    *sitter.Tree
	file    *File
	chunks  map[chunkKey]*chunk // per top-level node results, see chunks.go
	inline  map[uint64][]ref    // Markdown: per inline span results
}

// Open parses content and keeps its tree for later Updates. File gives the
// result of the parse.
func (p *Parser) Open(typ string, content []byte) (*Doc, error) {
	d := &Doc{p: p, typ: typ}
	if _, err := d.reparse(content, false); err != nil {
		return nil, err
	}
	return d, nil
}

// File is the result of the latest Open or Update.
func (d *Doc) File() *File { return d.file }

// Update replaces the content. It computes the edit as the span between the
// common prefix and common suffix of the old and new content, applies it to
// the kept tree and re-parses incrementally; the result equals a fresh
// Parse of newContent.
func (d *Doc) Update(newContent []byte) (*File, error) {
	return d.reparse(newContent, true)
}

func (d *Doc) reparse(content []byte, incremental bool) (*File, error) {
	if d.p.closed {
		return nil, ErrClosed
	}
	content = append([]byte(nil), content...)
	lang := LanguageFor(d.typ)
	g := grammars[lang]
	if r := skipReason(content); r != "" || g == nil {
		d.skip(content, lang, r)
		if r == "" {
			f, err := d.p.parseScanned(lang, content)
			if err != nil {
				return nil, err
			}
			d.file = f
		}
		return d.file, nil
	}
	var old *sitter.Tree
	if incremental && d.tree != nil {
		d.tree.Edit(computeEdit(d.content, content))
		old = d.tree
	}
	d.p.start()
	tree, partial, err := d.p.parseTree(g, old, content)
	if errors.Is(err, errBudget) {
		d.skip(content, lang, d.p.budgetNote(len(content)))
		return d.file, nil
	}
	if err != nil {
		return nil, err
	}
	d.dropTree()
	d.tree, d.content, d.g = tree, content, g
	if g.name == LangMarkdown {
		f, cache, err := d.p.extractMarkdown(tree.RootNode(), content, NewLines(content), d.inline)
		if errors.Is(err, errBudget) {
			d.skip(content, lang, d.p.budgetNote(len(content)))
			return d.file, nil
		}
		if err != nil {
			return nil, err
		}
		f.Partial = partial
		d.file, d.inline = f, cache
		return f, nil
	}
	// A node's items are reused only between trees without syntax errors:
	// error recovery can read the same text differently in another context
	// (found by FuzzParse).
	cache := d.chunks
	if tree.RootNode().HasError() {
		cache = nil
	}
	d.file, d.chunks = d.p.extractChunked(g, tree, content, cache)
	if tree.RootNode().HasError() {
		d.chunks = nil
	}
	return d.file, nil
}

// skip keeps content unparsed, with the reason (none for a language
// without a grammar).
func (d *Doc) skip(content []byte, lang, reason string) {
	d.dropTree()
	d.content, d.chunks, d.inline = content, nil, nil
	d.file = &File{Language: lang, Skipped: reason}
}

func (d *Doc) dropTree() {
	if d.tree != nil {
		d.tree.Close()
		d.tree = nil
	}
}

// Close frees the kept tree. The Doc must not be used afterwards.
func (d *Doc) Close() { d.dropTree() }

// computeEdit describes old -> new as one replaced range.
func computeEdit(old, new []byte) sitter.EditInput {
	n := min(len(old), len(new))
	pre := 0
	for pre < n && old[pre] == new[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
	oldEnd, newEnd := len(old)-suf, len(new)-suf
	return sitter.EditInput{
		StartIndex:  uint32(pre),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(newEnd),
		StartPoint:  point(old, pre),
		OldEndPoint: point(old, oldEnd),
		NewEndPoint: point(new, newEnd),
	}
}

// point is the tree-sitter point (row, byte column) of off in text.
func point(text []byte, off int) sitter.Point {
	row, lineStart := 0, 0
	for i := 0; i < off; i++ {
		if text[i] == '\n' {
			row++
			lineStart = i + 1
		}
	}
	return sitter.Point{Row: uint32(row), Column: uint32(off - lineStart)}
}
