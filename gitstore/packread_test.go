package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestReadPackedMatchesGit: every object of packs git wrote with deltas —
// based on an offset (OFS_DELTA, git's default) and on a hash (REF_DELTA,
// repack.useDeltaBaseOffset=false) — reads back as `git cat-file` prints
// it, from a fresh object store and again through the cache of bases.
func TestReadPackedMatchesGit(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	var body strings.Builder
	for i := range 300 {
		fmt.Fprintf(&body, "line %d of a file long enough for git to store its versions as deltas\n", i)
	}
	text := body.String()
	for v := range 25 {
		for f := range 4 {
			text = strings.Replace(text, fmt.Sprintf("line %d of", v*11+f), fmt.Sprintf("line %d (v%d) of", v*11+f, v), 1)
			name := filepath.Join(dir, fmt.Sprintf("d%d", f%2), fmt.Sprintf("f%d.txt", f))
			os.MkdirAll(filepath.Dir(name), 0o755)
			if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", fmt.Sprintf("version %d", v))
	}
	want := catAll(t, dir)
	for _, tt := range []struct {
		name  string
		flags []string
		typ   byte // the delta type the pack must hold
	}{
		{"OFS_DELTA", nil, packOfsDelta},
		{"REF_DELTA", []string{"-c", "repack.useDeltaBaseOffset=false"}, packRefDelta},
	} {
		t.Run(tt.name, func(t *testing.T) {
			git(t, dir, append(tt.flags, "repack", "-q", "-a", "-d", "-f", "--depth=20")...)
			o := newObjectStore(filepath.Join(dir, ".git"))
			defer o.close()
			if _, err := o.scan(); err != nil || len(o.packs) != 1 {
				t.Fatalf("scan: %d packs, %v; want the one git wrote", len(o.packs), err)
			}
			deltas := 0
			for pass := range 2 { // the second pass finds the bases cached
				for h, obj := range want {
					off, err := o.packs[0].idx.FindOffset(h)
					if err != nil {
						t.Fatalf("%s: %v", h, err)
					}
					if e, _ := o.packs[0].entryAt(off); pass == 0 && e.typ == tt.typ {
						deltas++
					}
					typ, b, err := o.read(h)
					if err != nil || typ != obj.typ || !bytes.Equal(b, obj.content) {
						t.Fatalf("pass %d: %s read as %v, %d bytes, %v; git says %v, %d bytes", pass, h, typ, len(b), err, obj.typ, len(obj.content))
					}
					b[0] ^= 0xff // the caller's to change: the cache must not see it
				}
			}
			if deltas == 0 {
				t.Fatalf("git wrote no entry of type %d", tt.typ)
			}
			if o.bases.used == 0 || o.bases.used > deltaCache {
				t.Errorf("cache of bases holds %d bytes, want some, at most %d", o.bases.used, deltaCache)
			}
		})
	}
}

type gitObject struct {
	typ     plumbing.ObjectType
	content []byte
}

// catAll returns every object of the repository at dir, by `git cat-file
// --batch-all-objects --batch`.
func catAll(t *testing.T, dir string) map[plumbing.Hash]gitObject {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	objs := map[plumbing.Hash]gitObject{}
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return objs
		}
		f := strings.Fields(line)
		if err != nil || len(f) != 3 {
			t.Fatalf("cat-file: %q %v", line, err)
		}
		typ, _ := plumbing.ParseObjectType(f[1])
		n, _ := strconv.Atoi(f[2])
		b := make([]byte, n+1)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		objs[plumbing.NewHash(f[0])] = gitObject{typ, b[:n]}
	}
}

// TestReadPackedCorrupt: a damaged pack entry is an error naming what is
// wrong (wrapping errCorruptPack), never a panic or a huge allocation.
func TestReadPackedCorrupt(t *testing.T) {
	whole := packEntryBytes(plumbing.BlobObject, []byte("hello, world\n"))
	tests := []struct {
		name  string
		entry []byte
		want  string
	}{
		{"unknown type", []byte{0x50}, "type 5"},
		{"header runs off the end", []byte{0xb5}, "bad header"},
		{"size beyond the stream", append([]byte{0xbf, 0x7f}, whole[1:]...), "bytes inflated, the header says"},
		{"not zlib", []byte{0x35, 'n', 'o', 't', ' ', 'z', 'l', 'i', 'b'}, "corrupt pack entry"},
		{"delta base before the pack", []byte{0x65, 0x7f}, "delta base before the pack"},
		{"ref delta truncated", []byte{0x75, 1, 2, 3}, "bad delta base"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			o := newObjectStore(dir)
			p := rawPack(t, dir, tt.entry)
			defer p.close()
			_, _, err := o.readPacked(p, 12, 0)
			if !errors.Is(err, errCorruptPack) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want errCorruptPack saying %q", err, tt.want)
			}
		})
	}
}

// TestApplyDelta: git's delta instructions — copies with every offset and
// size byte present or left out (size 0 meaning 64 KiB), inserts — and
// the deltas that must be refused.
func TestApplyDelta(t *testing.T) {
	base := bytes.Repeat([]byte("0123456789"), 7000) // 70,000 bytes
	tests := []struct {
		name  string
		delta []byte
		want  []byte
		err   string
	}{
		{"insert", delta(len(base), 3, []byte{3, 'a', 'b', 'c'}), []byte("abc"), ""},
		{"copy with offset and size", delta(len(base), 4, []byte{0x91, 12, 4}), []byte("2345"), ""},
		{"copy of 64 KiB (size left out)", delta(len(base), 0x10000, []byte{0x80}), base[:0x10000], ""},
		{"copy with a high offset byte", delta(len(base), 2, []byte{0x92, 0x01, 2}), base[256:258], ""},
		{"copy then insert", delta(len(base), 3, []byte{0x90, 1, 1, 'z', 0x91, 9, 1}), []byte("0z9"), ""},
		{"base of another size", delta(len(base)-1, 1, []byte{1, 'a'}), nil, "applied to"},
		{"copy past the base", delta(len(base), 2, []byte{0x97, 0, 0, 0x10, 2}), nil, "past its base"},
		{"truncated insert", delta(len(base), 3, []byte{3, 'a'}), nil, "truncated delta"},
		{"truncated copy", delta(len(base), 3, []byte{0x91}), nil, "truncated delta"},
		{"reserved instruction", delta(len(base), 1, []byte{0}), nil, "reserved"},
		{"target size wrong", delta(len(base), 5, []byte{1, 'a'}), nil, "it says 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyDelta(base, tt.delta)
			if tt.err != "" {
				if !errors.Is(err, errCorruptPack) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want errCorruptPack saying %q", err, tt.err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("= %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// delta is a git delta: source and target sizes, then the instructions.
func delta(src, dst int, ops []byte) []byte {
	b := appendUvarint(nil, uint64(src))
	b = appendUvarint(b, uint64(dst))
	return append(b, ops...)
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// packEntryBytes is one whole object as encodePack writes it.
func packEntryBytes(typ plumbing.ObjectType, content []byte) []byte {
	pack, _, _ := encodePack([]packObject{{hash: plumbing.ComputeHash(typ, content), typ: typ, content: content}}, zlib.NewWriter(io.Discard))
	return pack[12 : len(pack)-20]
}

// ofsDeltaBytes is an OFS_DELTA entry whose base is rel bytes before it.
func ofsDeltaBytes(rel int, d []byte) []byte {
	b := []byte{0x60 | byte(len(d)&0x0f)}
	if len(d) >= 16 {
		b[0] |= 0x80
		b = appendUvarint(b, uint64(len(d)>>4))
	}
	b = append(b, byte(rel)) // rel < 128
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(d)
	zw.Close()
	return append(b, z.Bytes()...)
}

// rawPack is a pack file in dir of the entries given (a header, and a
// zero trailing checksum) whose index lists no object.
func rawPack(t testing.TB, dir string, entries ...[]byte) *pack {
	b := []byte("PACK\x00\x00\x00\x02")
	b = append(b, 0, 0, 0, byte(len(entries)))
	for _, e := range entries {
		b = append(b, e...)
	}
	name := filepath.Join(dir, "pack-raw.idx")
	if err := os.WriteFile(packName(name), append(b, make([]byte, 20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, idx, _ := encodePack(nil, nil)
	p, err := openPack(name, idx, false)
	if err != nil || p == nil {
		t.Fatalf("open pack: %v", err)
	}
	return p
}

// FuzzReadPacked: any bytes as a pack entry, read at any offset, give an
// object or an error, never a panic; a delta applied to any base too.
func FuzzReadPacked(f *testing.F) {
	whole := packEntryBytes(plumbing.BlobObject, []byte("hello, world\n"))
	withDelta := append(append([]byte{}, whole...), ofsDeltaBytes(len(whole), delta(13, 6, []byte{0x90, 5, 1, '!'}))...)
	f.Add(whole, uint16(0), []byte("base"), delta(4, 2, []byte{0x91, 1, 2}))
	f.Add(withDelta, uint16(len(whole)), []byte{}, []byte{0, 1, 1, 'a'})
	f.Add([]byte{0x75, 1, 2, 3}, uint16(0), []byte("x"), []byte{1, 0})
	dir := f.TempDir() // a repository with no objects: a REF_DELTA's base is not found
	f.Fuzz(func(t *testing.T, entries []byte, off uint16, base, d []byte) {
		o := newObjectStore(dir)
		p := rawPack(t, dir, entries)
		defer p.close()
		typ, _, err := o.readPacked(p, 12+int64(off), 0)
		if err == nil && (typ < plumbing.CommitObject || typ > plumbing.TagObject) {
			t.Fatalf("read an object of type %v without error", typ)
		}
		if out, err := applyDelta(base, d); err == nil {
			_, n := binary.Uvarint(d)
			dst, _ := binary.Uvarint(d[n:])
			if uint64(len(out)) != dst {
				t.Fatalf("delta made %d bytes, says %d", len(out), dst)
			}
		}
	})
}

// TestPackRemovedBeforeItsFirstRead: a pack is read from on the first read
// of one of its objects; one that another process removed after the scan
// saw it (a repack, a consolidation) still reads, as the scan opened it.
func TestPackRemovedBeforeItsFirstRead(t *testing.T) {
	dir := existingRepo(t)
	git(t, dir, "gc", "-q")
	want := catAll(t, dir)
	o := newObjectStore(filepath.Join(dir, ".git"))
	defer o.close()
	if _, err := o.scan(); err != nil || len(o.packs) != 1 || o.packs[0].loaded {
		t.Fatalf("scan: %d packs, %v; want one, not read from yet", len(o.packs), err)
	}
	writeFile(t, dir, "new.txt", "new\n")
	git(t, dir, "add", "new.txt")
	git(t, dir, "commit", "-q", "-m", "new")
	git(t, dir, "repack", "-q", "-a", "-d", "-f") // a new pack; the scanned one is removed
	if packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack")); len(packs) != 1 || packs[0] == packName(o.packs[0].name) {
		t.Fatalf("packs after the repack: %v; want one, not the scanned one", packs)
	}
	for h, obj := range want {
		typ, b, err := o.read(h)
		if err != nil || typ != obj.typ || !bytes.Equal(b, obj.content) {
			t.Fatalf("%s read as %v, %d bytes, %v; git says %v, %d bytes", h, typ, len(b), err, obj.typ, len(obj.content))
		}
	}
	if len(o.packs) != 1 || !o.packs[0].loaded {
		t.Fatalf("%d packs open; want the removed one, read from", len(o.packs))
	}
}

// TestReadWhileAnotherConsolidates: a scan that lists a pack another
// process then consolidates away — the new pack made after the listing,
// the old one removed before it is opened — finds the object on the next
// scan, as long as the packs change.
func TestReadWhileAnotherConsolidates(t *testing.T) {
	gitDir := filepath.Join(t.TempDir(), ".git")
	packDir := filepath.Join(gitDir, "objects", "pack")
	os.MkdirAll(packDir, 0o755)
	zw := zlib.NewWriter(io.Discard)
	write := func(objs ...[]byte) string {
		var po []packObject
		for _, c := range objs {
			po = append(po, packObject{hash: plumbing.ComputeHash(plumbing.BlobObject, c), typ: plumbing.BlobObject, content: c})
		}
		pack, idx, sum := encodePack(po, zw)
		base := filepath.Join(packDir, "pack-"+sum.String())
		os.WriteFile(base+".pack", pack, 0o444)
		os.WriteFile(base+".idx", idx, 0o444)
		return base
	}
	write([]byte("known"))
	o := newObjectStore(gitDir)
	defer o.close()
	if _, err := o.scan(); err != nil {
		t.Fatal(err)
	}
	x := []byte("written by another process")
	small := write(x)
	consolidated := false
	testHookScanListed = func() {
		if consolidated {
			return
		}
		consolidated = true // after this listing: the new pack, then the old one gone
		write(x, []byte("and consolidated with this"))
		os.Remove(small + ".idx")
		os.Remove(small + ".pack")
	}
	defer func() { testHookScanListed = nil }()
	typ, b, err := o.read(plumbing.ComputeHash(plumbing.BlobObject, x))
	if err != nil || typ != plumbing.BlobObject || !bytes.Equal(b, x) {
		t.Fatalf("read = %v %q %v; want the blob from the consolidated pack", typ, b, err)
	}
	if _, _, err := o.read(plumbing.ComputeHash(plumbing.BlobObject, []byte("nowhere"))); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Fatalf("an object in no pack: %v, want ErrObjectNotFound", err)
	}
}
