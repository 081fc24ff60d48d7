package gitstore

import (
	"cmp"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/lunad/lunad/internal/atomicfile"
)

// Every durable write adds a small pack; reading an object that is in
// none of the first packs costs a look-up in each, so the small packs are
// consolidated: when more than consolidateAt packs under smallPack bytes
// exist, the objects of the smallest of them (tier) are written (whole,
// once each) as one pack, made durable like any other, and only then are
// the old packs removed. A consolidated pack is merged again once as many
// bytes were written after it, so packs form levels of doubling size until
// one is no longer small, and the next ones start over: the count of packs
// stays near the repository's size over smallPack, plus consolidateAt,
// plus the levels (at most log2 of smallPack over a write's pack). Packs git made (git gc, fetch) take part
// only while small, and a pack kept by a .keep file never does.
//
// A write that finds too many small packs starts it in the background
// (Close waits for it); it holds the store's mutex while it reads the
// small packs and writes the new one, not while it removes the old. Two
// processes consolidating at once are safe:
// each removes only packs whose every object it read and made durable in
// its own new pack; a pack it could not read (removed by the other) stops
// it before it removes anything.
const (
	consolidateAt = 32
	smallPack     = 1 << 20
)

// maybeConsolidate starts consolidating the small packs, in the
// background, when there are too many and no consolidation is running.
// Callers hold s.mu.
func (s *Store) maybeConsolidate() {
	if s.consolidating || s.closed || s.objects.smallPacks() <= consolidateAt {
		return
	}
	s.consolidating = true
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		if err := s.consolidate(); err != nil {
			s.opts.Logger.Warn("consolidating packs failed; they stay as they are", "err", err)
		}
	}()
}

// consolidate runs consolidatePacks under the store's mutex, then removes
// the packs it replaced without it: a write waits for the new pack, not
// for the unlinks (a millisecond each on a slow disk).
func (s *Store) consolidate() error {
	s.mu.Lock()
	if s.closed {
		s.consolidating = false
		s.mu.Unlock()
		return nil
	}
	old, err := s.consolidatePacks()
	s.consolidating = false
	s.mu.Unlock()
	if err != nil || len(old) == 0 {
		return err
	}
	return removePacks(old)
}

// smallPacks counts the open packs under smallPack bytes.
func (o *objectStore) smallPacks() int {
	n := 0
	for _, p := range o.packs {
		if p.size < smallPack {
			n++
		}
	}
	return n
}

// consolidatePacks writes the objects of every small pack as one pack,
// made durable, stops reading the small ones and returns their index
// files, for removePacks. Callers hold s.mu.
func (s *Store) consolidatePacks() ([]string, error) {
	if _, err := s.objects.scan(); err != nil {
		return nil, err
	}
	var small []*pack
	for _, p := range s.objects.packs {
		base := strings.TrimSuffix(p.name, ".idx")
		if _, err := os.Stat(base + ".keep"); p.size < smallPack && os.IsNotExist(err) {
			small = append(small, p)
		}
	}
	old := tier(small)
	if len(old) < 2 {
		return nil, nil
	}
	var objects []packObject
	seen := map[plumbing.Hash]bool{}
	for _, p := range old {
		hashes, err := packHashes(p.idx)
		if err != nil {
			return nil, fmt.Errorf("consolidate %s: %w", p.name, err)
		}
		ends, err := entryEnds(p, hashes)
		if err != nil {
			return nil, fmt.Errorf("consolidate %s: %w", p.name, err)
		}
		for _, h := range hashes {
			if seen[h] {
				continue
			}
			seen[h] = true
			off, _ := p.idx.FindOffset(h)
			if raw, crc, ok := p.rawEntry(h, off, ends[off]); ok {
				objects = append(objects, packObject{hash: h, raw: raw, crc: crc})
				continue
			}
			typ, b, err := s.objects.readPacked(p, off, 0)
			if err != nil {
				return nil, fmt.Errorf("consolidate %s: read %s: %w", p.name, h, err)
			}
			objects = append(objects, packObject{hash: h, typ: typ, content: b})
		}
	}
	idxName, idx, err := s.objs.writePack(objects, nil)
	if err != nil {
		return nil, fmt.Errorf("consolidate: %w", err)
	}
	s.objects.added(idxName, idx)
	names := orphanPacks(filepath.Dir(idxName), s.opts.Clock())
	kept := s.objects.packs[:0]
	for _, p := range s.objects.packs {
		if p.name != idxName && slices.Contains(old, p) {
			s.objects.closePack(p)
			names = append(names, p.name)
		} else {
			kept = append(kept, p)
		}
	}
	clear(s.objects.packs[len(kept):])
	s.objects.packs = kept
	return names, nil
}

// mergeAtLeast is how many of the smallest packs a consolidation always
// merges, whatever their sizes: each one then lowers the count of packs.
const mergeAtLeast = consolidateAt / 2

// tier chooses the packs to consolidate among the small ones: the
// mergeAtLeast smallest, then, from the smallest up, each pack no larger
// than all those chosen before it together. A pack that earlier
// consolidations made is so merged again only once as many bytes have
// been written after it as it holds, as the levels of a log-structured
// merge: every object is copied a logarithmic number of times, where
// merging every small pack each time copied the growing consolidated pack
// (up to smallPack bytes) every consolidateAt writes, under the store's
// mutex that the writes wait for.
func tier(small []*pack) []*pack {
	sorted := slices.Clone(small)
	slices.SortStableFunc(sorted, func(a, b *pack) int { return cmp.Compare(a.size, b.size) })
	var total int64
	for i, p := range sorted {
		if i >= mergeAtLeast && p.size > total {
			return sorted[:i]
		}
		total += p.size
	}
	return sorted
}

// entryEnds maps the offset of each entry of p (the objects hashes) to
// where the entry ends: the next entry's offset, or the trailing checksum.
func entryEnds(p *pack, hashes []plumbing.Hash) (map[int64]int64, error) {
	if err := p.load(); err != nil {
		return nil, err
	}
	offs := make([]int64, 0, len(hashes))
	for _, h := range hashes {
		off, err := p.idx.FindOffset(h)
		if err != nil {
			return nil, fmt.Errorf("offset of %s: %w", h, err)
		}
		offs = append(offs, off)
	}
	slices.Sort(offs)
	ends := make(map[int64]int64, len(offs))
	for i, off := range offs {
		ends[off] = p.size - 20
		if i+1 < len(offs) {
			ends[off] = offs[i+1]
		}
	}
	return ends, nil
}

// rawEntry returns the bytes of a whole object's entry in p, between off
// and end, to be copied into another pack as they are (no inflating and
// deflating again), with their CRC32, when the index's CRC32 vouches for
// them; false for a delta (its base offset would change) or a mismatch.
func (p *pack) rawEntry(h plumbing.Hash, off, end int64) ([]byte, uint32, bool) {
	e, err := p.entryAt(off)
	if err != nil || e.typ == packOfsDelta || e.typ == packRefDelta || end <= e.data || end > p.size-20 {
		return nil, 0, false
	}
	want, err := p.idx.FindCRC32(h)
	if err != nil {
		return nil, 0, false
	}
	raw, err := p.readAt(off, end)
	if err != nil || crc32.ChecksumIEEE(raw) != want {
		return nil, 0, false
	}
	return raw, want, true
}

// orphanPacks lists (by their index's name) the packs in dir whose pack
// or index is missing and that are older than a minute: what a crash
// between a pack's rename and its index's leaves (or, the renames not yet
// durable, an index whose pack's rename was lost), or a crash between the
// removal of an index and of its pack. git ignores them, but go-git's
// storage fails every read from a pack when one pack has no index, and
// git count-objects -v reports each as garbage.
func orphanPacks(dir string, now time.Time) []string {
	var out []string
	for _, ext := range []string{".pack", ".idx"} {
		files, _ := filepath.Glob(filepath.Join(dir, "pack-*"+ext))
		for _, f := range files {
			base := strings.TrimSuffix(f, ext)
			other := base + ".idx"
			if ext == ".idx" {
				other = base + ".pack"
			}
			if _, err := os.Stat(other); !os.IsNotExist(err) {
				continue
			}
			if fi, err := os.Stat(f); err == nil && now.Sub(fi.ModTime()) > time.Minute {
				out = append(out, base+".idx")
			}
		}
	}
	slices.Sort(out)
	return out
}

// testHookIndexRemoved, when set by a test, runs in removePacks between
// the removal of an index and that of its pack.
var testHookIndexRemoved func(idxName string)

// removePacks removes the packs of the index files named, once their
// objects are durable in another pack: each index before its pack — the
// reverse of writePack's order, so that no reader finds an index whose
// pack is gone —, then the directory is fsynced.
func removePacks(idxNames []string) error {
	for _, name := range idxNames {
		base := strings.TrimSuffix(name, ".idx")
		if err := os.Remove(name); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("consolidate: %w", err)
		}
		if testHookIndexRemoved != nil {
			testHookIndexRemoved(name)
		}
		for _, ext := range []string{".rev", ".bitmap", ".pack"} {
			if err := os.Remove(base + ext); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("consolidate: %w", err)
			}
		}
	}
	if err := atomicfile.Sync(filepath.Dir(idxNames[0])); err != nil {
		return fmt.Errorf("consolidate: %w", err)
	}
	return nil
}

// packHashes lists the objects of a pack index.
func packHashes(idx idxfile.Index) ([]plumbing.Hash, error) {
	if x, ok := idx.(*lazyIndex); ok {
		out := make([]plumbing.Hash, x.count)
		for i := range out {
			copy(out[i][:], x.data[x.namesAt()+i*20:])
		}
		return out, nil
	}
	it, err := idx.Entries()
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []plumbing.Hash
	for {
		e, err := it.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e.Hash)
	}
}
