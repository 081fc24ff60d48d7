package gitstore

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/lunad/lunad/internal/atomicfile"
)

// objectWriter writes the objects of a batch durably, as one pack. Objects
// are kept in memory (and read from there, see objectStore.pending) until
// sync, which writes them all as one pack file and its index to temp files,
// makes them durable, renames the pack into objects/pack and then its index
// (git and lunad find packs by their index, so a pack is never visible
// before it is whole) and fsyncs the directory: two new files per batch
// instead of one per object, which on a disk where creating a file costs a
// millisecond was most of a write's cost. The caller moves its refs after
// sync returns; a crash before that leaves an unreferenced pack, which `git
// gc` removes. The objects of a batch that fails stay queued for the next
// sync, as its loose objects stayed on disk before: an operation run again
// may reuse a hash it computed before without writing the object again
// (the tree cache), and unreachable objects are harmless.
type objectWriter struct {
	dir     string // .git/objects
	pending []packObject
	byHash  map[plumbing.Hash]int // index in pending
	// stored reports objects already in a pack (the reader's packs);
	// added hands the reader a pack sync wrote.
	stored func(plumbing.Hash) bool
	added  func(idxName string, idx []byte)
	zw     *zlib.Writer // reused: one writer per store, under its mutex
	// perFile forces one fsync per file instead of syncfs (set when the
	// filesystem does not support syncfs).
	perFile   bool
	dirHandle *os.File
	syncs     int // rounds of sync made (tests: group commit)
	packs     int // packs written (tests)
}

func newObjectWriter(gitDir string) *objectWriter {
	return &objectWriter{dir: filepath.Join(gitDir, "objects"), byHash: map[plumbing.Hash]int{}}
}

// write queues content as an object of type t for the next sync and
// returns its hash. An object already in a pack the store has open, or
// already queued, is not written again. Loose objects are not looked for:
// lunad writes none, so for the new objects of every write the look-up
// was a failed open per object (a third of a stage's system calls), and
// writing again an object git wrote loose costs a few bytes of its pack.
func (w *objectWriter) write(t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, content)
	if _, ok := w.byHash[h]; ok {
		return h, nil
	}
	if w.stored != nil && w.stored(h) {
		return h, nil
	}
	w.byHash[h] = len(w.pending)
	w.pending = append(w.pending, packObject{hash: h, typ: t, content: bytes.Clone(content)})
	return h, nil
}

// pendingObject returns an object written since the last sync.
func (w *objectWriter) pendingObject(h plumbing.Hash) (plumbing.ObjectType, []byte, bool) {
	i, ok := w.byHash[h]
	if !ok {
		return 0, nil, false
	}
	return w.pending[i].typ, w.pending[i].content, true
}

// sync makes every object written since the last sync durable, as one
// pack, together with the content of the extra open files given (ref
// locks). On Linux one syncfs(2) flushes the temp files and the locks at
// once, for the cost of one journal commit; the renames are then made
// durable by an fsync of the pack directory.
func (w *objectWriter) sync(extra ...*os.File) error {
	w.syncs++
	if len(w.pending) == 0 {
		return w.flush(nil, extra)
	}
	idxName, idx, err := w.writePack(w.pending, extra)
	if err != nil {
		return err
	}
	w.packs++
	w.pending = w.pending[:0]
	clear(w.byHash)
	if w.added != nil {
		w.added(idxName, idx)
	}
	return nil
}

// testHookPackRenamed, when set by a test, runs in writePack between the
// rename of the pack and that of its index.
var testHookPackRenamed func(idxName string)

// writePack writes objects as one pack and its index durably: temp files,
// flushed with the extra open files given, renamed into objects/pack, the
// directory fsynced. It returns the index's path and bytes.
//
// The pack is renamed first and its index last, as git does
// (finish_tmp_packfile and repack rename .pack, .rev, then .idx): readers
// — git, go-git, this package's scan — find packs by their index, so a
// pack never shows without its data, and a pack without its index is
// invisible (git fsck --strict passes; count-objects -v counts it as
// garbage). No fsync of the directory between the two renames: should a
// crash keep the index's rename and lose the pack's, every reader skips
// an index whose pack is missing (git's add_packed_git, openPack) and no
// ref names its objects yet — refs move only after the directory fsync
// below —, and orphanPacks removes what is left either way.
func (w *objectWriter) writePack(objects []packObject, extra []*os.File) (string, []byte, error) {
	packDir := filepath.Join(w.dir, "pack")
	if err := os.Mkdir(packDir, 0o755); err != nil && !os.IsExist(err) {
		return "", nil, fmt.Errorf("write pack: %w", err)
	} else if err == nil {
		if err := atomicfile.Sync(w.dir); err != nil {
			return "", nil, fmt.Errorf("write pack: %w", err)
		}
	}
	if w.zw == nil {
		w.zw, _ = zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
	}
	pack, idx, sum := encodePack(objects, w.zw)
	base := filepath.Join(packDir, "pack-"+sum.String())
	tmpPack, err := writeTemp(packDir, "tmp_pack_", pack)
	if err != nil {
		return "", nil, fmt.Errorf("write pack: %w", err)
	}
	tmpIdx, err := writeTemp(packDir, "tmp_idx_", idx)
	if err != nil {
		os.Remove(tmpPack)
		return "", nil, fmt.Errorf("write pack: %w", err)
	}
	if err := w.flush([]string{tmpPack, tmpIdx}, extra); err != nil {
		os.Remove(tmpPack)
		os.Remove(tmpIdx)
		return "", nil, err
	}
	if err := os.Rename(tmpPack, base+".pack"); err != nil {
		os.Remove(tmpPack)
		os.Remove(tmpIdx)
		return "", nil, fmt.Errorf("write pack: %w", err)
	}
	if testHookPackRenamed != nil {
		testHookPackRenamed(base + ".idx")
	}
	if err := os.Rename(tmpIdx, base+".idx"); err != nil {
		os.Remove(tmpIdx)
		return "", nil, fmt.Errorf("write pack: %w", err)
	}
	// Makes the pack's and the index's names durable before any ref
	// names their objects: the caller's ref rename follows, and without
	// this fsync its directory could reach the disk first. No other flush
	// stands between the two renames; the syncfs above came before them.
	if err := atomicfile.Sync(packDir); err != nil {
		return "", nil, fmt.Errorf("write pack: %w", err)
	}
	return base + ".idx", idx, nil
}

// flush makes the files named and the open files given durable: one
// syncfs, or an fsync of each where syncfs is not supported.
func (w *objectWriter) flush(names []string, extra []*os.File) error {
	if !w.perFile {
		if w.dirHandle == nil {
			f, err := os.Open(w.dir)
			if err != nil {
				return fmt.Errorf("sync objects: %w", err)
			}
			w.dirHandle = f
		}
		// Makes durable the data of the temp files and of the ref locks
		// given, and every metadata change of the file system made
		// before it: the renames a deferred run append or stage commit
		// left without their directory's fsync among them.
		err := unix.Syncfs(int(w.dirHandle.Fd()))
		if err == nil {
			return nil
		}
		if err != unix.ENOSYS && err != unix.EOPNOTSUPP {
			return fmt.Errorf("sync objects: %w", err)
		}
		w.perFile = true
	}
	for _, f := range extra {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
	}
	for _, name := range names {
		if err := atomicfile.Sync(name); err != nil {
			return fmt.Errorf("sync pack: %w", err)
		}
	}
	return nil
}

// writeTemp writes data to a new temp file in dir, read-only as git's
// objects are, and returns its name.
func writeTemp(dir, prefix string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, prefix)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// close releases the directory handle.
func (w *objectWriter) close() {
	if w.dirHandle != nil {
		w.dirHandle.Close()
		w.dirHandle = nil
	}
}
