package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

func inode(t *testing.T, name string) uint64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func TestRecord(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "c", Path: "src/c.py", Content: []byte("a = 1\n")})
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.md", Content: []byte("# N\n")})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Artifact.ID
	checkRepo(t, s)
	head := git(t, s.root, "rev-parse", "HEAD")

	// Nothing changed: no commit.
	res, ok, err := s.Record(ctx, id, lunad.Change{})
	if err != nil || ok || res.Artifact.ID != id || res.Version.Number != 1 {
		t.Fatalf("unchanged file: %+v %v %v", res, ok, err)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Fatal("committed an unchanged file")
	}

	// A person saves the file: one human commit, the file left as it is.
	writeFile(t, s.root, "src/c.py", "a = 1\nb = 2\n")
	file := filepath.Join(s.root, "src", "c.py")
	ino := inode(t, file)
	if d, err := s.Dirty(ctx); err != nil || !slices.Equal(d, []string{id}) {
		t.Fatalf("dirty: %v %v", d, err)
	}
	res, ok, err = s.Record(ctx, "src/c.py", lunad.Change{})
	if err != nil || !ok {
		t.Fatalf("record: %v %v", ok, err)
	}
	if res.Artifact.ID != id || res.Version.Number != 2 || res.Version.Op != lunad.OpHuman || res.Version.Agent != "Ada" {
		t.Fatalf("result %+v", res)
	}
	if got := git(t, s.root, "log", "-1", "--format=%an%n%(trailers:key=Luna-Op,valueonly)%(trailers:key=Luna-Artifact,valueonly)"); got != "Ada\nhuman\n"+id+"\n\n" {
		t.Fatalf("git log -1: %q", got)
	}
	if got := git(t, s.root, "rev-list", "--count", strings.TrimSpace(head)+"..HEAD"); strings.TrimSpace(got) != "1" {
		t.Fatalf("%s commits, want 1", got)
	}
	if got := git(t, s.root, "show", "HEAD:src/c.py"); got != "a = 1\nb = 2\n" {
		t.Fatalf("committed %q", got)
	}
	if inode(t, file) != ino {
		t.Fatal("the person's file was rewritten")
	}
	if d, err := s.Dirty(ctx); err != nil || len(d) != 0 {
		t.Fatalf("dirty after record: %v %v", d, err)
	}
	checkRepo(t, s) // git status clean after the index sync, fsck clean
	if d, err := s.Dirty(ctx); err != nil || len(d) != 0 {
		t.Fatalf("dirty after the index sync: %v %v", d, err)
	}
	// Recorded again: nothing.
	if _, ok, err := s.Record(ctx, id, lunad.Change{}); ok || err != nil {
		t.Fatalf("second record: %v %v", ok, err)
	}

	// A stale base version is a conflict; the file stays.
	writeFile(t, s.root, "src/c.py", "a = 3\n")
	if _, _, err := s.Record(ctx, id, lunad.Change{BaseVersion: 1}); !errors.Is(err, lunad.ErrConflict) {
		t.Fatalf("stale base: %v", err)
	}
	if _, ok, err := s.Record(ctx, id, lunad.Change{BaseVersion: 2}); !ok || err != nil {
		t.Fatalf("base 2: %v %v", ok, err)
	}

	head = git(t, s.root, "rev-parse", "HEAD")
	for _, tc := range []struct {
		name    string
		content string
		want    []error
		say     string
	}{
		{"binary", "a\x00b\n", []error{lunad.ErrInvalid, lunad.ErrDirty}, "git checkout -- src/c.py"},
		{"not UTF-8", "caf\xe9\n", []error{lunad.ErrInvalid}, "UTF-8"},
		{"too big", strings.Repeat("x", 9<<20), []error{lunad.ErrInvalid}, "limit"},
	} {
		writeFile(t, s.root, "src/c.py", tc.content)
		_, ok, err := s.Record(ctx, id, lunad.Change{})
		for _, w := range tc.want {
			if ok || !errors.Is(err, w) || !strings.Contains(err.Error(), tc.say) {
				t.Fatalf("%s: %v %v", tc.name, ok, err)
			}
		}
		if b, _ := os.ReadFile(file); string(b) != tc.content {
			t.Fatalf("%s: file changed", tc.name)
		}
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Fatal("invalid content committed")
	}
	git(t, s.root, "checkout", "--", "src/c.py")

	for _, ch := range []lunad.Change{{Agent: "coder"}, {Message: "why"}, {IdempotencyKey: "k"}, {Extra: map[string]string{"Run": "1"}}} {
		if _, _, err := s.Record(ctx, id, ch); !errors.Is(err, lunad.ErrInvalid) {
			t.Fatalf("change %+v: %v", ch, err)
		}
	}
	if _, _, err := s.Record(ctx, "nope.md", lunad.Change{}); !errors.Is(err, lunad.ErrNotFound) {
		t.Fatalf("unknown artifact: %v", err)
	}

	// An agent edit on top of a recorded change finds nothing more to record.
	writeFile(t, s.root, "n.md", "# N\n\nby hand\n")
	if _, ok, err := s.Record(ctx, other.Artifact.ID, lunad.Change{}); !ok || err != nil {
		t.Fatalf("record n.md: %v %v", ok, err)
	}
	if _, err := s.Edit(ctx, other.Artifact.ID, lunad.Change{Agent: "coder"}, replace("by hand", "by hand and agent")); err != nil {
		t.Fatal(err)
	}
	hist, _ := s.History(ctx, other.Artifact.ID)
	if len(hist) != 3 || hist[1].Op != lunad.OpHuman || hist[2].Op != lunad.OpEdit {
		t.Fatalf("history %+v", hist)
	}
	checkRepo(t, s)
	if d, err := s.Dirty(ctx); err != nil || len(d) != 0 {
		t.Fatalf("dirty at the end: %v %v", d, err)
	}
}

// TestRecordDetached: a detached HEAD is readable, and Record is refused
// like every write.
func TestRecordDetached(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "c", Path: "c.txt", Content: []byte("one\n")})
	checkRepo(t, s)
	git(t, s.root, "checkout", "-q", "--detach")
	writeFile(t, s.root, "c.txt", "two\n")
	head := git(t, s.root, "rev-parse", "HEAD")
	if _, _, err := s.Record(ctx, r.Artifact.ID, lunad.Change{}); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "detached") {
		t.Fatalf("detached: %v", err)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Fatal("committed on a detached HEAD")
	}
	if b, c, err := s.Head(); err != nil || b != "" || c+"\n" != head {
		t.Fatalf("Head() = %q %q %v", b, c, err)
	}
}

// TestDirtyStat: the stat shortcut never hides a change, even one that keeps
// the size and the modification time.
func TestDirtyStat(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a, _ := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.txt", Content: []byte("aaaa\n")})
	s.Create(ctx, lunad.CreateSpec{Title: "b", Path: "d/b.txt", Content: []byte("bbbb\n")})
	// Written by lunad, the index not synced yet: read, found equal.
	if d, err := s.Dirty(ctx); err != nil || len(d) != 0 {
		t.Fatalf("before sync: %v %v", d, err)
	}
	checkRepo(t, s)
	// Let the index be older than the files' next change.
	time.Sleep(10 * time.Millisecond)
	git(t, s.root, "update-index", "--refresh")
	if d, err := s.Dirty(ctx); err != nil || len(d) != 0 {
		t.Fatalf("after sync: %v %v", d, err)
	}
	file := filepath.Join(s.root, "a.txt")
	if st := readIndexStats(s.gitDir); !st.unchanged(st.entries["a.txt"], file) || !st.unchanged(st.entries["d/b.txt"], filepath.Join(s.root, "d", "b.txt")) {
		t.Fatal("the stat shortcut is not taken for files git checked")
	}
	fi, _ := os.Stat(file)
	writeFile(t, s.root, "a.txt", "AAAA\n")
	os.Chtimes(file, fi.ModTime(), fi.ModTime())
	if d, err := s.Dirty(ctx); err != nil || !slices.Equal(d, []string{a.Artifact.ID}) {
		t.Fatalf("same size and mtime: %v %v", d, err)
	}
	os.Remove(file)
	if d, err := s.Dirty(ctx); err != nil || !slices.Equal(d, []string{a.Artifact.ID}) {
		t.Fatalf("deleted: %v %v", d, err)
	}
}

func TestChanged(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a, _ := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.txt", Content: []byte("a\n")})
	b, _ := s.Create(ctx, lunad.CreateSpec{Title: "b", Path: "d/b.txt", Content: []byte("b\n")})
	checkRepo(t, s)
	_, start, err := s.Head()
	if err != nil {
		t.Fatal(err)
	}
	// A commit made with plain git: not a version, but a change.
	writeFile(t, s.root, "d/b.txt", "b by git\n")
	writeFile(t, s.root, "untracked.txt", "x\n")
	git(t, s.root, "commit", "-qam", "by hand")
	_, mid, _ := s.Head()
	if got, err := s.Changed(ctx, start, mid); err != nil || !slices.Equal(got, []string{b.Artifact.ID}) {
		t.Fatalf("hand commit: %v %v", got, err)
	}
	if _, err := s.Move(ctx, a.Artifact.ID, "e/a.txt", lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	c, _ := s.Create(ctx, lunad.CreateSpec{Title: "c", Path: "c.txt", Content: []byte("c\n")})
	_, end, _ := s.Head()
	want := []string{a.Artifact.ID, b.Artifact.ID, c.Artifact.ID}
	slices.Sort(want)
	if got, err := s.Changed(ctx, start, end); err != nil || !slices.Equal(got, want) {
		t.Fatalf("changed %v %v, want %v", got, err, want)
	}
	if got, err := s.Changed(ctx, end, start); err != nil || !slices.Equal(got, want) {
		t.Fatalf("backwards %v %v, want %v", got, err, want)
	}
	if got, err := s.Changed(ctx, end, end); err != nil || len(got) != 0 {
		t.Fatalf("same commit: %v %v", got, err)
	}
	if _, err := s.Changed(ctx, "nonsense", end); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("bad commit: %v", err)
	}
	if br, _, _ := s.Head(); br != "main" {
		t.Fatalf("branch %q", br)
	}
}

// TestSyncIndex: after SyncIndex, git status is clean without closing.
func TestSyncIndex(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.txt", Content: []byte("a\n")})
	if st := git(t, s.root, "status", "--porcelain"); st == "" {
		t.Fatal("index synced before SyncIndex (the test proves nothing)")
	}
	if err := s.SyncIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if st := git(t, s.root, "status", "--porcelain"); st != "" {
		t.Fatalf("git status:\n%s", st)
	}
}

// TestRecordFailedRefUpdate: when the branch cannot move (a git command
// holds its lock), nothing is committed and the pending-list recovery
// leaves the person's file alone.
func TestRecordFailedRefUpdate(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "c", Path: "c.txt", Content: []byte("one\n")})
	checkRepo(t, s)
	head := git(t, s.root, "rev-parse", "HEAD")
	writeFile(t, s.root, "c.txt", "typed by hand\n")
	lock := filepath.Join(s.gitDir, "refs", "heads", "main.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Record(ctx, r.Artifact.ID, lunad.Change{}); ok || !errors.Is(err, lunad.ErrLocked) {
		t.Fatalf("record with the ref locked: %v %v", ok, err)
	}
	os.Remove(lock)
	s.mu.Lock()
	err := s.syncIndexLocked(ctx)
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.root, "c.txt")); string(b) != "typed by hand\n" {
		t.Fatalf("recovery rewrote the person's file: %q", b)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Fatal("HEAD moved")
	}
	if st := git(t, s.root, "status", "--porcelain"); st != " M c.txt\n" {
		t.Fatalf("git status:\n%s", st)
	}
	if _, ok, err := s.Record(ctx, r.Artifact.ID, lunad.Change{}); !ok || err != nil {
		t.Fatalf("record: %v %v", ok, err)
	}
	checkRepo(t, s)
}
