package gitstore

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// objectStore reads git objects: loose ones first, then pack files, whose
// .idx files are searched in place (fan-out table, binary search) rather
// than decoded whole (mapped when large), and whose entries are read by
// packread.go. A one-shot `lunad edit` reads a handful of objects; decoding the
// index of a 20,000-object pack to find them was the largest cost of its
// start-up. The packs the store writes are added as it writes them; packs
// that appear otherwise (git gc, another lunad process) are found by
// rescanning when an object is missing, which opens only the packs not yet
// open and closes the ones gone. Objects of the batch being written are
// read from the writer's queue (pending). Callers hold the store's mutex.
type objectStore struct {
	dir     string // .git/objects
	packs   []*pack
	scanned bool
	// pending returns an object written but not yet made durable (the
	// objectWriter's queue), which the batch writing it reads back.
	pending  func(plumbing.Hash) (plumbing.ObjectType, []byte, bool)
	bases    baseCache
	inflater inflater
}

// deltaCache bounds the cache of delta base objects. go-git's default
// (96 MiB per pack) made a daemon that had read every artifact of a packed
// repository hold ~50 MiB of object data for good; 8 MiB still held 5.5
// of the daemon's 59 MB of live heap after BenchmarkLSP on the
// 10,000-artifact workspace (docs/benchmarks.md).
const deltaCache = 2 << 20

func newObjectStore(gitDir string) *objectStore {
	return &objectStore{dir: filepath.Join(gitDir, "objects"), bases: baseCache{budget: deltaCache}}
}

// read returns an object's type and content, or ErrNotFound.
func (o *objectStore) read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	return o.readDepth(h, 0)
}

// readDepth is read for the base of a REF_DELTA depth deltas deep.
func (o *objectStore) readDepth(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	if o.pending != nil {
		if t, b, ok := o.pending(h); ok {
			return t, b, nil
		}
	}
	// The packs first: lunad writes every object into one, and a look-up
	// in an open pack's index costs no system call, where a look-up of a
	// loose object is a failed open for nearly every object lunad reads.
	for attempt := 0; attempt < maxScans; attempt++ {
		still := false // the packs held still since the last scan
		if !o.scanned || attempt > 0 {
			changed, err := o.scan()
			if err != nil {
				return 0, nil, err
			}
			still = attempt > 1 && !changed
		}
		for _, p := range o.packs {
			off, err := p.idx.FindOffset(h)
			if err != nil {
				continue
			}
			t, b, err := o.readPacked(p, off, depth)
			if err != nil {
				return 0, nil, fmt.Errorf("read object %s from pack %s: %w", h, filepath.Base(p.name), err)
			}
			return t, b, nil
		}
		if t, b, err := o.readLoose(h); err == nil || !os.IsNotExist(err) {
			return t, b, err
		}
		if still {
			break // the object is in none of the packs, nor loose
		}
	}
	return 0, nil, fmt.Errorf("%w: object %s", plumbing.ErrObjectNotFound, h)
}

func (o *objectStore) readLoose(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	hex := h.String()
	f, err := os.Open(filepath.Join(o.dir, hex[:2], hex[2:]))
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", h, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return 0, nil, fmt.Errorf("loose object %s: %w", h, err)
	}
	head, body, ok := bytes.Cut(raw, []byte{0})
	typ, size, ok2 := strings.Cut(string(head), " ")
	t, err := plumbing.ParseObjectType(typ)
	if !ok || !ok2 || err != nil || size != fmt.Sprint(len(body)) {
		return 0, nil, fmt.Errorf("loose object %s: bad header %q", h, head)
	}
	return t, body, nil
}

// testHookScanListed, when set by a test, runs in scan after the pack
// directory is listed.
var testHookScanListed func()

// maxScans bounds the scans of the pack directory for one object. While
// another process consolidates packs, one listing can miss both the new
// pack (created while the directory was read) and the old one (removed
// before it was opened); a read scans again as long as the packs change.
const maxScans = 8

// scan opens the packs of the repository it has not opened yet and closes
// those that are gone (removed by git gc or by consolidation); changed
// reports whether any appeared or went.
func (o *objectStore) scan() (changed bool, err error) {
	o.scanned = true
	names, err := filepath.Glob(filepath.Join(o.dir, "pack", "pack-*.idx"))
	if err != nil {
		return false, err
	}
	if testHookScanListed != nil {
		testHookScanListed()
	}
	present := make(map[string]bool, len(names))
	for _, n := range names {
		present[n] = true
	}
	open := make(map[string]bool, len(o.packs))
	kept := o.packs[:0]
	for _, p := range o.packs {
		if present[p.name] {
			kept = append(kept, p)
			open[p.name] = true
		} else {
			o.closePack(p)
			changed = true
		}
	}
	clear(o.packs[len(kept):])
	o.packs = kept
	for _, idxName := range names {
		if open[idxName] {
			continue
		}
		changed = true
		data, mapped, err := readIndexFile(idxName)
		if err != nil {
			continue // removed by a concurrent gc
		}
		if err := o.add(idxName, data, mapped); err != nil {
			return true, err
		}
	}
	return changed, nil
}

// readIndexFile returns the content of a pack index: mapped (true) when
// it is large — git gc's index of a 20,000-object pack is 600 KB, of which
// a look-up reads a few pages — and read when small (lunad's own packs).
func readIndexFile(name string) ([]byte, bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if fi.Size() >= 64<<10 {
		b, err := mapOpen(f, fi.Size())
		return b, true, err
	}
	b := make([]byte, fi.Size())
	_, err = io.ReadFull(f, b)
	return b, false, err
}

// add opens the pack whose index idxName holds data (mapped: a mapping
// the pack unmaps when it is closed).
func (o *objectStore) add(idxName string, data []byte, mapped bool) error {
	p, err := openPack(idxName, data, mapped)
	if err != nil || p == nil { // nil: removed meanwhile
		if mapped {
			unmapFile(data)
		}
		return err
	}
	o.packs = append(o.packs, p)
	return nil
}

// closePack releases a pack and its cached bases.
func (o *objectStore) closePack(p *pack) {
	o.bases.forget(p)
	p.close()
}

// added registers a pack the writer has just made durable, when the packs
// were scanned already (else the first scan finds it).
func (o *objectStore) added(idxName string, data []byte) {
	if !o.scanned || slices.ContainsFunc(o.packs, func(p *pack) bool { return p.name == idxName }) {
		return
	}
	o.add(idxName, data, false)
}

// stored reports whether a pack the store has open holds h.
func (o *objectStore) stored(h plumbing.Hash) bool {
	if !o.scanned {
		if _, err := o.scan(); err != nil {
			return false
		}
	}
	for _, p := range o.packs {
		if ok, _ := p.idx.Contains(h); ok {
			return true
		}
	}
	return false
}

func (o *objectStore) close() {
	for _, p := range o.packs {
		o.closePack(p)
	}
	o.packs = nil
	o.scanned = false
}

// openIndex reads a version 2 pack index in place; other versions are
// decoded by go-git.
func openIndex(data []byte) (idxfile.Index, error) {
	if len(data) >= 8+256*4 && bytes.Equal(data[:4], []byte{0xff, 't', 'O', 'c'}) && binary.BigEndian.Uint32(data[4:]) == 2 {
		x := &lazyIndex{data: data, count: int(binary.BigEndian.Uint32(data[8+255*4:]))}
		if len(data) >= x.offsetsAt()+x.count*4+40 {
			return x, nil
		}
		return nil, errors.New("truncated")
	}
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		return nil, err
	}
	return idx, nil
}

// lazyIndex implements go-git's idxfile.Index over the bytes of a version
// 2 .idx file: header, 256 fan-out counts, sorted names, CRC32s, 31-bit
// offsets, 64-bit offsets.
type lazyIndex struct {
	data   []byte
	count  int
	mu     sync.Mutex
	byOffs map[int64]plumbing.Hash // reverse look-ups already made
}

func (x *lazyIndex) namesAt() int   { return 8 + 256*4 }
func (x *lazyIndex) crcsAt() int    { return x.namesAt() + x.count*20 }
func (x *lazyIndex) offsetsAt() int { return x.crcsAt() + x.count*4 }

func (x *lazyIndex) fanout(b int) int {
	if b < 0 {
		return 0
	}
	return int(binary.BigEndian.Uint32(x.data[8+b*4:]))
}

// position returns the index of h in the sorted names, or -1.
func (x *lazyIndex) position(h plumbing.Hash) int {
	lo, hi := x.fanout(int(h[0])-1), x.fanout(int(h[0]))
	for lo < hi {
		mid := (lo + hi) / 2
		at := x.namesAt() + mid*20
		switch c := bytes.Compare(x.data[at:at+20], h[:]); {
		case c == 0:
			return mid
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

func (x *lazyIndex) offset(i int) int64 {
	v := binary.BigEndian.Uint32(x.data[x.offsetsAt()+i*4:])
	if v&0x80000000 == 0 {
		return int64(v)
	}
	at := x.offsetsAt() + x.count*4 + int(v&0x7fffffff)*8
	return int64(binary.BigEndian.Uint64(x.data[at:]))
}

func (x *lazyIndex) Contains(h plumbing.Hash) (bool, error) { return x.position(h) >= 0, nil }

func (x *lazyIndex) FindOffset(h plumbing.Hash) (int64, error) {
	if i := x.position(h); i >= 0 {
		return x.offset(i), nil
	}
	return 0, plumbing.ErrObjectNotFound
}

func (x *lazyIndex) FindCRC32(h plumbing.Hash) (uint32, error) {
	if i := x.position(h); i >= 0 {
		return binary.BigEndian.Uint32(x.data[x.crcsAt()+i*4:]), nil
	}
	return 0, plumbing.ErrObjectNotFound
}

// FindHash maps an offset back to its object (delta bases are named by
// offset): a scan of the offset table, remembered.
func (x *lazyIndex) FindHash(o int64) (plumbing.Hash, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if h, ok := x.byOffs[o]; ok {
		return h, nil
	}
	for i := range x.count {
		if x.offset(i) == o {
			var h plumbing.Hash
			copy(h[:], x.data[x.namesAt()+i*20:])
			if x.byOffs == nil {
				x.byOffs = map[int64]plumbing.Hash{}
			}
			x.byOffs[o] = h
			return h, nil
		}
	}
	return plumbing.ZeroHash, plumbing.ErrObjectNotFound
}

func (x *lazyIndex) Count() (int64, error) { return int64(x.count), nil }

var errNoIteration = errors.New("lunad's pack index does not iterate")

func (x *lazyIndex) Entries() (idxfile.EntryIter, error)         { return nil, errNoIteration }
func (x *lazyIndex) EntriesByOffset() (idxfile.EntryIter, error) { return nil, errNoIteration }
