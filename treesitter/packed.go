package treesitter

import (
	"fmt"
	"math"
	"slices"
)

// PackedFile is a File in the compact form the reference index keeps for
// every artifact of a workspace: references are the bulk of an index (a
// million of them on 10,000 files), and a Reference costs 96 bytes as
// parsed (three strings and six ints). Packed, a reference is 36 bytes:
// its name, kind and target are 32-bit indexes into the file's table of
// distinct strings, its positions 32-bit byte offsets, lines and columns.
// Definitions are kept as parsed (a tenth of the references, and read by
// every resolution).
//
// A PackedFile is immutable once made; File and References materialise
// fresh slices, so a caller may keep or change what they return.
type PackedFile struct {
	Language, Skipped, Partial string
	Symbols                    []Symbol
	refs                       []packedRef
	strs                       []string // distinct Name, Kind and Target strings of refs
}

type packedRef struct {
	name, kind, target uint32 // indexes into strs
	start, end         packedPos
}

type packedPos struct{ byte, line, col uint32 }

// ErrTooLarge is returned by Pack for a file whose offsets do not fit in
// 32 bits (files are capped at MaxFileSize, far below).
var ErrTooLarge = fmt.Errorf("treesitter: file too large to pack (offsets past 4 GiB)")

// Pack returns the compact form of f (nil for nil).
func Pack(f *File) (*PackedFile, error) {
	if f == nil {
		return nil, nil
	}
	p := &PackedFile{Language: f.Language, Skipped: f.Skipped, Partial: f.Partial, Symbols: slices.Clip(slices.Clone(f.Symbols)),
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
	for i, r := range f.References {
		start, ok1 := packPos(r.Span.Start)
		end, ok2 := packPos(r.Span.End)
		if !ok1 || !ok2 {
			return nil, ErrTooLarge
		}
		p.refs[i] = packedRef{name: str(r.Name), kind: str(r.Kind), target: str(r.Target), start: start, end: end}
	}
	if len(p.strs) < cap(p.strs) {
		p.strs = append([]string(nil), p.strs...)
	}
	return p, nil
}

func packPos(p Position) (packedPos, bool) {
	if p.Byte < 0 || p.Line < 0 || p.Column < 0 || p.Byte > math.MaxUint32 || p.Line > math.MaxUint32 || p.Column > math.MaxUint32 {
		return packedPos{}, false
	}
	return packedPos{uint32(p.Byte), uint32(p.Line), uint32(p.Column)}, true
}

func (p packedPos) unpack() Position {
	return Position{Byte: int(p.byte), Line: int(p.line), Column: int(p.col)}
}

// Len is the number of references.
func (p *PackedFile) Len() int { return len(p.refs) }

// Reference returns the i-th reference, in file order.
func (p *PackedFile) Reference(i int) Reference {
	r := p.refs[i]
	return Reference{Name: p.strs[r.name], Kind: p.strs[r.kind], Target: p.strs[r.target],
		Span: Span{Start: r.start.unpack(), End: r.end.unpack()}}
}

// names returns the Name, Kind and Target of the i-th reference without
// its positions (what resolution filters by, allocation-free).
func (p *PackedFile) names(i int) Reference {
	r := p.refs[i]
	return Reference{Name: p.strs[r.name], Kind: p.strs[r.kind], Target: p.strs[r.target]}
}

// References materialises every reference, in file order.
func (p *PackedFile) References() []Reference {
	if len(p.refs) == 0 {
		return nil
	}
	out := make([]Reference, len(p.refs))
	for i := range p.refs {
		out[i] = p.Reference(i)
	}
	return out
}

// File materialises the parsed form (nil for nil).
func (p *PackedFile) File() *File {
	if p == nil {
		return nil
	}
	return &File{Language: p.Language, Skipped: p.Skipped, Partial: p.Partial, Symbols: slices.Clone(p.Symbols), References: p.References()}
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
