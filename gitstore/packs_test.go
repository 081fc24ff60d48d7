package gitstore

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/lunad/lunad"
)

// packObjects makes distinct objects of every type lunad writes, sized to
// cross the pack header's size boundaries (4 bits, then 7 more per byte).
func packObjects(contents ...[]byte) []packObject {
	types := []plumbing.ObjectType{plumbing.BlobObject, plumbing.TreeObject, plumbing.CommitObject, plumbing.TagObject}
	var out []packObject
	seen := map[plumbing.Hash]bool{}
	for i, c := range contents {
		t := types[i%len(types)]
		h := plumbing.ComputeHash(t, c)
		if seen[h] {
			continue
		}
		seen[h] = true
		out = append(out, packObject{hash: h, typ: t, content: c})
	}
	return out
}

// TestEncodePackMatchesGit: git verify-pack accepts the pack lunad
// encodes, and git index-pack, indexing it on its own, writes the very
// same .idx bytes (v2, CRC32s, checksums) and names it the same.
func TestEncodePackMatchesGit(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 70000) // > 1 MiB: a 4-byte size header
	cases := []struct {
		name     string
		contents [][]byte
	}{
		{"one empty blob", [][]byte{{}}},
		{"sizes around the header boundaries", [][]byte{[]byte("a"), bytes.Repeat([]byte("b"), 15), bytes.Repeat([]byte("c"), 16), bytes.Repeat([]byte("d"), 2047), bytes.Repeat([]byte("e"), 2048), big}},
		{"many", func() [][]byte {
			var cs [][]byte
			for i := range 300 {
				cs = append(cs, []byte(fmt.Sprintf("object %d\n", i)))
			}
			return cs
		}()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs := packObjects(c.contents...)
			zw, _ := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
			pack, idx, sum := encodePack(objs, zw)
			dir := t.TempDir()
			name := filepath.Join(dir, "pack-"+sum.String()+".pack")
			if err := os.WriteFile(name, pack, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("git", "index-pack", "-o", filepath.Join(dir, "git.idx"), name).CombinedOutput()
			if err != nil {
				t.Fatalf("git index-pack: %v\n%s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != sum.String() {
				t.Errorf("git names the pack %s, lunad %s", got, sum)
			}
			gitIdx, err := os.ReadFile(filepath.Join(dir, "git.idx"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gitIdx, idx) {
				t.Fatalf("lunad's .idx (%d bytes) differs from git index-pack's (%d bytes)", len(idx), len(gitIdx))
			}
			os.WriteFile(filepath.Join(dir, "pack-"+sum.String()+".idx"), idx, 0o644)
			out, err = exec.Command("git", "verify-pack", "-v", filepath.Join(dir, "pack-"+sum.String()+".idx")).CombinedOutput()
			if err != nil {
				t.Fatalf("git verify-pack: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), fmt.Sprintf("non delta: %d object", len(objs))) {
				t.Errorf("git verify-pack:\n%s", out)
			}
		})
	}
}

// FuzzEncodePack: every object of a pack lunad encodes reads back, by type
// and content, through lunad's index reader and go-git's pack decoder.
func FuzzEncodePack(f *testing.F) {
	f.Add([]byte("hello"), []byte(""), []byte("tree"), uint8(3))
	f.Add(bytes.Repeat([]byte{0}, 300), []byte("x"), bytes.Repeat([]byte("ab"), 5000), uint8(40))
	f.Fuzz(func(t *testing.T, a, b, c []byte, n uint8) {
		contents := [][]byte{a, b, c}
		for i := range int(n % 64) {
			contents = append(contents, append([]byte{byte(i)}, a...))
		}
		objs := packObjects(contents...)
		zw, _ := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
		pack, idx, _ := encodePack(objs, zw)
		x, err := openIndex(idx)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(t.TempDir(), "p.pack")
		os.WriteFile(name, pack, 0o644)
		file, err := osfs.Default.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		pf := packfile.NewPackfileWithCache(x, nil, file, cache.NewObjectLRU(deltaCache), 0)
		if cnt, _ := x.Count(); cnt != int64(len(objs)) {
			t.Fatalf("index counts %d objects, want %d", cnt, len(objs))
		}
		for _, o := range objs {
			got, err := pf.Get(o.hash)
			if err != nil {
				t.Fatalf("%s: %v", o.hash, err)
			}
			r, _ := got.Reader()
			body, _ := io.ReadAll(r)
			r.Close()
			if got.Type() != o.typ || !bytes.Equal(body, o.content) {
				t.Fatalf("%s: read back %s of %d bytes, wrote %s of %d", o.hash, got.Type(), len(body), o.typ, len(o.content))
			}
		}
	})
}

// packFiles lists the files under objects/pack and the loose objects.
func packFiles(t *testing.T, s *Store) (packs, loose []string) {
	t.Helper()
	dir := filepath.Join(s.commonDir, "objects")
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case strings.HasPrefix(rel, "pack"+string(filepath.Separator)):
			packs = append(packs, fi.Name())
		case len(rel) == 41:
			loose = append(loose, rel)
		}
		return nil
	})
	return packs, loose
}

// TestWriteIsOnePack: each kind of durable write adds one pack and its
// index and no loose object; objects already stored are not packed
// again; git and go-git read every object.
func TestWriteIsOnePack(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	packs0, loose0 := packFiles(t, s)
	if len(loose0) != 0 {
		t.Fatalf("init wrote loose objects: %v", loose0)
	}
	step := func(name string, write func() error, wantPacks int) {
		t.Helper()
		before, _ := packFiles(t, s)
		if err := write(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		after, loose := packFiles(t, s)
		if len(after)-len(before) != 2*wantPacks || len(loose) != 0 {
			t.Errorf("%s: %d files in objects/pack (was %d), %d loose objects; want %d new packs, with their index, and no loose object", name, len(after), len(before), len(loose), wantPacks)
		}
	}
	var id string
	step("create", func() error {
		r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "docs/a.md", Content: []byte("one\n")})
		id = r.Artifact.ID
		return err
	}, 1)
	step("edit", func() error {
		_, err := s.Edit(ctx, id, lunad.Change{}, replace("one", "two"))
		return err
	}, 1)
	step("stage writes", func() error {
		_, _, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{{Path: "out/r1/a.txt", Content: "x\n"}, {Path: "out/r1/b.txt", Content: "y\n"}}, lunad.Change{Agent: "bench"})
		return err
	}, 1)
	tip := ""
	step("run append", func() error {
		var err error
		tip, err = s.AppendRun(ctx, "r1", "", []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "s", Attempt: 1, Time: runT0}}, {Event: lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "s", Attempt: 1, Time: runT0}}})
		return err
	}, 1)
	// A write back to the first version's content: its blob and the docs
	// tree are stored already and are not packed again; the root tree (it
	// has out/ now) and the commit are new.
	var oldPack []string
	step("edit back", func() error {
		oldPack, _ = packFiles(t, s)
		_, err := s.Edit(ctx, id, lunad.Change{}, replace("two", "one"))
		return err
	}, 1)
	after, _ := packFiles(t, s)
	for _, f := range after {
		if !strings.HasSuffix(f, ".idx") || strings.Contains(strings.Join(oldPack, " "), f) {
			continue
		}
		out := git(t, s.root, "verify-pack", "-v", filepath.Join(s.commonDir, "objects", "pack", f))
		if !strings.Contains(out, "non delta: 2 objects") || !strings.Contains(out, " commit ") || strings.Contains(out, " blob ") {
			t.Errorf("the edit back packed more than its root tree and commit:\n%s", out)
		}
	}
	if len(packs0) == 0 {
		t.Errorf("init wrote no pack")
	}
	checkRepo(t, s)
	if got := strings.TrimSpace(git(t, s.root, "cat-file", "-p", "HEAD:docs/a.md")); got != "one" {
		t.Errorf("git cat-file HEAD:docs/a.md = %q", got)
	}
	if n := strings.Count(git(t, s.root, "log", "--format=%H", "HEAD"), "\n"); n != 5 {
		t.Errorf("git log lists %d commits, want 5 (init, create, edit, stage writes, edit back)", n)
	}
	git(t, s.root, "cat-file", "-e", tip)

	// go-git reads every object git lists, from a repository opened now.
	st := filesystem.NewStorage(osfs.New(filepath.Join(s.root, ".git")), cache.NewObjectLRUDefault())
	all := strings.Fields(git(t, s.root, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
	for _, h := range all {
		if _, err := st.EncodedObject(plumbing.AnyObject, plumbing.NewHash(h)); err != nil {
			t.Errorf("go-git reads %s: %v", h, err)
		}
	}
	// go-git loads its pack indexes once: a pack written after it first
	// looked is found after Reindex (or by a storage opened afresh).
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "b", Path: "docs/b.md", Content: []byte("b\n")})
	if err != nil {
		t.Fatal(err)
	}
	st.Reindex()
	if _, err := st.EncodedObject(plumbing.CommitObject, plumbing.NewHash(r.Version.Commit)); err != nil {
		t.Errorf("go-git reads the new commit after Reindex: %v", err)
	}
	// A storage opened afresh reads the blob at HEAD:docs/a.md.
	blob := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD:docs/a.md"))
	o, err := filesystem.NewStorage(osfs.New(filepath.Join(s.root, ".git")), cache.NewObjectLRUDefault()).EncodedObject(plumbing.BlobObject, plumbing.NewHash(blob))
	if err != nil {
		t.Fatalf("go-git reads HEAD:docs/a.md: %v", err)
	}
	rd, _ := o.Reader()
	got, _ := io.ReadAll(rd)
	rd.Close()
	if string(got) != "one\n" {
		t.Errorf("go-git reads %q", got)
	}
}

// TestConsolidatePacks: past consolidateAt small packs, the next write
// packs them into one and removes them; every version stays readable,
// by the store, by a store opened afresh and by git.
func TestConsolidatePacks(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "docs/a.md", Content: []byte("v0\n")})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Artifact.ID
	maxPacks := 0
	for i := 1; i <= consolidateAt+5; i++ {
		if _, err := s.Edit(ctx, id, lunad.Change{}, replace(fmt.Sprintf("v%d", i-1), fmt.Sprintf("v%d", i))); err != nil {
			t.Fatal(err)
		}
		s.bg.Wait() // a consolidation the edit started
		packs, _ := packFiles(t, s)
		maxPacks = max(maxPacks, len(packs)/2)
	}
	packs, _ := packFiles(t, s)
	if maxPacks > consolidateAt+1 || len(packs)/2 >= consolidateAt {
		t.Errorf("at most %d packs, %d at the end; want at most %d", maxPacks, len(packs)/2, consolidateAt+1)
	}
	if len(s.objects.packs) != len(packs)/2 {
		t.Errorf("the store has %d packs open, %d on disk", len(s.objects.packs), len(packs)/2)
	}
	check := func(s *Store) {
		t.Helper()
		h, err := s.History(ctx, id)
		if err != nil || len(h) != consolidateAt+6 {
			t.Fatalf("history: %d versions, %v", len(h), err)
		}
		for _, v := range h {
			b, _, err := s.Read(ctx, id, fmt.Sprint(v.Number))
			if err != nil || string(b) != fmt.Sprintf("v%d\n", v.Number-1) {
				t.Fatalf("version %d: %q, %v", v.Number, b, err)
			}
		}
	}
	check(s)
	checkRepo(t, s)
	s2, err := Open(s.root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	check(s2)
}

// TestUnreferencedPack: objects made durable by a write whose ref never
// moved (a crash between the two) are an unreferenced pack: git fsck is
// clean and git gc removes them.
func TestUnreferencedPack(t *testing.T) {
	s := newStore(t)
	s.mu.Lock()
	h, err := s.objs.write(plumbing.BlobObject, []byte("never committed\n"))
	if err == nil {
		err = s.objs.sync()
	}
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	git(t, s.root, "cat-file", "-e", h.String())
	checkRepo(t, s)
	git(t, s.root, "gc", "--prune=now", "--quiet")
	if err := exec.Command("git", "-C", s.root, "cat-file", "-e", h.String()).Run(); err == nil {
		t.Errorf("git gc left the unreferenced blob %s", h)
	}
	checkRepo(t, s)
}

// BenchmarkConsolidate measures consolidating consolidateAt+1 packs of
// one edit each (an edit's eight objects).
func BenchmarkConsolidate(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, _, err := Init(b.TempDir(), testOptions())
		if err != nil {
			b.Fatal(err)
		}
		for j := 0; j <= consolidateAt; j++ {
			if _, err := s.Create(ctx, lunad.CreateSpec{Title: fmt.Sprint(j), Path: fmt.Sprintf("d%d/a/b/n.md", j), Content: []byte(fmt.Sprintf("%d\n", j))}); err != nil {
				b.Fatal(err)
			}
		}
		s.mu.Lock()
		s.objects.scan()
		n := len(s.objects.packs)
		b.StartTimer()
		var old []string
		if old, err = s.consolidatePacks(); err == nil {
			err = removePacks(old)
		}
		b.StopTimer()
		if len(s.objects.packs) != 1 || n < 2 {
			b.Fatalf("%d packs before, %d after", n, len(s.objects.packs))
		}
		s.mu.Unlock()
		s.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestOrphanPackRemoved: a pack left without its index (a crash between
// the two renames), or an index without its pack (a crash that kept the
// index's rename and lost the pack's), is removed by the next
// consolidation once it is a minute old, and not before; a whole pack is
// kept.
func TestOrphanPackRemoved(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := []struct {
		name string
		old  bool
		gone bool
	}{
		{"pack-1.pack", true, true},   // an old pack without its index
		{"pack-2.pack", false, false}, // a fresh one: maybe its index is being renamed
		{"pack-3.pack", true, false},  // a whole pack
		{"pack-3.idx", true, false},
		{"pack-4.idx", true, true},   // an old index without its pack
		{"pack-5.idx", false, false}, // a fresh one
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("x"), 0o444); err != nil {
			t.Fatal(err)
		}
		if f.old {
			if err := os.Chtimes(p, now.Add(-2*time.Minute), now.Add(-2*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := orphanPacks(dir, now)
	if want := []string{filepath.Join(dir, "pack-1.idx"), filepath.Join(dir, "pack-4.idx")}; !slices.Equal(got, want) {
		t.Fatalf("orphans %v, want %v", got, want)
	}
	if err := removePacks(got); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			_, err := os.Stat(filepath.Join(dir, f.name))
			if f.gone && !os.IsNotExist(err) {
				t.Errorf("still there (%v)", err)
			}
			if !f.gone && err != nil {
				t.Errorf("removed: %v", err)
			}
		})
	}
}

// TestConsolidateCopiesEntries: consolidation copies a whole object's
// entry as it is (no inflating and deflating again), and writes a delta
// of a pack git made whole; git reads the result (verify-pack, fsck).
func TestConsolidateCopiesEntries(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "docs/a.md", Content: []byte(strings.Repeat("a line of the artifact\n", 200))})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("a line", fmt.Sprintf("line %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	// A small pack git made with deltas: versions of one file, by hand.
	var body strings.Builder
	for i := range 300 {
		fmt.Fprintf(&body, "line %d of a file git stores as deltas\n", i)
	}
	for v := range 3 {
		writeFile(t, s.root, "notes.txt", strings.Replace(body.String(), fmt.Sprintf("line %d ", v), "changed ", 1))
		git(t, s.root, "add", "notes.txt")
		git(t, s.root, "commit", "-q", "-m", fmt.Sprint("notes ", v))
	}
	git(t, s.root, "repack", "-q", "-d") // the loose objects as one new pack
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.objects.scan(); err != nil {
		t.Fatal(err)
	}
	raw := map[plumbing.Hash][]byte{} // whole entries of the small packs
	deltas := 0
	for _, p := range s.objects.packs {
		hashes, _ := packHashes(p.idx)
		ends, err := entryEnds(p, hashes)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hashes {
			off, _ := p.idx.FindOffset(h)
			if e, _ := p.entryAt(off); e.typ == packOfsDelta || e.typ == packRefDelta {
				deltas++
			} else {
				raw[h], _ = p.readAt(off, ends[off])
			}
		}
	}
	if deltas == 0 || len(raw) == 0 {
		t.Fatalf("%d whole entries and %d deltas in the small packs; want both", len(raw), deltas)
	}
	old, err := s.consolidatePacks()
	if err != nil || len(old) < 2 {
		t.Fatalf("consolidate: %d packs replaced, %v", len(old), err)
	}
	if err := removePacks(old); err != nil {
		t.Fatal(err)
	}
	if len(s.objects.packs) != 1 {
		t.Fatalf("%d packs after consolidation, want 1", len(s.objects.packs))
	}
	p := s.objects.packs[0]
	hashes, _ := packHashes(p.idx)
	ends, _ := entryEnds(p, hashes)
	for _, h := range hashes {
		off, _ := p.idx.FindOffset(h)
		e, err := p.entryAt(off)
		if err != nil || e.typ == packOfsDelta || e.typ == packRefDelta {
			t.Fatalf("%s: entry type %d, %v; want a whole object", h, e.typ, err)
		}
		if got, _ := p.readAt(off, ends[off]); raw[h] != nil && !bytes.Equal(got, raw[h]) {
			t.Errorf("%s: entry written again, not copied", h)
		}
	}
	git(t, s.root, "verify-pack", p.name)
	git(t, s.root, "fsck", "--strict", "--no-progress")
}

// TestConsolidateKeepsLargerLevel: a consolidation merges the small packs
// and leaves a pack larger than all of them together as it is, where it
// used to copy every pack under smallPack each time; what it merged stays
// readable and git fsck is clean.
func TestConsolidateKeepsLargerLevel(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	largest := func() (string, int64) {
		s.mu.Lock()
		defer s.mu.Unlock()
		name, size := "", int64(0)
		for _, p := range s.objects.packs {
			if p.size > size {
				name, size = filepath.Base(p.name), p.size
			}
		}
		return name, size
	}
	// A pack of some 250 KiB that does not compress: a level made before.
	var big strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&big, "%x\n", sha1.Sum([]byte(fmt.Sprint(i))))
	}
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "big", Path: "docs/big.txt", Content: []byte(big.String())})
	if err != nil {
		t.Fatal(err)
	}
	bigName, bigSize := largest()
	if bigSize < 100<<10 || bigSize >= smallPack {
		t.Fatalf("the big pack has %d bytes", bigSize)
	}
	for i := 1; i <= consolidateAt+1; i++ {
		if _, _, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{{Path: fmt.Sprintf("out/%d.txt", i), Content: fmt.Sprintln(i)}}, lunad.Change{Agent: "t"}); err != nil {
			t.Fatal(err)
		}
		s.bg.Wait() // a consolidation the write started
	}
	packs, _ := packFiles(t, s)
	if len(packs)/2 >= consolidateAt {
		t.Fatalf("%d packs: no consolidation ran", len(packs)/2)
	}
	if name, _ := largest(); name != bigName || !slices.Contains(packs, bigName) {
		t.Fatalf("the large pack %s was merged again (largest now %s)", bigName, name)
	}
	b, _, err := s.Read(ctx, r.Artifact.ID, "1")
	if err != nil || string(b) != big.String() {
		t.Fatalf("big artifact: %d bytes, %v", len(b), err)
	}
	for i := 1; i <= consolidateAt+1; i++ {
		if b, _, err := s.Read(ctx, fmt.Sprintf("out/%d.txt", i), ""); err != nil || string(b) != fmt.Sprintln(i) {
			t.Fatalf("out/%d.txt: %q, %v", i, b, err)
		}
	}
	git(t, s.root, "fsck", "--strict", "--no-progress")
}
