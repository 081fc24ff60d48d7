package gitstore

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"hash/crc32"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// packObject is one object bound for a pack: its type and content, or
// (raw set) its whole entry as another pack stores it, header and zlib
// stream, with the CRC32 of those bytes.
type packObject struct {
	hash    plumbing.Hash
	typ     plumbing.ObjectType
	content []byte
	raw     []byte
	crc     uint32
}

// encodePack serialises objects as a version 2 pack (git's
// Documentation/gitformat-pack.txt): "PACK", version, count, each object
// whole (no deltas) as a type-and-size header and its zlib stream, and the
// SHA-1 of all of it; and its version 2 index: fan-out table, sorted
// names, CRC32 of each entry's bytes, 31-bit offsets (64-bit ones past
// 2 GiB), the pack's checksum and the index's own. The pack is named by
// its checksum, as `git index-pack` names it. Objects must be distinct.
func encodePack(objects []packObject, zw *zlib.Writer) (pack, idx []byte, sum plumbing.Hash) {
	type entry struct {
		hash   plumbing.Hash
		crc    uint32
		offset uint64
	}
	var p bytes.Buffer
	p.WriteString("PACK")
	binary.Write(&p, binary.BigEndian, uint32(2))
	binary.Write(&p, binary.BigEndian, uint32(len(objects)))
	entries := make([]entry, len(objects))
	for i, o := range objects {
		start := p.Len()
		if o.raw != nil {
			p.Write(o.raw)
			entries[i] = entry{o.hash, o.crc, uint64(start)}
			continue
		}
		size := uint64(len(o.content))
		b := byte(o.typ)<<4 | byte(size&0x0f)
		size >>= 4
		for size > 0 {
			p.WriteByte(b | 0x80)
			b = byte(size & 0x7f)
			size >>= 7
		}
		p.WriteByte(b)
		zw.Reset(&p)
		zw.Write(o.content)
		zw.Close()
		entries[i] = entry{o.hash, crc32.ChecksumIEEE(p.Bytes()[start:]), uint64(start)}
	}
	sum = sha1.Sum(p.Bytes())
	p.Write(sum[:])

	sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].hash[:], entries[j].hash[:]) < 0 })
	var x bytes.Buffer
	x.Write([]byte{0xff, 't', 'O', 'c'})
	binary.Write(&x, binary.BigEndian, uint32(2))
	var fanout [256]uint32
	for _, e := range entries {
		fanout[e.hash[0]]++
	}
	for i := 1; i < 256; i++ {
		fanout[i] += fanout[i-1]
	}
	binary.Write(&x, binary.BigEndian, fanout[:])
	for _, e := range entries {
		x.Write(e.hash[:])
	}
	for _, e := range entries {
		binary.Write(&x, binary.BigEndian, e.crc)
	}
	var large []uint64
	for _, e := range entries {
		if e.offset < 1<<31 {
			binary.Write(&x, binary.BigEndian, uint32(e.offset))
			continue
		}
		binary.Write(&x, binary.BigEndian, uint32(len(large))|1<<31)
		large = append(large, e.offset)
	}
	binary.Write(&x, binary.BigEndian, large)
	x.Write(sum[:])
	isum := sha1.Sum(x.Bytes())
	x.Write(isum[:])
	return p.Bytes(), x.Bytes(), sum
}
