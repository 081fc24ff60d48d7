package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// Reading the entries of a pack (git's Documentation/gitformat-pack.txt):
// each entry's header is read with one positioned read, its zlib stream
// inflated by one reused reader through one reused buffer, and deltas
// (OFS_DELTA, REF_DELTA) applied to their base. go-git's packfile reader,
// used before, read through a scanner with seeks, allocated a
// decompressor per object and hashed every object it read with collision
// detection: a tenth of a one-shot `lunad edit`'s CPU went into reading
// the six or so objects it needs. The pack is read, not mapped: a daemon
// that has read every artifact would otherwise count the whole pack in
// its resident memory.

// pack is one pack file and its index. The index is mapped when it is
// large (idxMap) and read when small. The pack is opened with its index,
// so that a consolidation or a gc of another process that removes it
// afterwards does not take it away from this one, and read from on the
// first read of one of its objects (load): a one-shot process opens every
// pack's index to find the few objects it reads, in one or two of them.
type pack struct {
	name   string // path of the .idx
	idx    idxfile.Index
	idxMap []byte
	f      *os.File // the .pack
	size   int64    // of the .pack
	loaded bool     // its header checked
}

// openPack opens the pack of the index idxName, whose content is idx (a
// mapping of it when idxMap is set, which the pack then owns). It returns
// nil, nil when the pack is gone (removed by a concurrent gc); on nil the
// caller still owns idx.
func openPack(idxName string, idx []byte, idxMap bool) (*pack, error) {
	x, err := openIndex(idx)
	if err != nil {
		return nil, fmt.Errorf("pack index %s: %w", idxName, err)
	}
	f, err := os.Open(packName(idxName))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	p := &pack{name: idxName, idx: x, f: f, size: fi.Size()}
	if idxMap {
		p.idxMap = idx
	}
	return p, nil
}

func packName(idxName string) string { return strings.TrimSuffix(idxName, ".idx") + ".pack" }

// load checks the pack's header, once.
func (p *pack) load() error {
	if p.loaded {
		return nil
	}
	var head [4]byte
	if _, err := p.f.ReadAt(head[:], 0); err != nil || p.size < 12+20 || string(head[:]) != "PACK" {
		return fmt.Errorf("%w: %s is not a pack file", errCorruptPack, packName(p.name))
	}
	p.loaded = true
	return nil
}

// readAt returns the bytes of the pack from off to end.
func (p *pack) readAt(off, end int64) ([]byte, error) {
	if err := p.load(); err != nil {
		return nil, err
	}
	b := make([]byte, end-off)
	if _, err := p.f.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("read pack %s: %w", filepath.Base(packName(p.name)), err)
	}
	return b, nil
}

func (p *pack) close() {
	if p.f != nil {
		p.f.Close()
	}
	unmapFile(p.idxMap)
	p.f, p.idxMap, p.loaded = nil, nil, false
}

// Pack entry types.
const (
	packOfsDelta = 6
	packRefDelta = 7
)

// maxDeltaChain bounds a chain of deltas (git makes them at most 50 deep
// by default): a longer one is a corrupt pack, possibly a cycle.
const maxDeltaChain = 10000

var errCorruptPack = errors.New("corrupt pack entry")

// packEntry is an entry's header: its type, the size of what its zlib
// stream inflates to, where that stream starts, and for a delta its base
// (an offset in the same pack, or a hash).
type packEntry struct {
	typ     byte
	size    uint64
	data    int64
	baseOff int64
	baseRef plumbing.Hash
}

// maxEntryHeader bounds an entry's header: a type-and-size byte, nine
// more of size, and a delta's base (a 20-byte hash, or at most ten bytes
// of offset).
const maxEntryHeader = 1 + 9 + 20

// entryAt reads the header of the entry at off.
func (p *pack) entryAt(off int64) (packEntry, error) {
	if err := p.load(); err != nil {
		return packEntry{}, err
	}
	end := p.size - 20 // the trailing checksum is no entry
	if off < 12 || off >= end {
		return packEntry{}, fmt.Errorf("%w: offset %d outside the pack", errCorruptPack, off)
	}
	d, err := p.readAt(off, min(off+maxEntryHeader, end))
	if err != nil {
		return packEntry{}, err
	}
	e, err := parseEntryHeader(d)
	if err != nil {
		return packEntry{}, fmt.Errorf("%w at %d", err, off)
	}
	if e.typ == packOfsDelta {
		if e.baseOff <= 0 || e.baseOff > off {
			return packEntry{}, fmt.Errorf("%w: delta base before the pack at %d", errCorruptPack, off)
		}
		e.baseOff = off - e.baseOff
	}
	e.data += off
	return e, nil
}

// parseEntryHeader parses the header at the start of d; data and baseOff
// are relative to the entry's start (baseOff backwards).
func parseEntryHeader(d []byte) (packEntry, error) {
	at := 0
	c := d[at]
	at++
	e := packEntry{typ: c >> 4 & 7, size: uint64(c & 0x0f)}
	for shift := 4; c&0x80 != 0; shift += 7 {
		if at >= len(d) || shift > 57 {
			return packEntry{}, fmt.Errorf("%w: bad header", errCorruptPack)
		}
		c = d[at]
		at++
		e.size |= uint64(c&0x7f) << shift
	}
	switch e.typ {
	case byte(plumbing.CommitObject), byte(plumbing.TreeObject), byte(plumbing.BlobObject), byte(plumbing.TagObject):
	case packOfsDelta:
		for i := 0; ; i++ {
			if at >= len(d) || i > 8 {
				return packEntry{}, fmt.Errorf("%w: bad delta offset", errCorruptPack)
			}
			c = d[at]
			at++
			if i > 0 {
				e.baseOff++
			}
			e.baseOff = e.baseOff<<7 | int64(c&0x7f)
			if c&0x80 == 0 {
				break
			}
		}
	case packRefDelta:
		if at+20 > len(d) {
			return packEntry{}, fmt.Errorf("%w: bad delta base", errCorruptPack)
		}
		copy(e.baseRef[:], d[at:at+20])
		at += 20
	default:
		return packEntry{}, fmt.Errorf("%w: type %d", errCorruptPack, e.typ)
	}
	e.data = int64(at)
	return e, nil
}

// inflater inflates pack entries with one reused zlib reader through one
// reused buffer.
type inflater struct {
	zr  io.ReadCloser
	src io.SectionReader
	buf *bufio.Reader
}

// inflate returns the size bytes the zlib stream at off in p inflates to.
func (z *inflater) inflate(p *pack, off int64, size uint64) ([]byte, error) {
	z.src = *io.NewSectionReader(p.f, off, p.size-20-off)
	if z.buf == nil {
		z.buf = bufio.NewReaderSize(&z.src, 16<<10)
	} else {
		z.buf.Reset(&z.src)
	}
	var err error
	if z.zr == nil {
		z.zr, err = zlib.NewReader(z.buf)
	} else {
		err = z.zr.(zlib.Resetter).Reset(z.buf, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCorruptPack, err)
	}
	// A corrupt size must not allocate: the buffer grows with what the
	// stream really holds.
	out := make([]byte, 0, min(size, 1<<20))
	for uint64(len(out)) < size {
		if len(out) == cap(out) {
			out = append(out, 0)[:len(out)]
		}
		n, err := z.zr.Read(out[len(out):min(uint64(cap(out)), size)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errCorruptPack, err)
		}
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("%w: %d bytes inflated, the header says %d", errCorruptPack, len(out), size)
	}
	return out, nil
}

// applyDelta applies a git delta (source size, target size, then copy and
// insert instructions) to base.
func applyDelta(base, delta []byte) ([]byte, error) {
	src, n := binary.Uvarint(delta)
	if n <= 0 || src != uint64(len(base)) {
		return nil, fmt.Errorf("%w: delta for a base of %d bytes applied to %d", errCorruptPack, src, len(base))
	}
	delta = delta[n:]
	dst, n := binary.Uvarint(delta)
	if n <= 0 {
		return nil, fmt.Errorf("%w: bad delta target size", errCorruptPack)
	}
	delta = delta[n:]
	out := make([]byte, 0, min(dst, 1<<20))
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0: // copy from base
			var off, size uint64
			for i := range 7 {
				if op&(1<<i) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, fmt.Errorf("%w: truncated delta", errCorruptPack)
				}
				if i < 4 {
					off |= uint64(delta[0]) << (8 * i)
				} else {
					size |= uint64(delta[0]) << (8 * (i - 4))
				}
				delta = delta[1:]
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) {
				return nil, fmt.Errorf("%w: delta copies past its base", errCorruptPack)
			}
			out = append(out, base[off:off+size]...)
		case op != 0: // insert op bytes
			if int(op) > len(delta) {
				return nil, fmt.Errorf("%w: truncated delta", errCorruptPack)
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, fmt.Errorf("%w: reserved delta instruction", errCorruptPack)
		}
		if uint64(len(out)) > dst {
			break
		}
	}
	if uint64(len(out)) != dst {
		return nil, fmt.Errorf("%w: delta made %d bytes, it says %d", errCorruptPack, len(out), dst)
	}
	return out, nil
}

// baseCache keeps the objects recently used as delta bases, by pack and
// offset, within a budget of bytes, least recently used out first: the
// versions of one file are a chain of deltas on the same bases.
type baseCache struct {
	budget, used int
	order        list.List // of *cachedBase, most recent first
	at           map[baseKey]*list.Element
}

type baseKey struct {
	p   *pack
	off int64
}

type cachedBase struct {
	key     baseKey
	typ     plumbing.ObjectType
	content []byte
}

func (c *baseCache) get(p *pack, off int64) (plumbing.ObjectType, []byte, bool) {
	el, ok := c.at[baseKey{p, off}]
	if !ok {
		return 0, nil, false
	}
	c.order.MoveToFront(el)
	b := el.Value.(*cachedBase)
	return b.typ, b.content, true
}

func (c *baseCache) put(p *pack, off int64, typ plumbing.ObjectType, content []byte) {
	k := baseKey{p, off}
	if _, ok := c.at[k]; ok || len(content) > c.budget/4 {
		return
	}
	if c.at == nil {
		c.at = map[baseKey]*list.Element{}
	}
	c.at[k] = c.order.PushFront(&cachedBase{k, typ, content})
	c.used += len(content)
	for c.used > c.budget {
		b := c.order.Remove(c.order.Back()).(*cachedBase)
		delete(c.at, b.key)
		c.used -= len(b.content)
	}
}

// forget drops the bases of a pack that is closed.
func (c *baseCache) forget(p *pack) {
	for el := c.order.Front(); el != nil; {
		next := el.Next()
		if b := el.Value.(*cachedBase); b.key.p == p {
			c.order.Remove(el)
			delete(c.at, b.key)
			c.used -= len(b.content)
		}
		el = next
	}
}

// readPacked returns the object at offset off of pack p: its entry
// inflated, with the chain of deltas under it applied (a REF_DELTA's base
// is read from any pack, or loose). The content is the caller's.
func (o *objectStore) readPacked(p *pack, off int64, depth int) (plumbing.ObjectType, []byte, error) {
	if t, b, ok := o.bases.get(p, off); ok {
		return t, bytes.Clone(b), nil
	}
	// Walk down the chain to an object in the cache or a whole one, then
	// apply the deltas back up, caching each level as a base.
	type level struct {
		off   int64
		delta []byte
	}
	var chain []level
	var typ plumbing.ObjectType
	var content []byte
	for cur := off; ; {
		if len(chain)+depth > maxDeltaChain {
			return 0, nil, fmt.Errorf("%w: delta chain longer than %d at %d", errCorruptPack, maxDeltaChain, off)
		}
		if t, b, ok := o.bases.get(p, cur); ok && cur != off {
			typ, content = t, b
			break
		}
		e, err := p.entryAt(cur)
		if err != nil {
			return 0, nil, err
		}
		b, err := o.inflater.inflate(p, e.data, e.size)
		if err != nil {
			return 0, nil, fmt.Errorf("%w at %d", err, cur)
		}
		switch e.typ {
		case packOfsDelta:
			chain = append(chain, level{cur, b})
			cur = e.baseOff
			continue
		case packRefDelta:
			chain = append(chain, level{cur, b})
			if base, err := p.idx.FindOffset(e.baseRef); err == nil {
				cur = base // in this pack, as it almost always is
				continue
			}
			if typ, content, err = o.readDepth(e.baseRef, depth+len(chain)); err != nil {
				return 0, nil, fmt.Errorf("delta base %s: %w", e.baseRef, err)
			}
		default:
			typ, content = plumbing.ObjectType(e.typ), b
			if len(chain) > 0 {
				o.bases.put(p, cur, typ, content)
			}
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		var err error
		if content, err = applyDelta(content, chain[i].delta); err != nil {
			return 0, nil, fmt.Errorf("%w at %d", err, chain[i].off)
		}
		if i > 0 {
			o.bases.put(p, chain[i].off, typ, content)
		}
	}
	return typ, content, nil
}
