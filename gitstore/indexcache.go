package gitstore

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// indexCache keeps the .git/index lunad wrote last, so that the next patch
// (one per batch when the daemon runs, see Store.finish) neither reads the
// file again nor verifies its checksum: on a 20,000-entry index that is
// half of the cost. The written file stays open, so its inode cannot be
// reused: git and lunad replace the index by renaming index.lock over it,
// never in place, so while .git/index is still that inode with the stat
// data it had after the write, it holds these bytes. Callers hold s.mu.
//
// The content is kept as the chunks it was written from and joined at the
// next read: a one-shot process (`lunad edit` without a daemon) writes the
// index once and exits, and joining a 2 MB index into a new buffer at each
// write was a sixth of such a process's page faults.
type indexCache struct {
	f      *os.File    // the index lunad wrote, open
	st     unix.Stat_t // its stat data after the write
	chunks [][]byte    // its content, as written
}

// read returns the content of .git/index (an empty index when there is
// none); trusted says it is the content lunad wrote, still in place, whose
// checksum need not be verified.
func (c *indexCache) read(gitDir string) (b []byte, trusted bool, err error) {
	name := filepath.Join(gitDir, "index")
	if c.f != nil {
		var held, cur unix.Stat_t
		if unix.Fstat(int(c.f.Fd()), &held) == nil && unix.Lstat(name, &cur) == nil &&
			sameInode(held, cur) && sameInode(held, c.st) && held.Size == c.st.Size &&
			held.Mtim == c.st.Mtim && held.Ctim == c.st.Ctim {
			if len(c.chunks) != 1 {
				c.chunks = [][]byte{bytes.Join(c.chunks, nil)}
			}
			return c.chunks[0], true, nil
		}
		c.drop()
	}
	b, err = os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		return nil, false, fmt.Errorf("read git index: %w", err)
	}
	if len(b) == 0 {
		b = emptyIndex
	}
	return b, false, nil
}

// write replaces .git/index with the concatenated chunks, through lock
// (see lockIndex), and keeps them.
func (c *indexCache) write(gitDir string, lock *os.File, chunks [][]byte) error {
	c.drop()
	f, err := replaceIndex(gitDir, lock, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, indexWriteBuffer) // the small chunks are patched entries
		for _, b := range chunks {
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	if err := unix.Fstat(int(f.Fd()), &c.st); err != nil {
		f.Close()
		return nil // the index is written; only the cache is lost
	}
	c.f, c.chunks = f, chunks
	return nil
}

// indexWriteBuffer is the buffer through which write writes the chunks:
// the unchanged runs of entries, larger than it, go to the file directly.
const indexWriteBuffer = 64 << 10

// drop forgets the cached index.
func (c *indexCache) drop() {
	if c.f != nil {
		c.f.Close()
	}
	c.f, c.chunks = nil, nil
}

func sameInode(a, b unix.Stat_t) bool { return a.Dev == b.Dev && a.Ino == b.Ino }
