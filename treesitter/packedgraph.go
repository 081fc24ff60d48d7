package treesitter

import (
	"iter"
	"path"
	"slices"
	"strings"
)

// The graph keeps each artifact's references and definitions packed
// (PackedFile): the Entry it holds has a File with the anchors and short
// flags but neither references nor definitions; resolution reads them
// from the packed form (references, defs, def), and a Go file's imported
// package names (what its qualified names are resolved by) are kept
// apart, the few that there are.

// PutPacked is Put for an artifact whose File the caller already has
// packed (the reference index keeps packed Files in its parse cache): the
// graph shares p instead of packing e.File again. p must not be changed
// afterwards; e.File is ignored.
func (g *Graph) PutPacked(e Entry, p *PackedFile) {
	e.File = &File{Language: p.Language}
	g.next = p
	g.Put(e)
}

// node is an entry of the graph with the File it points to.
type node struct {
	Entry
	file File
}

// pack numbers e, stores the packed form of its File (the one PutPacked
// handed, or e.File packed now) and leaves in e.File, at f, what
// resolution reads of it.
func (g *Graph) pack(e *Entry, f *File) {
	p := g.next
	g.next = nil
	if p == nil {
		p = Pack(e.File)
	}
	e.packed = p
	*f = File{Language: p.Language, Skipped: p.Skipped, Partial: p.Partial, Anchors: p.Anchors, ShortFlags: p.ShortFlags}
	e.File = f
	e.goPkgs = nil
	if p.Language == LangGo {
		for _, r := range p.All() {
			if r.Kind == "import" {
				e.goPkgs = append(e.goPkgs, importedPackage(r.Name))
			}
		}
		slices.Sort(e.goPkgs)
		e.goPkgs = slices.Clip(slices.Compact(e.goPkgs))
	}
	if n := len(g.free); n > 0 {
		e.num, g.free = g.free[n-1], g.free[:n-1]
		g.nodes[e.num] = e
	} else {
		e.num = uint32(len(g.nodes))
		g.nodes = append(g.nodes, e)
	}
}

// references yields the references of e, in file order: from its packed
// form inside the graph, from its File otherwise.
func (e *Entry) references() iter.Seq2[int, Reference] {
	if e.packed != nil {
		return e.packed.All()
	}
	return slices.All(e.File.References)
}

// Symbols returns the definitions of artifact id as last Put (and its
// path), without materialising its references as Entry does.
func (g *Graph) Symbols(id string) (path string, syms []Symbol, ok bool) {
	e := g.entries[id]
	if e == nil {
		return "", nil, false
	}
	return e.Path, e.packed.Symbols(), true
}

// Links returns the IDs of the artifacts id links to explicitly, as last
// Put (Entry.Links), without materialising its File as Entry does.
func (g *Graph) Links(id string) []string {
	if e := g.entries[id]; e != nil {
		return slices.Clone(e.Links)
	}
	return nil
}

// HasReference reports whether artifact id has a reference of this kind
// ("snippet": a quoted code block), reading its packed references without
// materialising them.
func (g *Graph) HasReference(id, kind string) bool {
	e := g.entries[id]
	if e == nil {
		return false
	}
	for _, r := range e.packed.All() {
		if r.Kind == kind {
			return true
		}
	}
	return false
}

// numDefs is the number of e's definitions.
func (e *Entry) numDefs() int {
	if e.packed != nil {
		return e.packed.NumSymbols()
	}
	return len(e.File.Symbols)
}

// def returns e's i-th definition: from its packed form inside the graph,
// without the fingerprint (resolution does not read it), from its File
// otherwise.
func (e *Entry) def(i int) Symbol {
	if e.packed != nil {
		return e.packed.symbol(i, false)
	}
	return e.File.Symbols[i]
}

// defName is the name of e's i-th definition.
func (e *Entry) defName(i int) string {
	if e.packed != nil {
		return e.packed.symbolName(i)
	}
	return e.File.Symbols[i].Name
}

// defs yields e's definitions with their index (as def gives them).
func (e *Entry) defs() iter.Seq2[int, Symbol] {
	return func(yield func(int, Symbol) bool) {
		for i := range e.numDefs() {
			if !yield(i, e.def(i)) {
				return
			}
		}
	}
}

// importedPackage is the name a Go import path is used by: its last
// element, skipping a /vN major version.
func importedPackage(p string) string {
	if base := path.Base(p); len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		p = path.Dir(p)
	}
	return path.Base(p)
}

// imports reports whether the Go file of e imports a package used as pkg.
func (e *Entry) imports(pkg string) bool {
	if e.packed != nil {
		_, ok := slices.BinarySearch(e.goPkgs, pkg)
		return ok
	}
	for _, r := range e.File.References {
		if r.Kind == "import" && importedPackage(r.Name) == pkg {
			return true
		}
	}
	return false
}
