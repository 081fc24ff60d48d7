package treesitter

import "iter"

// The graph keeps each artifact's references packed (PackedFile): the
// Entry it holds has a File with the definitions and only its imports
// (goImports reads them while resolving); Entry, Resolve and Incoming
// materialise the references from the packed form, and refNames gives
// their names without positions.

// PutPacked is Put for an artifact whose File the caller already has
// packed (the reference index keeps packed Files in its parse cache): the
// graph shares p instead of packing e.File again. p must not be changed
// afterwards; e.File is ignored.
func (g *Graph) PutPacked(e Entry, p *PackedFile) {
	e.File = &File{Language: p.Language}
	g.next = p
	g.Put(e)
}

// pack stores the packed form of e's File (the one PutPacked handed, or
// e.File packed now) and leaves in e.File what resolution reads of it.
func (g *Graph) pack(e *Entry) {
	p := g.next
	g.next = nil
	if p == nil {
		var err error
		if p, err = Pack(e.File); err != nil {
			// Past 4 GiB: cannot happen for a parsed file (MaxFileSize).
			p = &PackedFile{Language: e.File.Language, Skipped: err.Error()}
		}
	}
	if g.packed == nil {
		g.packed = map[string]*PackedFile{}
	}
	g.packed[e.ID] = p
	f := &File{Language: p.Language, Skipped: p.Skipped, Partial: p.Partial, Symbols: p.Symbols, Anchors: p.Anchors, ShortFlags: p.ShortFlags}
	for i := range p.Len() {
		if r := p.names(i); r.Kind == "import" {
			f.References = append(f.References, p.Reference(i))
		}
	}
	e.File = f
}

// refNames yields the references of e with their Name, Kind and Target
// but no positions (nothing is materialised).
func (g *Graph) refNames(e *Entry) iter.Seq[Reference] {
	return func(yield func(Reference) bool) {
		p := g.packed[e.ID]
		for i := range p.Len() {
			if !yield(p.names(i)) {
				return
			}
		}
	}
}
