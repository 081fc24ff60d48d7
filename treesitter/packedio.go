package treesitter

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The binary form of a PackedFile, which the reference index's parse
// cache stores: the arena as it is, after the strings and tables it
// indexes. Reading it back costs three allocations per file (the
// PackedFile, its string table, its arena) and the strings not seen
// before; nothing is parsed or packed again.
//
//	uvarint 1                          the form's version
//	str Language, Skipped, Partial     (str: uvarint length, bytes)
//	uvarint n, n × str                 Anchors
//	uvarint n, n × (str, str)          ShortFlags (Short, Long)
//	uvarint n, n × str                 the string table
//	uvarint n, n × str                 the other fields' values past the
//	                                   first, all-zero one: Role
//	uvarint nrefs, nsyms, symAt
//	uvarint n, n bytes                 the arena

// ErrDamagedPacked is returned by DecodePacked for bytes that are not the
// binary form of a PackedFile (cut short, or changed).
var ErrDamagedPacked = errors.New("treesitter: not a packed file (damaged)")

const packedVersion = 2

// The smallest records (appendRef, appendSym): a reference named by its
// span on the line and line start of the one before (head, name, line,
// column), a definition with every field one byte.
const (
	minRefRecord = 4
	minSymRecord = 10
)

// AppendBinary appends the binary form of p to b (encoding.BinaryAppender).
func (p *PackedFile) AppendBinary(b []byte) ([]byte, error) {
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	b = binary.AppendUvarint(b, packedVersion)
	str(p.Language)
	str(p.Skipped)
	str(p.Partial)
	b = binary.AppendUvarint(b, uint64(len(p.Anchors)))
	for _, a := range p.Anchors {
		str(a)
	}
	b = binary.AppendUvarint(b, uint64(len(p.ShortFlags)))
	for _, sf := range p.ShortFlags {
		str(sf.Short)
		str(sf.Long)
	}
	b = binary.AppendUvarint(b, uint64(len(p.strs)))
	for _, s := range p.strs {
		str(s)
	}
	b = binary.AppendUvarint(b, uint64(len(p.rest)-1))
	for _, r := range p.rest[1:] {
		str(r.Role)
	}
	b = binary.AppendUvarint(b, uint64(p.nrefs))
	b = binary.AppendUvarint(b, uint64(p.nsyms))
	b = binary.AppendUvarint(b, uint64(p.symAt))
	b = binary.AppendUvarint(b, uint64(len(p.data)))
	return append(b, p.data...), nil
}

// DecodePacked reads the binary form AppendBinary wrote. Each string is
// made by intern from its bytes (which it must not keep: they are b's;
// func(b []byte) string { return string(b) } will do), so that a caller
// can share one copy of each name across files. Bytes
// that are not such a form (cut short, or changed so that a record or an
// index no longer fits) return an error wrapping ErrDamagedPacked, never a
// PackedFile that would panic when read.
func DecodePacked(b []byte, intern func([]byte) string) (*PackedFile, error) {
	d := decoder{b: b, intern: intern}
	if v := d.uvarint(); v != packedVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrDamagedPacked, v, packedVersion)
	}
	p := &PackedFile{Language: d.str(), Skipped: d.str(), Partial: d.str()}
	if n := d.count(1); n > 0 {
		p.Anchors = make([]string, n)
		for i := range p.Anchors {
			p.Anchors[i] = d.str()
		}
	}
	if n := d.count(2); n > 0 {
		p.ShortFlags = make([]ShortFlag, n)
		for i := range p.ShortFlags {
			p.ShortFlags[i] = ShortFlag{Short: d.str(), Long: d.str()}
		}
	}
	if n := d.count(1); n > 0 {
		p.strs = make([]string, n)
		for i := range p.strs {
			p.strs[i] = d.str()
		}
	}
	p.rest = noRest
	if n := d.count(1); n > 0 {
		p.rest = make([]Reference, n+1)
		for i := range n {
			p.rest[i+1].Role = d.str()
		}
	}
	nrefs, nsyms, symAt := d.uvarint(), d.uvarint(), d.uvarint()
	data := d.bytes()
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes past its end", ErrDamagedPacked, len(d.b))
	}
	// A reference record takes minRefRecord bytes at least, a definition
	// minSymRecord and 4 for its offset: counts the arena cannot hold are
	// damage (and are not walked).
	if nrefs > math.MaxUint32 || nsyms > math.MaxUint32 || len(data) > math.MaxUint32 || symAt%shapeSize != 0 ||
		symAt+minRefRecord*nrefs+(minSymRecord+4)*nsyms > uint64(len(data)) {
		return nil, fmt.Errorf("%w: %d references, %d definitions and %d bytes of shapes do not fit %d bytes", ErrDamagedPacked, nrefs, nsyms, symAt, len(data))
	}
	p.data = append([]byte(nil), data...)
	p.nrefs, p.nsyms, p.symAt, p.refsAt = uint32(nrefs), uint32(nsyms), uint32(symAt), uint32(symAt+4*nsyms)
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// check reads every record of p once: each must decode within the arena,
// the references end where the first definition starts, and each
// definition where the next one starts.
func (p *PackedFile) check() error {
	r := p.reader()
	for i := uint32(0); i < p.nrefs && !r.bad; i++ {
		r.next()
	}
	end := len(p.data)
	if p.nsyms > 0 {
		end = int(binary.LittleEndian.Uint32(p.data[p.symAt:]))
	}
	if r.bad || r.off != end {
		return fmt.Errorf("%w: the references do not decode within the arena", ErrDamagedPacked)
	}
	for i := range int(p.nsyms) {
		r := p.symReader(i)
		r.symbol(false)
		end := len(p.data)
		if i+1 < int(p.nsyms) {
			end = int(binary.LittleEndian.Uint32(p.data[int(p.symAt)+4*(i+1):]))
		}
		if r.bad || r.off != end {
			return fmt.Errorf("%w: definition %d does not decode within its record", ErrDamagedPacked, i)
		}
	}
	return nil
}

// decoder reads the binary form; the first error sticks.
type decoder struct {
	b      []byte
	intern func([]byte) string
	err    error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s cut short", ErrDamagedPacked, what)
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("a number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of items of at least min bytes each, which the
// rest of the input must be able to hold (a changed count cannot make a
// huge allocation).
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/min) {
		d.fail("a list")
		return 0
	}
	return int(n)
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("a string")
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) str() string {
	b := d.bytes()
	if d.err != nil {
		return ""
	}
	return d.intern(b)
}
