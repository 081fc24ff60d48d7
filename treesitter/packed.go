package treesitter

import (
	"encoding/binary"
	"encoding/hex"
	"iter"
	"slices"
	"strings"
)

// PackedFile is a File in the compact form the reference index keeps for
// every artifact of a workspace: references are the bulk of an index (a
// million of them on 10,000 files, four in five of them names of
// libraries and builtins that resolve nowhere), and a Reference costs 96
// bytes as parsed (three strings and six ints). Packed, the references of
// a file are one byte arena of variable-length records, about 5 bytes
// each: the reference's name is an index into the file's table of
// distinct strings; its kind, target and any other field an index into a
// table of the file's distinct combinations of them ("shapes"); its line
// and line start are deltas from the previous reference's, its column a
// small number, its length that of its name or a small number. Any positions round-trip exactly (nothing assumes
// they agree with each other), and the arena holds no pointers, so the
// collector never scans it. Definitions (a tenth as many, 120 bytes
// each as parsed) are records of the same arena, about 20 bytes each:
// name, kind and container indexes into the strings, the span, the
// fingerprint's 16 hex digits as 8 bytes.
//
// References are read in file order (All, References); reading one
// allocates nothing. Definitions are read by index (Symbol). A
// PackedFile is immutable once made; File, References and Symbols
// materialise fresh slices, so a caller may keep or change what they
// return.
type PackedFile struct {
	Language, Skipped, Partial string
	Anchors                    []string    // File.Anchors
	ShortFlags                 []ShortFlag // File.ShortFlags
	strs                       []string    // distinct strings of the references and definitions
	rest                       []Reference // distinct values of the other fields (Name, Kind, Target, Span zero); rest[0] is all zero
	// data holds the shapes, shapeSize bytes each (kind, target and rest
	// as three little-endian uint32 indexes), the offsets in data of the
	// definition records (a little-endian uint32 each), the reference
	// records (appendRef) and the definition records (appendSym).
	data          []byte
	nrefs, nsyms  uint32
	refsAt, symAt uint32 // where the reference records and the definitions' offsets start in data
}

// shapeSize is the size of one shape in PackedFile.data.
const shapeSize = 12

// noRest is the rest table of a file whose references set only the
// fields a record carries by itself.
var noRest = []Reference{{}}

// Pack returns the compact form of f (nil for nil).
func Pack(f *File) *PackedFile {
	if f == nil {
		return nil
	}
	p := &PackedFile{Language: f.Language, Skipped: f.Skipped, Partial: f.Partial,
		Anchors: slices.Clip(slices.Clone(f.Anchors)), ShortFlags: slices.Clip(slices.Clone(f.ShortFlags)),
		nrefs: uint32(len(f.References)), nsyms: uint32(len(f.Symbols))}
	strs := map[string]uint32{}
	str := func(s string) uint32 {
		if i, ok := strs[s]; ok {
			return i
		}
		i := uint32(len(p.strs))
		strs[s] = i
		p.strs = append(p.strs, s)
		return i
	}
	type shape struct{ kind, target, rest uint32 }
	shapes := map[shape]uint32{}
	var order []shape
	rests := map[Reference]uint32{{}: 0}
	p.rest = []Reference{{}}
	var recs []byte
	var prev Position
	names := make([]uint32, len(f.References))
	sh := make([]uint32, len(f.References))
	for i, r := range f.References {
		// Every field a record does not carry by itself (a Role, say)
		// is kept, once per distinct value, in rest.
		rest := r
		rest.Name, rest.Kind, rest.Target, rest.Span = "", "", "", Span{}
		ri, ok := rests[rest]
		if !ok {
			ri = uint32(len(p.rest))
			rests[rest] = ri
			p.rest = append(p.rest, rest)
		}
		s := shape{str(r.Kind), str(r.Target), ri}
		si, ok := shapes[s]
		if !ok {
			si = uint32(len(order))
			shapes[s] = si
			order = append(order, s)
		}
		names[i], sh[i] = str(r.Name), si
	}
	for i, r := range f.References {
		recs = appendRef(recs, sh[i], names[i], len(r.Name), r.Span, prev)
		prev = r.Span.Start
	}
	p.symAt = uint32(len(order) * shapeSize)
	p.refsAt = p.symAt + 4*p.nsyms
	at := make([]uint32, len(f.Symbols))
	for i, sym := range f.Symbols {
		at[i] = p.refsAt + uint32(len(recs))
		recs = appendSym(recs, sym, str)
	}
	p.data = make([]byte, 0, int(p.refsAt)+len(recs))
	for _, s := range order {
		p.data = binary.LittleEndian.AppendUint32(p.data, s.kind)
		p.data = binary.LittleEndian.AppendUint32(p.data, s.target)
		p.data = binary.LittleEndian.AppendUint32(p.data, s.rest)
	}
	for _, a := range at {
		p.data = binary.LittleEndian.AppendUint32(p.data, a)
	}
	p.data = append(p.data, recs...)
	p.strs = append([]string(nil), p.strs...) // without the capacity appends left
	if len(p.rest) == 1 {
		p.rest = noRest // shared: most files set no other field
	} else {
		p.rest = append([]Reference(nil), p.rest...)
	}
	return p
}

// A reference record is, as unsigned varints (z: zigzag-encoded, for
// values that may be negative):
//
//	shape<<4 | back<<3 | named<<2 | same<<1 | moved
//	name                   index into strs
//	z(line - previous line)     the start's line, from the previous record's
//	|lineStart - previous|      only if moved: how far the start's line start
//	                            (Byte-Column) is from the previous record's,
//	                            backwards if back
//	z(column)
//	end - start            if same (the span ends on its start's line) and
//	                       not named (named: the length is the name's, as
//	                       for most identifiers): its length in bytes;
//	                       if not same, the end as
//	z(endLine-line), z(endLineStart-lineStart), z(endColumn)
func appendRef(b []byte, shape, name uint32, nameLen int, sp Span, prev Position) []byte {
	s, e := sp.Start, sp.End
	ls, pls := s.Byte-s.Column, prev.Byte-prev.Column
	same := e.Line == s.Line && e.Byte-e.Column == ls && e.Byte >= s.Byte
	named := same && e.Byte-s.Byte == nameLen
	back := ls < pls
	b = binary.AppendUvarint(b, uint64(shape)<<4|bit(back)<<3|bit(named)<<2|bit(same)<<1|bit(ls != pls))
	b = binary.AppendUvarint(b, uint64(name))
	b = binary.AppendUvarint(b, zig(s.Line-prev.Line))
	if back {
		b = binary.AppendUvarint(b, uint64(pls)-uint64(ls))
	} else if ls != pls {
		b = binary.AppendUvarint(b, uint64(ls)-uint64(pls))
	}
	b = binary.AppendUvarint(b, zig(s.Column))
	if named {
		return b
	}
	if same {
		return binary.AppendUvarint(b, uint64(e.Byte-s.Byte))
	}
	b = binary.AppendUvarint(b, zig(e.Line-s.Line))
	b = binary.AppendUvarint(b, zig(e.Byte-e.Column-ls))
	return binary.AppendUvarint(b, zig(e.Column))
}

// A definition record is, as unsigned varints (z as for references):
//
//	name, kind, container      indexes into strs
//	flags                      symHidden, symHex (the fingerprint is 16
//	                           lower-case hex digits: 8 bytes follow the
//	                           span) or symFPString (an index into strs
//	                           follows the span; else it is empty)
//	z(line), z(lineStart), z(column)                      the start
//	z(endLine-line), z(endLineStart-lineStart), z(endColumn)  the end
const (
	symHidden = 1 << iota
	symHex
	symFPString
)

func appendSym(b []byte, s Symbol, str func(string) uint32) []byte {
	b = binary.AppendUvarint(b, uint64(str(s.Name)))
	b = binary.AppendUvarint(b, uint64(str(s.Kind)))
	b = binary.AppendUvarint(b, uint64(str(s.Container)))
	var flags uint64
	if s.Hidden {
		flags |= symHidden
	}
	fp, hexFP := hexBytes(s.Fingerprint)
	switch {
	case hexFP:
		flags |= symHex
	case s.Fingerprint != "":
		flags |= symFPString
	}
	b = binary.AppendUvarint(b, flags)
	st, en := s.Span.Start, s.Span.End
	ls := st.Byte - st.Column
	b = binary.AppendUvarint(b, zig(st.Line))
	b = binary.AppendUvarint(b, zig(ls))
	b = binary.AppendUvarint(b, zig(st.Column))
	b = binary.AppendUvarint(b, zig(en.Line-st.Line))
	b = binary.AppendUvarint(b, zig(en.Byte-en.Column-ls))
	b = binary.AppendUvarint(b, zig(en.Column))
	switch {
	case hexFP:
		b = append(b, fp[:]...)
	case s.Fingerprint != "":
		b = binary.AppendUvarint(b, uint64(str(s.Fingerprint)))
	}
	return b
}

// hexBytes decodes 16 lower-case hex digits (a fingerprint as made);
// ok is false for anything else, which is kept as a string.
func hexBytes(s string) (b [8]byte, ok bool) {
	if len(s) != 16 || strings.ToLower(s) != s {
		return b, false
	}
	_, err := hex.Decode(b[:], []byte(s))
	return b, err == nil
}

// NumSymbols is the number of definitions.
func (p *PackedFile) NumSymbols() int { return int(p.nsyms) }

// Symbol returns the i-th definition (0 ≤ i < NumSymbols), in file order.
func (p *PackedFile) Symbol(i int) Symbol { return p.symbol(i, true) }

// symbol decodes the i-th definition; without fp, its Fingerprint is
// left empty (resolution does not read it, and decoding it allocates).
func (p *PackedFile) symbol(i int, fp bool) Symbol {
	r := p.symReader(i)
	return r.symbol(fp)
}

// symbol decodes the definition record at r.
func (r *refReader) symbol(fp bool) Symbol {
	var s Symbol
	s.Name, s.Kind, s.Container = r.str(r.uvarint()), r.str(r.uvarint()), r.str(r.uvarint())
	flags := r.uvarint()
	s.Hidden = flags&symHidden != 0
	s.Span.Start.Line = unzig(r.uvarint())
	ls := unzig(r.uvarint())
	s.Span.Start.Column = unzig(r.uvarint())
	s.Span.Start.Byte = ls + s.Span.Start.Column
	s.Span.End.Line = s.Span.Start.Line + unzig(r.uvarint())
	els := ls + unzig(r.uvarint())
	s.Span.End.Column = unzig(r.uvarint())
	s.Span.End.Byte = els + s.Span.End.Column
	switch {
	case flags&symHex != 0:
		if r.off+8 > len(r.p.data) {
			r.bad, r.off = true, len(r.p.data)
			break
		}
		if fp {
			s.Fingerprint = hex.EncodeToString(r.p.data[r.off : r.off+8])
		}
		r.off += 8
	case flags&symFPString != 0:
		if f := r.str(r.uvarint()); fp {
			s.Fingerprint = f
		}
	}
	return s
}

// symbolName is the name of the i-th definition (decoding nothing else).
func (p *PackedFile) symbolName(i int) string {
	r := p.symReader(i)
	return r.str(r.uvarint())
}

// Symbols materialises every definition, in file order.
func (p *PackedFile) Symbols() []Symbol {
	if p.nsyms == 0 {
		return nil
	}
	out := make([]Symbol, p.nsyms)
	for i := range out {
		out[i] = p.Symbol(i)
	}
	return out
}

func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// zig and unzig map ints to unsigned varints small in magnitude either way.
func zig(v int) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzig(u uint64) int { return int(u>>1) ^ -int(u&1) }

// refReader decodes the records of a PackedFile. It checks what it reads
// (a varint that does not end, an index out of its table, an offset past
// the arena): a bad record sets bad and decodes as zero values, never a
// panic. DecodePacked reads every record once so, so that a PackedFile it
// returns has none; Pack makes none.
type refReader struct {
	p    *PackedFile
	off  int
	prev Position
	last refShape // of the record next decoded last
	bad  bool
}

// refShape identifies, within one file, the references with the same
// name and shape: they differ only in their positions.
type refShape struct{ shape, name uint32 }

// shape returns the name and shape of the reference next returned last.
func (r *refReader) shape() refShape { return r.last }

func (p *PackedFile) reader() refReader { return refReader{p: p, off: int(p.refsAt)} }

func (r *refReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.p.data[r.off:])
	if n <= 0 {
		r.bad, r.off = true, len(r.p.data)
		return 0
	}
	r.off += n
	return v
}

// str returns strs[i].
func (r *refReader) str(i uint64) string {
	if i >= uint64(len(r.p.strs)) {
		r.bad = true
		return ""
	}
	return r.p.strs[i]
}

// u32 reads the little-endian uint32 at offset at of the arena, which
// must lie before end.
func (r *refReader) u32(at, end uint64) uint32 {
	if at+4 > end || end > uint64(len(r.p.data)) {
		r.bad = true
		return 0
	}
	return binary.LittleEndian.Uint32(r.p.data[at:])
}

// next decodes the next reference record.
func (r *refReader) next() Reference {
	p := r.p
	head := r.uvarint()
	name := r.uvarint()
	r.last = refShape{uint32(head >> 4), uint32(name)}
	at := (head >> 4) * shapeSize
	var out Reference
	if ri := r.u32(at+8, uint64(p.symAt)); int(ri) < len(p.rest) {
		out = p.rest[ri]
	} else {
		r.bad = true
	}
	out.Kind, out.Target = r.str(uint64(r.u32(at, uint64(p.symAt)))), r.str(uint64(r.u32(at+4, uint64(p.symAt))))
	out.Name = r.str(name)
	var s Position
	s.Line = r.prev.Line + unzig(r.uvarint())
	ls := r.prev.Byte - r.prev.Column
	switch head & 9 {
	case 1:
		ls += int(r.uvarint())
	case 9:
		ls -= int(r.uvarint())
	}
	s.Column = unzig(r.uvarint())
	s.Byte = ls + s.Column
	e := s
	if head&2 != 0 {
		n := len(out.Name)
		if head&4 == 0 {
			n = int(r.uvarint())
		}
		e.Byte += n
		e.Column += n
	} else {
		e.Line = s.Line + unzig(r.uvarint())
		els := ls + unzig(r.uvarint())
		e.Column = unzig(r.uvarint())
		e.Byte = els + e.Column
	}
	out.Span = Span{Start: s, End: e}
	r.prev = s
	return out
}

// symReader returns a reader at the i-th definition record.
func (p *PackedFile) symReader(i int) refReader {
	r := refReader{p: p}
	r.off = int(r.u32(uint64(p.symAt)+4*uint64(i), uint64(p.refsAt)))
	if r.off < int(p.refsAt) || r.off > len(p.data) {
		r.bad, r.off = true, len(p.data)
	}
	return r
}

// Len is the number of references.
func (p *PackedFile) Len() int { return int(p.nrefs) }

// All yields the references with their index, in file order.
func (p *PackedFile) All() iter.Seq2[int, Reference] {
	return func(yield func(int, Reference) bool) {
		r := p.reader()
		for i := range int(p.nrefs) {
			if !yield(i, r.next()) {
				return
			}
		}
	}
}

// References materialises every reference, in file order.
func (p *PackedFile) References() []Reference {
	if p.nrefs == 0 {
		return nil
	}
	out := make([]Reference, 0, p.nrefs)
	for _, r := range p.All() {
		out = append(out, r)
	}
	return out
}

// Definitions materialises the parsed form without its references: the
// definitions, and the language, anchors and short flags that reading
// them needs (nil for nil).
func (p *PackedFile) Definitions() *File {
	if p == nil {
		return nil
	}
	return &File{Language: p.Language, Skipped: p.Skipped, Partial: p.Partial, Symbols: p.Symbols(),
		Anchors: slices.Clone(p.Anchors), ShortFlags: slices.Clone(p.ShortFlags)}
}

// File materialises the parsed form (nil for nil).
func (p *PackedFile) File() *File {
	f := p.Definitions()
	if f != nil {
		f.References = p.References()
	}
	return f
}

// Intern replaces each string of p by in(s), so that files can share one
// copy of each name (the reference index interns across a workspace).
// It is for the owner of p before p is shared.
func (p *PackedFile) Intern(in func(string) string) {
	p.Language, p.Skipped, p.Partial = in(p.Language), in(p.Skipped), in(p.Partial)
	for i := range p.strs {
		p.strs[i] = in(p.strs[i])
	}
}
