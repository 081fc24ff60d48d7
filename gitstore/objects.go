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
)

// objectWriter writes loose objects durably. Objects are written to a temp
// file and renamed into place without a sync; sync then makes every file
// and directory entry written since the last sync durable at once, so that
// a batch of commits costs one filesystem sync rather than two fsyncs per
// object.
type objectWriter struct {
	dir      string // .git/objects
	unsynced []string
	dirs     map[string]bool
	zw       *zlib.Writer // reused: one writer per store, under its mutex
	buf      bytes.Buffer
	// perFile forces one fsync per file and directory instead of syncfs
	// (set when the filesystem does not support syncfs).
	perFile   bool
	dirHandle *os.File
	syncs     int // rounds of sync made (tests: group commit)
}

func newObjectWriter(gitDir string) *objectWriter {
	return &objectWriter{dir: filepath.Join(gitDir, "objects"), dirs: map[string]bool{}}
}

// write stores content as an object of type t and returns its hash. An object
// that already exists is left alone, unless it is empty or unreadable (a
// crash of another writer can leave such a file), in which case it is
// replaced.
func (w *objectWriter) write(t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, content)
	hex := h.String()
	sub := filepath.Join(w.dir, hex[:2])
	final := filepath.Join(sub, hex[2:])
	if validObject(final, h) {
		return h, nil
	}
	if err := os.Mkdir(sub, 0o755); err == nil {
		w.dirs[w.dir] = true // the new directory entry must reach the disk
	} else if !os.IsExist(err) {
		return h, fmt.Errorf("write object: %w", err)
	}
	w.buf.Reset()
	if w.zw == nil {
		w.zw, _ = zlib.NewWriterLevel(&w.buf, zlib.BestSpeed)
	} else {
		w.zw.Reset(&w.buf)
	}
	fmt.Fprintf(w.zw, "%s %d\x00", t, len(content))
	w.zw.Write(content)
	if err := w.zw.Close(); err != nil {
		return h, err
	}
	tmp, err := os.CreateTemp(sub, "tmp_obj_")
	if err != nil {
		return h, fmt.Errorf("write object: %w", err)
	}
	if _, err := tmp.Write(w.buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return h, fmt.Errorf("write object: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return h, fmt.Errorf("write object: %w", err)
	}
	os.Chmod(tmp.Name(), 0o444)
	if err := os.Rename(tmp.Name(), final); err != nil {
		os.Remove(tmp.Name())
		return h, fmt.Errorf("write object: %w", err)
	}
	w.unsynced = append(w.unsynced, final)
	w.dirs[sub] = true
	return h, nil
}

// sync makes every object written since the last sync durable, together
// with the content of the extra open files given (a ref lock). On Linux one
// syncfs(2) flushes the whole filesystem, data and metadata, which is what
// per-file fsyncs of every object, object directory and lock file would
// achieve, for the cost of one journal commit.
func (w *objectWriter) sync(extra ...*os.File) error {
	w.syncs++
	if !w.perFile {
		if w.dirHandle == nil {
			f, err := os.Open(w.dir)
			if err != nil {
				return fmt.Errorf("sync objects: %w", err)
			}
			w.dirHandle = f
		}
		err := unix.Syncfs(int(w.dirHandle.Fd()))
		if err == nil {
			w.reset()
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
	for _, name := range w.unsynced {
		if err := syncPath(name); err != nil {
			return fmt.Errorf("sync object: %w", err)
		}
	}
	for d := range w.dirs {
		if err := syncPath(d); err != nil {
			return fmt.Errorf("sync object dir: %w", err)
		}
	}
	w.reset()
	return nil
}

// validObject reports whether the loose object file at name holds the object
// h. A file left empty or torn by a crash before its sync is not valid.
func validObject(name string, h plumbing.Hash) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return false
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return false
	}
	i := bytes.IndexByte(raw, 0)
	if i < 0 {
		return false
	}
	var typ string
	var size int
	if _, err := fmt.Sscanf(string(raw[:i]), "%s %d", &typ, &size); err != nil || size != len(raw)-i-1 {
		return false
	}
	t, err := plumbing.ParseObjectType(typ)
	return err == nil && plumbing.ComputeHash(t, raw[i+1:]) == h
}

// reset forgets unsynced objects (after a failed batch; they are unreachable
// and harmless, git gc prunes them).
func (w *objectWriter) reset() {
	w.unsynced = w.unsynced[:0]
	clear(w.dirs)
}

// close releases the directory handle.
func (w *objectWriter) close() {
	if w.dirHandle != nil {
		w.dirHandle.Close()
		w.dirHandle = nil
	}
}

func syncPath(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
