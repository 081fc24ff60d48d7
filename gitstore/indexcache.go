package gitstore

import (
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
type indexCache struct {
	f  *os.File    // the index lunad wrote, open
	st unix.Stat_t // its stat data after the write
	b  []byte      // its content
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
			return c.b, true, nil
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
	b := bytes.Join(chunks, nil)
	f, err := replaceIndex(gitDir, lock, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if err := unix.Fstat(int(f.Fd()), &c.st); err != nil {
		f.Close()
		return nil // the index is written; only the cache is lost
	}
	c.f, c.b = f, b
	return nil
}

// drop forgets the cached index.
func (c *indexCache) drop() {
	if c.f != nil {
		c.f.Close()
	}
	c.f, c.b = nil, nil
}

func sameInode(a, b unix.Stat_t) bool { return a.Dev == b.Dev && a.Ino == b.Ino }
