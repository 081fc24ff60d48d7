package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// versions returns the content of an artifact at each of its versions.
func versions(t *testing.T, s *Store, id string) []string {
	t.Helper()
	hist, err := s.History(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range hist {
		b, _, err := s.Read(context.Background(), id, v.Commit)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestUndoRedoRestore(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.txt", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Artifact.ID
	mustEdit := func(old, new string) {
		t.Helper()
		if _, err := s.Edit(ctx, id, lunad.Change{}, replace(old, new)); err != nil {
			t.Fatal(err)
		}
	}
	current := func() string { t.Helper(); return currentContent(t, s, id, "n.txt") }
	mustEdit("one", "two")   // v2
	mustEdit("two", "three") // v3
	steps := []struct {
		name string
		op   func() (lunad.Result, error)
		want string
		ver  int
	}{
		{"undo three", func() (lunad.Result, error) { return s.Undo(ctx, id, lunad.Change{}) }, "two\n", 4},
		{"undo two", func() (lunad.Result, error) { return s.Undo(ctx, id, lunad.Change{}) }, "one\n", 5},
		{"redo two", func() (lunad.Result, error) { return s.Redo(ctx, id, lunad.Change{}) }, "two\n", 6},
		{"redo three", func() (lunad.Result, error) { return s.Redo(ctx, id, lunad.Change{}) }, "three\n", 7},
		{"restore v1", func() (lunad.Result, error) { return s.Restore(ctx, id, 1, lunad.Change{}) }, "one\n", 8},
		{"undo restore", func() (lunad.Result, error) { return s.Undo(ctx, id, lunad.Change{}) }, "three\n", 9},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res, err := st.op()
			if err != nil {
				t.Fatal(err)
			}
			if got := current(); got != st.want || res.Version.Number != st.ver {
				t.Fatalf("content %q v%d, want %q v%d", got, res.Version.Number, st.want, st.ver)
			}
		})
	}
	if _, err := s.Redo(ctx, id, lunad.Change{}); err == nil {
		// The undo of the restore can be redone once.
		if got := current(); got != "one\n" {
			t.Fatalf("redo restore: %q", got)
		}
	} else {
		t.Fatal(err)
	}
	if _, err := s.Redo(ctx, id, lunad.Change{}); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("nothing to redo: %v", err)
	}
	// A new edit clears the redo stack; undo walks back to v1 and stops.
	for range 10 {
		s.Undo(ctx, id, lunad.Change{})
	}
	if got := current(); got != "one\n" {
		t.Fatalf("after many undos: %q", got)
	}
	if _, err := s.Undo(ctx, id, lunad.Change{}); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("undo at first state: %v", err)
	}
	if _, err := s.Restore(ctx, id, 1, lunad.Change{}); !errors.Is(err, lunad.ErrNotApplied) {
		t.Fatalf("restore to identical state: %v", err)
	}
	if _, err := s.Restore(ctx, id, 99, lunad.Change{}); !errors.Is(err, lunad.ErrNotFound) {
		t.Fatalf("restore unknown version: %v", err)
	}
	checkRepo(t, s)
}

func TestMoveArchiveLink(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a, _ := s.Create(ctx, lunad.CreateSpec{Title: "A", Path: "docs/a.md", Content: []byte("a\n")})
	b, _ := s.Create(ctx, lunad.CreateSpec{Title: "B", Path: "b.py", Content: []byte("b = 1\n")})
	if _, err := s.Move(ctx, a.Artifact.ID, "notes/deep/a.md", lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.root, "docs")); !os.IsNotExist(err) {
		t.Fatalf("emptied directory docs/ left behind: %v", err)
	}
	got, art, err := s.Read(ctx, "notes/deep/a.md", "")
	if err != nil || string(got) != "a\n" || art.ID != a.Artifact.ID || art.Version != 2 {
		t.Fatalf("read moved: %q %+v %v", got, art, err)
	}
	if _, err := s.Link(ctx, a.Artifact.ID, "b.py", "depends_on", lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Link(ctx, a.Artifact.ID, b.Artifact.ID, "depends_on", lunad.Change{}); !errors.Is(err, lunad.ErrExists) {
		t.Fatalf("duplicate link: %v", err)
	}
	if _, err := s.Link(ctx, a.Artifact.ID, "nope", "", lunad.Change{}); !errors.Is(err, lunad.ErrNotFound) {
		t.Fatalf("link to unknown: %v", err)
	}
	if _, err := s.Archive(ctx, b.Artifact.ID, lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %+v %v", list, err)
	}
	if list[0].Path != "b.py" || list[0].Status != lunad.StatusArchived || list[0].Type != "code/python" {
		t.Fatalf("list[0] %+v", list[0])
	}
	if l := list[1].Links; len(l) != 1 || l[0] != (lunad.Link{To: b.Artifact.ID, Kind: "depends_on"}) {
		t.Fatalf("links %+v", l)
	}
	// Undo of the move brings the old path back.
	if _, err := s.Undo(ctx, a.Artifact.ID, lunad.Change{}); err != nil { // undoes the link
		t.Fatal(err)
	}
	if _, err := s.Undo(ctx, a.Artifact.ID, lunad.Change{}); err != nil { // undoes the move
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(s.root, "docs/a.md")); err != nil || string(b) != "a\n" {
		t.Fatalf("undo move: %q %v", b, err)
	}
	checkRepo(t, s)
}

func TestBadInputChangesNothing(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "Readme", Path: "README.md", Content: []byte("hi\n")})
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(s.root, "out"))
	create := func(path string, content string) func() error {
		return func() error {
			_, err := s.Create(ctx, lunad.CreateSpec{Title: "t", Path: path, Content: []byte(content)})
			return err
		}
	}
	cases := []struct {
		name string
		do   func() error
		want error
		msg  string
	}{
		{"dotdot", create("../x.md", "x"), lunad.ErrInvalid, ".."},
		{"inner dotdot", create("a/../../x.md", "x"), lunad.ErrInvalid, "not clean"},
		{"absolute", create("/etc/passwd", "x"), lunad.ErrInvalid, "absolute"},
		{"git dir", create(".git/config", "x"), lunad.ErrInvalid, ".git"},
		{"GIT dir", create(".GIT/config", "x"), lunad.ErrInvalid, ".git"},
		{"git dir trailing space", create(".git /x", "x"), lunad.ErrInvalid, ".git"},
		{"git short name", create("GIT~1/x", "x"), lunad.ErrInvalid, ".git"},
		{"nested git", create("a/.git/x", "x"), lunad.ErrInvalid, ".git"},
		{"git with NTFS stream", create(".git::$INDEX_ALLOCATION/x", "x"), lunad.ErrInvalid, ".git"},
		{"git with HFS+ ignorable", create(".g\u200cit/x", "x"), lunad.ErrInvalid, ".git"},
		{"colon", create("notes:v2.md", "x"), lunad.ErrInvalid, "colon"},
		{"luna dir", create(".luna/x.md", "x"), lunad.ErrInvalid, ".luna"},
		{"nul", create("a\x00b.md", "x"), lunad.ErrInvalid, "NUL"},
		{"newline", create("a\nb.md", "x"), lunad.ErrInvalid, "control"},
		{"backslash", create(`a\b.md`, "x"), lunad.ErrInvalid, "backslash"},
		{"case collision", create("readme.md", "x"), lunad.ErrExists, "case-insensitive"},
		{"exists", create("README.md", "x"), lunad.ErrExists, "already tracked"},
		{"symlink out", create("out/x.md", "x"), lunad.ErrInvalid, "symlink"},
		{"binary", create("bin.txt", "a\x00b"), lunad.ErrInvalid, "binary"},
		{"invalid utf8", create("bad.txt", "ok\n\xff\xfe"), lunad.ErrInvalid, "line 2"},
		{"huge message", func() error {
			_, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{Message: strings.Repeat("m", 20000)}, replace("hi", "ho"))
			return err
		}, lunad.ErrInvalid, "limit"},
		{"forged trailer", func() error {
			_, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{Message: "x\n\nLuna-Op: create"}, replace("hi", "ho"))
			return err
		}, lunad.ErrInvalid, "trailer"},
		{"agent with newline", func() error {
			_, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{Agent: "a\nb"}, replace("hi", "ho"))
			return err
		}, lunad.ErrInvalid, "agent"},
		{"unknown id", func() error {
			_, err := s.Edit(ctx, "zzzzzzzz", lunad.Change{}, replace("hi", "ho"))
			return err
		}, lunad.ErrNotFound, "zzzzzzzz"},
		{"stale base", func() error {
			_, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{BaseVersion: 7}, replace("hi", "ho"))
			return err
		}, lunad.ErrConflict, "version 1 but the edit was made against version 7"},
		{"no change", func() error {
			_, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("hi", "hi"))
			return err
		}, lunad.ErrNotApplied, "changes nothing"},
		{"apply fails", func() error {
			_, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("absent", "x"))
			return err
		}, lunad.ErrNotApplied, "absent"},
		{"move into git", func() error {
			_, err := s.Move(ctx, r.Artifact.ID, ".git/hooks/x", lunad.Change{})
			return err
		}, lunad.ErrInvalid, ".git"},
		{"bad branch", func() error {
			_, err := s.Branch(ctx, "a..b", "")
			return err
		}, lunad.ErrInvalid, "branch name"},
		{"unknown branch", func() error {
			_, err := s.Switch(ctx, "nope")
			return err
		}, lunad.ErrNotFound, "nope"},
	}
	head := git(t, s.root, "rev-parse", "HEAD")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.do()
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want %v mentioning %q", err, c.want, c.msg)
			}
			if h := git(t, s.root, "rev-parse", "HEAD"); h != head {
				t.Fatalf("HEAD moved to %s", h)
			}
		})
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Fatalf("wrote outside the workspace: %v", entries)
	}
	os.Remove(filepath.Join(s.root, "out"))
	checkRepo(t, s)
}

func TestHumanChangesCommittedFirst(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "c", Path: "c.py", Content: []byte("a = 1\nb = 2\n")})
	writeFile(t, s.root, "c.py", "a = 1\nb = 2\nc = 3\n") // a person types, unsaved in git
	res, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{Agent: "coder"}, replace("a = 1", "a = 10"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Version.Number != 3 {
		t.Fatalf("version %d, want 3 (human edit is v2)", res.Version.Number)
	}
	hist, _ := s.History(ctx, r.Artifact.ID)
	if hist[1].Op != lunad.OpHuman || hist[1].Agent != "Ada" {
		t.Fatalf("v2 %+v", hist[1])
	}
	if got := versions(t, s, r.Artifact.ID); got[1] != "a = 1\nb = 2\nc = 3\n" || got[2] != "a = 10\nb = 2\nc = 3\n" {
		t.Fatalf("versions %q", got)
	}
	// With a stale base version, neither the human nor the agent commit lands.
	writeFile(t, s.root, "c.py", "changed by hand\n")
	head := git(t, s.root, "rev-parse", "HEAD")
	if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{BaseVersion: 3}, replace("hand", "agent")); !errors.Is(err, lunad.ErrConflict) {
		t.Fatalf("want conflict, got %v", err)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Fatal("HEAD moved on a conflict")
	}
	if b, _ := os.ReadFile(filepath.Join(s.root, "c.py")); string(b) != "changed by hand\n" {
		t.Fatalf("person's change lost: %q", b)
	}
	// A file deleted by hand is not taken for an edit: the edit is refused.
	os.Remove(filepath.Join(s.root, "c.py"))
	if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("a", "b")); !errors.Is(err, lunad.ErrDirty) || !strings.Contains(err.Error(), "git checkout -- c.py") {
		t.Fatalf("edit of a deleted file: %v", err)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Fatal("HEAD moved for a deleted file")
	}
}

// currentContent is an artifact's content at HEAD, checked against its
// file in the working tree.
func currentContent(t *testing.T, s *Store, id, file string) string {
	t.Helper()
	b, _, err := s.Read(context.Background(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	disk, _ := os.ReadFile(filepath.Join(s.root, file))
	if string(disk) != string(b) {
		t.Fatalf("working tree %q, HEAD %q", disk, b)
	}
	return string(b)
}

// TestFailedRefUpdateKeepsHumanChange: an operation that first commits a
// person's change (Archive here) and then cannot move the branch (git
// holds its lock) fails, and the person's file is never put back to HEAD
// by a later index sync or recovery.
func TestFailedRefUpdateKeepsHumanChange(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.txt", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(s.root, "n.txt")
	if err := os.WriteFile(file, []byte("typed by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(s.root, ".git", "refs", "heads", "main.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Archive(ctx, r.Artifact.ID, lunad.Change{}); !errors.Is(err, lunad.ErrLocked) {
		t.Fatalf("archive while git holds the branch lock: %v", err)
	}
	os.Remove(lock)
	if err := s.Close(); err != nil { // syncs the git index
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(file); string(got) != "typed by hand\n" {
		t.Fatalf("the person's change was reverted: %q", got)
	}
	s2, err := Open(s.root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := s2.Archive(ctx, r.Artifact.ID, lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	h, _ := s2.History(ctx, r.Artifact.ID)
	if len(h) != 3 || h[1].Op != lunad.OpHuman {
		t.Fatalf("history %+v, want create, human, archive", h)
	}
	if got, _ := os.ReadFile(file); string(got) != "typed by hand\n" {
		t.Fatalf("after the retry: %q", got)
	}
}
