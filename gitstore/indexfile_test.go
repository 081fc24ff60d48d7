package gitstore

import (
	"bytes"
	"crypto/sha1"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestPatchIndex checks the byte-level index patcher against git's own
// reading of the result: replaced, inserted, removed and conflicted
// (multi-stage) entries, an index with extensions, and the empty index.
func TestPatchIndex(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	for _, f := range []string{"a.txt", "b/c.txt", "d.txt", "m.txt"} {
		writeFile(t, dir, f, f+"\n")
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "x") // leaves a TREE extension
	blob := func(content string) plumbing.Hash {
		return plumbing.NewHash(strings.TrimSpace(gitIn(t, dir, content, "hash-object", "-w", "--stdin")))
	}
	hm := blob("m\n")
	// Make m.txt conflicted: stages 1, 2 and 3.
	gitIn(t, dir, "0 0000000000000000000000000000000000000000\tm.txt\n"+
		"100644 "+hm.String()+" 1\tm.txt\n100644 "+hm.String()+" 2\tm.txt\n100644 "+hm.String()+" 3\tm.txt\n",
		"update-index", "--index-info")
	hNew, hAdd := blob("new a\n"), blob("added\n")
	edits := []indexEdit{
		{path: "a.txt", entry: newIndexEntry("a.txt", hNew, modeFile, nil)},
		{path: "b/a.txt", entry: newIndexEntry("b/a.txt", hAdd, modeExec, nil)},
		{path: "d.txt"},
		{path: "m.txt", entry: newIndexEntry("m.txt", hm, modeFile, nil)},
		{path: "z/last.txt", entry: newIndexEntry("z/last.txt", hAdd, modeFile, nil)},
	}
	index := filepath.Join(dir, ".git", "index")
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := patchIndex(b, edits, false)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(index)
	writeIndexChunks(t, filepath.Join(dir, ".git"), chunks)
	got := git(t, dir, "ls-files", "-s")
	want := "100644 " + hNew.String() + " 0\ta.txt\n" +
		"100755 " + hAdd.String() + " 0\tb/a.txt\n" +
		"100644 " + blob("b/c.txt\n").String() + " 0\tb/c.txt\n" +
		"100644 " + hm.String() + " 0\tm.txt\n" +
		"100644 " + hAdd.String() + " 0\tz/last.txt\n"
	if got != want {
		t.Fatalf("git ls-files -s:\n%s\nwant:\n%s", got, want)
	}
	// git accepts the file (checksum, order) and can write a tree from it.
	git(t, dir, "write-tree")

	// The empty index takes insertions.
	chunks, err = patchIndex(emptyIndex, edits[:1], false)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(index)
	writeIndexChunks(t, filepath.Join(dir, ".git"), chunks)
	if got := git(t, dir, "ls-files", "-s"); got != "100644 "+hNew.String()+" 0\ta.txt\n" {
		t.Fatalf("from empty: %q", got)
	}
	// A damaged index is not patched.
	b[len(b)-1] ^= 1
	if _, err := patchIndex(b, edits, false); err == nil {
		t.Fatal("patched an index with a bad checksum")
	}
}

// gitIn runs git with stdin.
func gitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

// writeIndexChunks writes a patched index as .git/index.
func writeIndexChunks(t *testing.T, gitDir string, chunks [][]byte) {
	t.Helper()
	lock, err := lockIndex(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := replaceIndex(gitDir, lock, func(w io.Writer) error {
		_, err := w.Write(bytes.Join(chunks, nil))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestSignIndexResumes: the checksum resumed from the marks of an earlier
// content equals the SHA-1 of the whole new content, wherever the first
// change is, and the new marks are those of the new content; marks that
// do not decode are passed over. Marks of another content give another
// checksum: they are what the hash resumes from.
func TestSignIndexResumes(t *testing.T) {
	old := make([]byte, 5*markEvery+1234)
	for i := range old {
		old[i] = byte(i*7 + i/1000)
	}
	_, marks := signIndex([][]byte{old}, 0, nil)
	if len(marks) != 5 {
		t.Fatalf("%d marks for %d bytes, want 5", len(marks), len(old))
	}
	tests := []struct {
		name string
		at   int // the first changed byte
		grow int // bytes inserted there
	}{
		{"change in the header", 8, 0},
		{"change before the first mark", markEvery - 1, 0},
		{"change at a mark", 2 * markEvery, 0},
		{"change after the last mark", 5*markEvery + 10, 0},
		{"entry inserted in the middle", 3*markEvery + 100, 72},
		{"entry removed in the middle", 3*markEvery + 100, -72},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nw := append([]byte{}, old[:tt.at]...)
			if tt.grow >= 0 {
				nw = append(append(nw, bytes.Repeat([]byte{0xee}, tt.grow+1)...), old[tt.at+1:]...)
			} else {
				nw = append(nw, old[tt.at-tt.grow:]...)
			}
			chunks := [][]byte{nw[:tt.at], nw[tt.at : tt.at+3], nw[tt.at+3:]} // as a patch makes them
			want := sha1.Sum(nw)
			_, wantMarks := signIndex([][]byte{nw}, 0, nil)
			sum, got := signIndex(chunks, tt.at, marks)
			if !bytes.Equal(sum, want[:]) {
				t.Fatalf("checksum %x, want %x", sum, want)
			}
			if len(got) != len(wantMarks) || !bytes.Equal(bytes.Join(got, nil), bytes.Join(wantMarks, nil)) {
				t.Fatalf("%d new marks, want %d (or they differ)", len(got), len(wantMarks))
			}
			bad := append([][]byte{}, marks...)
			bad[0] = []byte("not a hash state")
			if sum, _ := signIndex(chunks, tt.at, bad); !bytes.Equal(sum, want[:]) {
				t.Fatal("a mark that does not decode changed the checksum")
			}
			if tt.at >= markEvery {
				_, other := signIndex([][]byte{bytes.Repeat([]byte("x"), len(old))}, 0, nil)
				if sum, _ := signIndex(chunks, tt.at, other); bytes.Equal(sum, want[:]) {
					t.Fatal("marks of another content gave the right checksum: the hash did not resume from them")
				}
			}
		})
	}
}
