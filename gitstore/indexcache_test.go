package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/lunad/lunad"
)

// TestIndexCacheWriteDoesNotCopy: write streams the patched chunks to the
// lock file instead of joining them into a new buffer (an index of the
// 10,000-artifact workspace is 2 MB: joining it was a sixth of a one-shot
// edit's page faults), and the next read still returns the written bytes,
// trusted.
func TestIndexCacheWriteDoesNotCopy(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB
	tests := []struct {
		name   string
		chunks [][]byte
	}{
		{"one chunk", [][]byte{big}},
		{"runs around a patched entry", [][]byte{big[:1<<20], []byte("patched entry"), big[1<<20:]}},
		{"many small chunks", func() [][]byte {
			var cs [][]byte
			for i := 0; i < len(big); i += 1000 {
				cs = append(cs, big[i:min(i+1000, len(big))])
			}
			return cs
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gitDir := t.TempDir()
			lock, err := lockIndex(gitDir)
			if err != nil {
				t.Fatal(err)
			}
			var c indexCache
			defer c.drop()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if err := c.write(gitDir, lock, tt.chunks, nil); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
				t.Errorf("write allocated %d bytes for a %d-byte index, want ≤ 256 KiB (no copy)", n, len(big))
			}
			want := bytes.Join(tt.chunks, nil)
			got, err := os.ReadFile(filepath.Join(gitDir, "index"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf(".git/index has %d bytes, want the %d written", len(got), len(want))
			}
			b, trusted, err := c.read(gitDir)
			if err != nil || !trusted || !bytes.Equal(b, want) {
				t.Fatalf("read after write = %d bytes, trusted %v, err %v; want the written bytes, trusted", len(b), trusted, err)
			}
			if b2, _, _ := c.read(gitDir); &b2[0] != &b[0] {
				t.Error("a second read joined the chunks again")
			}
		})
	}
}

// TestIndexTrustedAcrossProcesses: the index a store wrote is trusted by
// the next process (its checksum not verified) while it is exactly that
// file — same inode, size, times and checksum as the stamp records — and
// verified again once anything says otherwise.
func TestIndexTrustedAcrossProcesses(t *testing.T) {
	tests := []struct {
		name    string
		change  func(t *testing.T, root, gitDir string)
		trusted bool
	}{
		{"as lunad left it", func(*testing.T, string, string) {}, true},
		{"rewritten by git", func(t *testing.T, root, _ string) { git(t, root, "read-tree", "HEAD") }, false},
		{"modified in place", func(t *testing.T, _, gitDir string) {
			earlier := time.Now().Add(-time.Hour)
			if err := os.Chtimes(filepath.Join(gitDir, "index"), earlier, earlier); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"stamp of another content (a reused inode)", func(t *testing.T, _, gitDir string) {
			name := filepath.Join(gitDir, "luna", indexStampName)
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			b[bytes.IndexByte(b, '\n')-1] ^= 1 // a hex digit of the checksum
			body, _, _ := cutCRC(b)
			os.WriteFile(name, fmt.Appendf(body, "crc %08x\n", crc32.ChecksumIEEE(body)), 0o644)
		}, false},
		{"stamp torn", func(t *testing.T, _, gitDir string) {
			os.Truncate(filepath.Join(gitDir, "luna", indexStampName), 10)
		}, false},
		{"a mark the CRC does not cover (a torn overwrite)", func(t *testing.T, _, gitDir string) {
			name := filepath.Join(gitDir, "luna", indexStampName)
			b, _ := os.ReadFile(name)
			body, _, ok := cutCRC(b)
			if !ok {
				t.Fatalf("stamp without its CRC line: %q", b)
			}
			os.WriteFile(name, append(append(body, "00\n"...), b[len(body):]...), 0o644)
		}, false},
		{"no stamp", func(t *testing.T, _, gitDir string) { os.Remove(filepath.Join(gitDir, "luna", indexStampName)) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			ctx := context.Background()
			if _, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("a\n")}); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			tt.change(t, s.root, s.gitDir)
			var c indexCache // the next process's
			defer c.drop()
			b, trusted, err := c.read(s.gitDir)
			if err != nil {
				t.Fatal(err)
			}
			if trusted != tt.trusted {
				t.Fatalf("trusted = %v, want %v", trusted, tt.trusted)
			}
			want, _ := os.ReadFile(filepath.Join(s.gitDir, "index"))
			if !bytes.Equal(b, want) {
				t.Fatal("read returned other bytes than .git/index holds")
			}
		})
	}
}

// TestIndexUnchangedIsNotWritten: when every entry already is what the
// sync would write, .git/index is left alone (same inode, no lock left).
func TestIndexUnchangedIsNotWritten(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeFile(t, dir, "a.txt", "a\n")
	writeFile(t, dir, "b.txt", "b\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "x")
	gitDir := filepath.Join(dir, ".git")
	entry := func(name string) []byte {
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(dir, name), &st); err != nil {
			t.Fatal(err)
		}
		h := plumbing.NewHash(strings.TrimSpace(git(t, dir, "rev-parse", "HEAD:"+name)))
		return newIndexEntry(name, h, modeFile, &st)
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		edits []indexEdit
		write bool
	}{
		{"the entries git wrote", []indexEdit{{"a.txt", entry("a.txt")}, {"b.txt", entry("b.txt")}}, false},
		{"removing an absent path", []indexEdit{{path: "c.txt"}}, false},
		{"one entry of two changed", []indexEdit{{"a.txt", entry("a.txt")}, {"b.txt", newIndexEntry("b.txt", plumbing.ZeroHash, modeFile, nil)}}, true},
		{"an entry removed", []indexEdit{{path: "a.txt"}}, true},
		{"an entry added", []indexEdit{{"c.txt", newIndexEntry("c.txt", plumbing.ZeroHash, modeFile, nil)}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, err := patchIndex(b, tt.edits, false)
			if err != nil || (chunks != nil) != tt.write {
				t.Fatalf("patchIndex = %d chunks, %v; want a write: %v", len(chunks), err, tt.write)
			}
		})
	}
	t.Run("the store leaves the file", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Create(context.Background(), lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("a\n")}); err != nil {
			t.Fatal(err)
		}
		checkRepo(t, s) // syncs the index
		name := filepath.Join(s.gitDir, "index")
		before, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		var st syscall.Stat_t
		syscall.Lstat(filepath.Join(s.root, "a.md"), &st)
		s.mu.Lock()
		_, _, root, _ := s.current()
		head, _ := s.lookup(root, "a.md")
		err = s.updateIndex([]indexUpdate{{path: "a.md", head: head, stat: &st}}, false)
		s.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		after, _ := os.Stat(name)
		if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
			t.Error(".git/index was rewritten with the same entries")
		}
		if _, err := os.Stat(name + ".lock"); !os.IsNotExist(err) {
			t.Errorf("index.lock left behind: %v", err)
		}
	})
}

// TestPatchMappedTruncated: an index truncated under its mapping (a program
// rewriting it in place) makes the patch fail with errFault, not crash the
// process with SIGBUS.
func TestPatchMappedTruncated(t *testing.T) {
	gitDir := t.TempDir()
	name := filepath.Join(gitDir, "index")
	// A valid header over 1 MiB of entries' worth of bytes.
	b := append([]byte("DIRC\x00\x00\x00\x02\x00\x01\x00\x00"), make([]byte, 1<<20)...)
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var c indexCache
	defer c.drop()
	m, _, err := c.read(gitDir)
	if err != nil || len(m) != len(b) {
		t.Fatalf("read: %d bytes, %v", len(m), err)
	}
	if err := os.Truncate(name, 4096); err != nil {
		t.Fatal(err)
	}
	if _, _, err := patchMapped(m, []indexEdit{{path: "a"}}, false, nil); !errors.Is(err, errFault) {
		t.Fatalf("err = %v, want errFault", err)
	}
}

// TestIndexPatchedTwiceAcrossProcesses: a second process patches the index
// the first one wrote, resuming its checksum from the stamp's marks, and
// git accepts the result (`git fsck` verifies the index's checksum).
func TestIndexPatchedTwiceAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	one := strings.TrimSpace(gitIn(t, dir, "one\n", "hash-object", "-w", "--stdin"))
	var info strings.Builder
	for i := range 2000 { // an index of ~160 KB: two marks
		fmt.Fprintf(&info, "100644 %s\td%02d/f%04d.txt\n", one, i%50, i)
	}
	gitIn(t, dir, info.String(), "update-index", "--index-info")
	gitDir := filepath.Join(dir, ".git")
	os.MkdirAll(filepath.Join(gitDir, "luna"), 0o755)
	blob := plumbing.NewHash(strings.TrimSpace(gitIn(t, dir, "edited\n", "hash-object", "-w", "--stdin")))
	patch := func(path string) (trusted bool, marks int) {
		var c indexCache // one process's
		defer c.drop()
		lock, err := lockIndex(gitDir)
		if err != nil {
			t.Fatal(err)
		}
		b, trusted, err := c.read(gitDir)
		if err != nil {
			t.Fatal(err)
		}
		marks = len(c.marks)
		chunks, newMarks, err := patchMapped(b, []indexEdit{{path, newIndexEntry(path, blob, modeFile, nil)}}, trusted, c.marks)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.write(gitDir, lock, chunks, newMarks); err != nil {
			t.Fatal(err)
		}
		return trusted, marks
	}
	if trusted, _ := patch("d01/f0001.txt"); trusted {
		t.Fatal("git's index trusted")
	}
	// The hash resumes from the marks: marks of another content, given
	// for a change past them, make another checksum.
	var c indexCache
	b, _, err := c.read(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	edit := []indexEdit{{"d48/f1998.txt", newIndexEntry("d48/f1998.txt", blob, modeFile, nil)}}
	right, _, _ := patchMapped(b, edit, true, nil)
	_, other := signIndex([][]byte{bytes.Repeat([]byte("x"), len(b))}, 0, nil)
	wrong, _, _ := patchMapped(b, edit, true, other)
	if bytes.Equal(right[len(right)-1], wrong[len(wrong)-1]) {
		t.Fatal("the checksum did not resume from the marks given")
	}
	c.drop()
	if trusted, marks := patch("d48/f1998.txt"); !trusted || marks < 2 {
		t.Fatalf("lunad's index: trusted %v with %d marks; want trusted, with marks", trusted, marks)
	}
	git(t, dir, "fsck", "--strict", "--no-progress")
	for _, p := range []string{"d01/f0001.txt", "d48/f1998.txt"} {
		if got := git(t, dir, "ls-files", "-s", p); !strings.Contains(got, blob.String()) {
			t.Errorf("%s: %q, want blob %s", p, got, blob)
		}
	}
}
