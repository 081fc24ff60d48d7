package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/lunad/lunad"
)

// TestReadFromPacks: after git gc packs (and deltifies) everything lunad
// wrote, every version still reads back the same, from a new store and from
// one that was open while the objects moved.
func TestReadFromPacks(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	var body strings.Builder
	for i := range 200 {
		fmt.Fprintf(&body, "line %d of a file long enough for git to store its versions as deltas\n", i)
	}
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "big", Path: "docs/big.md", Content: []byte(body.String())})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Artifact.ID
	for i := range 20 {
		old := fmt.Sprintf("line %d of", i*7)
		if _, err := s.Edit(ctx, id, lunad.Change{}, replace(old, old+" (edited)")); err != nil {
			t.Fatal(err)
		}
	}
	want := versions(t, s, id)
	git(t, s.root, "gc", "-q", "--aggressive")
	loose, _ := filepath.Glob(filepath.Join(s.root, ".git", "objects", "??", "*"))
	if len(loose) != 0 {
		t.Fatalf("git gc left %d loose objects", len(loose))
	}
	if packs := git(t, s.root, "verify-pack", "-v", mustGlob(t, s.root+"/.git/objects/pack/*.idx")); !strings.Contains(packs, "chain length") {
		t.Fatalf("no deltas in the pack:\n%s", packs)
	}
	// The store that was open: its objects moved into the pack under it.
	if got := versions(t, s, id); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Fatal("versions differ after git gc (open store)")
	}
	if _, err := s.Edit(ctx, id, lunad.Change{}, replace("line 1 of", "line one of")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(s.root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got := versions(t, s2, id)
	if strings.Join(got[:len(want)], "\x00") != strings.Join(want, "\x00") || len(got) != len(want)+1 {
		t.Fatal("versions differ after git gc (new store)")
	}
	checkRepo(t, s2)
}

func mustGlob(t *testing.T, pattern string) string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) != 1 {
		t.Fatalf("glob %s: %v %v", pattern, m, err)
	}
	return m[0]
}

// TestLazyIndexMatchesGit: every object git lists in a pack is found at
// the offset git reports, and offsets map back to their names.
func TestLazyIndexMatchesGit(t *testing.T) {
	dir := existingRepo(t)
	git(t, dir, "gc", "-q")
	idxName := mustGlob(t, dir+"/.git/objects/pack/*.idx")
	data, err := os.ReadFile(idxName)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := openIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := idx.(*lazyIndex); !ok {
		t.Fatalf("index read as %T, want the in-place reader", idx)
	}
	n := 0
	for _, line := range strings.Split(git(t, dir, "verify-pack", "-v", idxName), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || len(f[0]) != 40 {
			continue
		}
		h := plumbing.NewHash(f[0])
		off, err := idx.FindOffset(h)
		if err != nil || fmt.Sprint(off) != f[4] {
			t.Fatalf("%s: offset %d %v, git says %s", f[0], off, err, f[4])
		}
		if back, err := idx.FindHash(off); err != nil || back != h {
			t.Fatalf("offset %d maps back to %s %v", off, back, err)
		}
		n++
	}
	if c, _ := idx.Count(); int(c) != n || n == 0 {
		t.Fatalf("count %d, git listed %d", c, n)
	}
	if ok, _ := idx.Contains(plumbing.NewHash(strings.Repeat("ab", 20))); ok {
		t.Fatal("found an object that is not there")
	}
}

// TestPackedBeforeLoose: objects are looked for in the store's packs
// before loose files, and a new object is written into its write's pack
// without looking for a loose copy. So a loose copy git wrote of content a
// stage then writes is packed with the stage's commit, and a damaged loose
// copy of a packed object does not keep it from being read.
func TestPackedBeforeLoose(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	content := "written by git first\n"
	file := filepath.Join(s.root, ".git", "content.txt")
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	h := strings.TrimSpace(git(t, s.root, "hash-object", "-w", file))
	refs, _, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{{Path: "out/a.txt", Content: content}}, lunad.Change{Agent: "t"})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	packed := s.objects.stored(plumbing.NewHash(h))
	s.mu.Unlock()
	if !packed {
		t.Fatalf("blob %s is only loose: the stage's pack left it out", h)
	}
	loose := filepath.Join(s.root, ".git", "objects", h[:2], h[2:])
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(loose, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Read(ctx, refs[0].ID, refs[0].Commit)
	if err != nil || string(got) != content {
		t.Fatalf("read past a damaged loose copy: %q, %v", got, err)
	}
}
