package treesitter

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// PackedFile is a File in the compact form the reference index keeps for
// every artifact of a workspace: references are the bulk of an index (a
// million of them on 10,000 files), and a Reference costs 96 bytes as
// parsed (three strings and six ints). Packed, a reference is 24 bytes:
// its name, kind and target are 32-bit indexes into the file's table of
// distinct strings, its span two 32-bit byte offsets, any other field
// (set on few references) an index into a table of their distinct values;
// lines and columns
// are computed on demand from a table of the starts of the lines that
// references touch (8 bytes per such line). A file whose positions do
// not agree with one line table (none that Parse returns) keeps its
// references as parsed: packing never loses anything. Definitions are kept as parsed (a tenth of the
// references, and read by every resolution).
//
// A PackedFile is immutable once made; File and References materialise
// fresh slices, so a caller may keep or change what they return.
type PackedFile struct {
	Language, Skipped, Partial string
	Symbols                    []Symbol
	Anchors                    []string    // File.Anchors
	ShortFlags                 []ShortFlag // File.ShortFlags
	refs                       []packedRef
	strs                       []string    // distinct Name, Kind and Target strings of refs
	rest                       []Reference // distinct values of the other fields, the packed ones zero; rest[0] is all zero
	lines                      []lineStart // sorted by start (and line)
	plain                      []Reference // instead of refs, for a file whose positions lines cannot describe
}

type packedRef struct {
	name, kind, target uint32 // indexes into strs
	rest               uint32 // index into rest: the fields not packed one by one
	start, end         uint32 // byte offsets
}

// noRest is the rest table of a file whose references set only the
// fields packedRef carries.
var noRest = []Reference{{}}

// lineStart is where a 0-based line starts, in bytes.
type lineStart struct{ line, start uint32 }

// ErrTooLarge is returned by Pack for a file whose offsets do not fit in
// 32 bits (files are capped at MaxFileSize, far below).
var ErrTooLarge = fmt.Errorf("treesitter: file too large to pack (offsets past 4 GiB)")

// Pack returns the compact form of f (nil for nil).
func Pack(f *File) (*PackedFile, error) {
	if f == nil {
		return nil, nil
	}
	p := &PackedFile{Language: f.Language, Skipped: f.Skipped, Partial: f.Partial, Symbols: slices.Clip(slices.Clone(f.Symbols)),
		Anchors: slices.Clip(slices.Clone(f.Anchors)), ShortFlags: slices.Clip(slices.Clone(f.ShortFlags)),
		refs: make([]packedRef, len(f.References))}
	index := map[string]uint32{}
	str := func(s string) uint32 {
		if i, ok := index[s]; ok {
			return i
		}
		i := uint32(len(p.strs))
		index[s] = i
		p.strs = append(p.strs, s)
		return i
	}
	starts := map[uint32]uint32{} // line -> start
	p.rest = []Reference{{}}
	rests := map[Reference]uint32{{}: 0}
	for i, r := range f.References {
		// Every field a packedRef does not carry by itself (a Role,
		// say) is kept, once per distinct value, in rest.
		rest := r
		rest.Name, rest.Kind, rest.Target, rest.Span = "", "", "", Span{}
		ri, ok := rests[rest]
		if !ok {
			ri = uint32(len(p.rest))
			rests[rest] = ri
			p.rest = append(p.rest, rest)
		}
		for _, pos := range [2]Position{r.Span.Start, r.Span.End} {
			if !fits(pos) {
				return nil, ErrTooLarge
			}
			starts[uint32(pos.Line)] = uint32(pos.Byte - pos.Column)
		}
		p.refs[i] = packedRef{name: str(r.Name), kind: str(r.Kind), target: str(r.Target), rest: ri, start: uint32(r.Span.Start.Byte), end: uint32(r.Span.End.Byte)}
	}
	p.strs = append(make([]string, 0, len(p.strs)), p.strs...) // not the capacity appends left
	if len(p.rest) == 1 {
		p.rest = noRest // shared: most files set no other field
	}
	p.lines = make([]lineStart, 0, len(starts))
	for line, start := range starts {
		p.lines = append(p.lines, lineStart{line, start})
	}
	slices.SortFunc(p.lines, func(a, b lineStart) int { return cmp.Compare(a.line, b.line) })
	for i, r := range f.References {
		if p.Reference(i) != r { // lines that overlap or go backwards: keep as parsed
			p.refs, p.strs, p.rest, p.lines = nil, nil, nil, nil
			p.plain = slices.Clip(slices.Clone(f.References))
			break
		}
	}
	return p, nil
}

func fits(p Position) bool {
	return p.Byte >= p.Column && p.Line >= 0 && p.Column >= 0 && p.Byte <= math.MaxUint32 && p.Line <= math.MaxUint32
}

// position computes the line and column of byte offset b from p.lines.
func (p *PackedFile) position(b uint32) Position {
	i := sort.Search(len(p.lines), func(i int) bool { return p.lines[i].start > b }) - 1
	if i < 0 { // cannot happen for a position Pack recorded (checked there)
		return Position{Byte: int(b)}
	}
	l := p.lines[i]
	return Position{Byte: int(b), Line: int(l.line), Column: int(b - l.start)}
}

// Len is the number of references.
func (p *PackedFile) Len() int { return len(p.refs) + len(p.plain) }

// Reference returns the i-th reference, in file order.
func (p *PackedFile) Reference(i int) Reference {
	if p.plain != nil {
		return p.plain[i]
	}
	r := p.names(i)
	r.Span = Span{Start: p.position(p.refs[i].start), End: p.position(p.refs[i].end)}
	return r
}

// names returns the i-th reference without its positions (what
// resolution filters by, allocation-free).
func (p *PackedFile) names(i int) Reference {
	if p.plain != nil {
		r := p.plain[i]
		r.Span = Span{}
		return r
	}
	r := p.refs[i]
	out := p.rest[r.rest]
	out.Name, out.Kind, out.Target = p.strs[r.name], p.strs[r.kind], p.strs[r.target]
	return out
}

// References materialises every reference, in file order.
func (p *PackedFile) References() []Reference {
	if p.Len() == 0 {
		return nil
	}
	out := make([]Reference, p.Len())
	for i := range out {
		out[i] = p.Reference(i)
	}
	return out
}

// File materialises the parsed form (nil for nil).
func (p *PackedFile) File() *File {
	if p == nil {
		return nil
	}
	return &File{Language: p.Language, Skipped: p.Skipped, Partial: p.Partial, Symbols: slices.Clone(p.Symbols), References: p.References(),
		Anchors: slices.Clone(p.Anchors), ShortFlags: slices.Clone(p.ShortFlags)}
}

// Intern replaces each string of p by in(s), so that files can share one
// copy of each name (the reference index interns across a workspace).
// It is for the owner of p before p is shared.
func (p *PackedFile) Intern(in func(string) string) {
	p.Language, p.Skipped, p.Partial = in(p.Language), in(p.Skipped), in(p.Partial)
	for i := range p.strs {
		p.strs[i] = in(p.strs[i])
	}
	for i := range p.Symbols {
		s := &p.Symbols[i]
		s.Kind, s.Name, s.Container = in(s.Kind), in(s.Name), in(s.Container)
	}
}
