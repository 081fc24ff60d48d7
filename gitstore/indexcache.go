package gitstore

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// indexCache reads .git/index for the patcher (patchIndex) and writes the
// patched index; it says when the content read is the index lunad wrote
// itself, whose checksum need not be verified (on a 20,000-entry index the
// verification is a SHA-1 over 2 MB, a tenth of a one-shot `lunad edit`'s
// CPU). Callers hold s.mu.
//
// Two ways to know the index is lunad's own. Within a process: the written
// file stays open, so its inode cannot be reused; git and lunad replace
// the index by renaming index.lock over it, never in place, so while
// .git/index is still that inode with the stat data it had after the
// write, it holds what lunad wrote. Across processes (the next `lunad
// edit`): after each write the stamp file (indexStampName in the git
// dir's luna directory) records the new index's device, inode, size,
// modification and change times and its trailing checksum; an index that
// matches all of them is the one lunad wrote (an inode reused by another
// file since is told apart by the checksum, which covers the content).
//
// The index is mapped, not read (mapFile): the content returned by read
// is valid until the next read, write or drop.
type indexCache struct {
	f      *os.File    // the index lunad wrote, open (nil: none yet)
	st     unix.Stat_t // its stat data after the write
	mapped []byte      // the mapping read returned last
	// marks are the states of the SHA-1 of the content read returned
	// last, when trusted, after each markEvery bytes (signIndex).
	marks [][]byte
}

// indexStampName is the stamp file (see indexCache), in <git dir>/luna:
// one line of stat data and checksum (stampLine), then the index's marks
// (signIndex), one a line, in hex.
const indexStampName = "index-stamp"

// read returns the content of .git/index (an empty index when there is
// none); trusted says it is the content lunad wrote, still in place, whose
// checksum need not be verified.
func (c *indexCache) read(gitDir string) (b []byte, trusted bool, err error) {
	name := filepath.Join(gitDir, "index")
	if c.f != nil {
		var held, cur unix.Stat_t
		if unix.Fstat(int(c.f.Fd()), &held) == nil && unix.Lstat(name, &cur) == nil &&
			sameInode(held, cur) && sameStat(held, c.st) {
			if c.mapped == nil {
				if c.mapped, err = mapOpen(c.f, held.Size); err != nil {
					c.drop()
					return nil, false, fmt.Errorf("read git index: %w", err)
				}
			}
			return c.mapped, true, nil
		}
		c.drop()
	}
	unmapFile(c.mapped)
	c.mapped, c.marks = nil, nil
	b, st, err := mapFile(name)
	if err != nil && !os.IsNotExist(err) {
		return nil, false, fmt.Errorf("read git index: %w", err)
	}
	if len(b) == 0 {
		return emptyIndex, false, nil
	}
	c.mapped = b
	c.marks, trusted = stamped(gitDir, st, b)
	return b, trusted, nil
}

// write replaces .git/index with the concatenated chunks, whose marks are
// given, through lock (see lockIndex), keeps the new file open and stamps
// it. The chunks may alias what read returned.
func (c *indexCache) write(gitDir string, lock *os.File, chunks, marks [][]byte) error {
	f, err := replaceIndex(gitDir, lock, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, indexWriteBuffer) // the small chunks are patched entries
		for _, b := range chunks {
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	var sum []byte // the checksum: the last 20 bytes
	for i := len(chunks) - 1; i >= 0 && len(sum) < 20; i-- {
		c := chunks[i]
		sum = append(slices.Clone(c[len(c)-min(len(c), 20-len(sum)):]), sum...)
	}
	c.drop() // after the write: the chunks may alias the mapping
	if err != nil {
		return err
	}
	if err := unix.Fstat(int(f.Fd()), &c.st); err != nil {
		f.Close()
		return nil // the index is written; only the cache is lost
	}
	c.f, c.marks = f, marks
	stamp(gitDir, c.st, sum, marks)
	return nil
}

// drop forgets the cached index and releases its mapping.
func (c *indexCache) drop() {
	if c.f != nil {
		c.f.Close()
	}
	unmapFile(c.mapped)
	c.f, c.mapped, c.marks = nil, nil, nil
}

// indexWriteBuffer is the buffer through which write writes the chunks:
// the unchanged runs of entries, larger than it, go to the file directly.
const indexWriteBuffer = 64 << 10

func sameInode(a, b unix.Stat_t) bool { return a.Dev == b.Dev && a.Ino == b.Ino }

// sameStat reports whether a and b are the same inode with the same size
// and times.
func sameStat(a, b unix.Stat_t) bool {
	return sameInode(a, b) && a.Size == b.Size && a.Mtim == b.Mtim && a.Ctim == b.Ctim
}

// stampLine is the stamp of an index: its stat data and its checksum.
func stampLine(st unix.Stat_t, sum []byte) string {
	return fmt.Sprintf("%d %d %d %d.%09d %d.%09d %x\n", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec, sum)
}

// stamp records the index lunad has just written (stat data st, checksum
// sum, marks) for the next process. It is a cache: on failure the next
// process verifies the index instead. The file is overwritten in place
// (a truncation made ext4 flush it on close, a percent of a one-shot
// edit): its last line, a CRC32 of the rest, tells a torn stamp.
func stamp(gitDir string, st unix.Stat_t, sum []byte, marks [][]byte) {
	name := filepath.Join(gitDir, "luna", indexStampName)
	b := []byte(stampLine(st, sum))
	for _, m := range marks {
		b = append(hex.AppendEncode(b, m), '\n')
	}
	b = fmt.Appendf(b, "crc %08x\n", crc32.ChecksumIEEE(b))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o644)
	if err == nil {
		var fi os.FileInfo
		if _, err = f.WriteAt(b, 0); err == nil {
			if fi, err = f.Stat(); err == nil && fi.Size() > int64(len(b)) {
				err = f.Truncate(int64(len(b)))
			}
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		os.Remove(name)
	}
}

// stamped reports whether the index with stat data st and content b is
// the one the stamp records, and returns its marks (nil when they do not
// decode: they only save work).
func stamped(gitDir string, st unix.Stat_t, b []byte) ([][]byte, bool) {
	if len(b) < 20 {
		return nil, false
	}
	data, err := os.ReadFile(filepath.Join(gitDir, "luna", indexStampName))
	body, crc, ok := cutCRC(data)
	line, rest, _ := bytes.Cut(body, []byte("\n"))
	if err != nil || !ok || crc != crc32.ChecksumIEEE(body) || string(line)+"\n" != stampLine(st, b[len(b)-20:]) {
		return nil, false
	}
	var marks [][]byte
	for l := range bytes.Lines(rest) {
		m, err := hex.AppendDecode(nil, bytes.TrimSuffix(l, []byte("\n")))
		if err != nil {
			return nil, true
		}
		marks = append(marks, m)
	}
	return marks, true
}

// cutCRC splits a stamp into what its last line ("crc XXXXXXXX") covers
// and the CRC32 it gives.
func cutCRC(data []byte) ([]byte, uint32, bool) {
	const n = len("crc 00000000\n")
	if len(data) < n || !bytes.HasPrefix(data[len(data)-n:], []byte("crc ")) || data[len(data)-1] != '\n' {
		return nil, 0, false
	}
	v, err := strconv.ParseUint(string(data[len(data)-n+4:len(data)-1]), 16, 32)
	return data[:len(data)-n], uint32(v), err == nil
}
