package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// listedPaths is what List shows, by path.
func listedPaths(t *testing.T, s *Store) []string {
	t.Helper()
	as, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range as {
		out = append(out, a.Path+":"+string(a.Status))
	}
	return out
}

func TestRemoveAndUndo(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte("x = 1\n")})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Artifact.ID
	s.Create(ctx, lunad.CreateSpec{Title: "other", Path: "other.md", Content: []byte("o\n")})
	if _, err := s.Edit(ctx, id, lunad.Change{}, replace("1", "2")); err != nil {
		t.Fatal(err)
	}
	rm, err := s.Remove(ctx, "config.py", lunad.Change{Message: "no longer used"})
	if err != nil {
		t.Fatal(err)
	}
	if rm.Version.Number != 3 || rm.Version.Op != lunad.OpRemove || rm.Artifact.Status != lunad.StatusRemoved {
		t.Fatalf("remove: v%d op %s status %s", rm.Version.Number, rm.Version.Op, rm.Artifact.Status)
	}
	if _, err := os.Stat(filepath.Join(s.root, "config.py")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("file still in the working tree: %v", err)
	}
	if got := git(t, s.root, "log", "-1", "--format=%s%n%(trailers:key=Luna-Op,valueonly)"); got != "remove config.py: no longer used\nremove\n\n" {
		t.Fatalf("commit: %q", got)
	}
	if got := listedPaths(t, s); !slices.Equal(got, []string{"other.md:active"}) {
		t.Fatalf("list after remove: %v", got)
	}
	a, err := s.Artifact(ctx, id)
	if err != nil || a.Status != lunad.StatusRemoved || a.Version != 3 {
		t.Fatalf("artifact by ID: %+v %v", a, err)
	}
	if _, err := s.Artifact(ctx, "config.py"); !errors.Is(err, lunad.ErrNotFound) {
		t.Fatalf("by its old path: %v", err)
	}
	_, _, err = s.Read(ctx, id, "")
	want := "not found: artifact " + id + " (config.py) was removed at v3; `lunad undo " + id + "` brings it back"
	if err == nil || err.Error() != want || !errors.Is(err, lunad.ErrNotFound) {
		t.Fatalf("read removed: %v\nwant %s", err, want)
	}
	if b, _, err := s.Read(ctx, id, "2"); err != nil || string(b) != "x = 2\n" {
		t.Fatalf("read v2 of a removed artifact: %q %v", b, err)
	}
	for name, op := range map[string]func() error{
		"edit":    func() error { _, err := s.Edit(ctx, id, lunad.Change{}, replace("2", "3")); return err },
		"archive": func() error { _, err := s.Archive(ctx, id, lunad.Change{}); return err },
		"move":    func() error { _, err := s.Move(ctx, id, "c2.py", lunad.Change{}); return err },
	} {
		if err := op(); err == nil || err.Error() != want {
			t.Errorf("%s of a removed artifact: %v", name, err)
		}
	}
	if _, err := s.Remove(ctx, id, lunad.Change{}); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("second remove: %v", err)
	}
	u, err := s.Undo(ctx, id, lunad.Change{})
	if err != nil {
		t.Fatal(err)
	}
	if u.Version.Number != 4 || u.Artifact.Status != lunad.StatusActive || u.Artifact.Path != "config.py" {
		t.Fatalf("undo: %+v", u)
	}
	if got := currentContent(t, s, id, "config.py"); got != "x = 2\n" {
		t.Fatalf("content after undo: %q", got)
	}
	if got := listedPaths(t, s); !slices.Equal(got, []string{"config.py:active", "other.md:active"}) {
		t.Fatalf("list after undo: %v", got)
	}
	// Redo removes it again; a second undo brings it back again.
	if r, err := s.Redo(ctx, id, lunad.Change{}); err != nil || r.Artifact.Status != lunad.StatusRemoved {
		t.Fatalf("redo: %+v %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(s.root, "config.py")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("redo left the file: %v", err)
	}
	undoTo(t, s, id, "config.py", "x = 2\n")
	checkRepo(t, s)
}

func TestRemovedPathReuse(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	old, _ := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.md", Content: []byte("old\n")})
	if _, err := s.Remove(ctx, "n.md", lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	nu, err := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.md", Content: []byte("new\n")})
	if err != nil {
		t.Fatalf("a new artifact at a removed one's path: %v", err)
	}
	if a, err := s.Artifact(ctx, "n.md"); err != nil || a.ID != nu.Artifact.ID {
		t.Fatalf("the path names %+v %v, want the new artifact", a, err)
	}
	// Undoing the removal would make two artifacts claim n.md.
	_, err = s.Undo(ctx, old.Artifact.ID, lunad.Change{})
	if !errors.Is(err, lunad.ErrExists) || !strings.Contains(err.Error(), "cannot restore path n.md") {
		t.Fatalf("undo onto a taken path: %v", err)
	}
	if got := listedPaths(t, s); !slices.Equal(got, []string{"n.md:active"}) {
		t.Fatalf("list: %v", got)
	}
	// Once the new one moves away, the old one comes back to its path.
	if _, err := s.Move(ctx, nu.Artifact.ID, "m.md", lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	undoTo(t, s, old.Artifact.ID, "n.md", "old\n")
	checkRepo(t, s)
}

func TestRemovedOutsideLunad(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte("x = 1\n")})
	id := r.Artifact.ID
	s.Create(ctx, lunad.CreateSpec{Title: "other", Path: "other.md", Content: []byte("o\n")})
	gitRm(t, s, "config.py")

	if got := listedPaths(t, s); !slices.Equal(got, []string{"other.md:active"}) {
		t.Fatalf("list: %v", got)
	}
	if a, err := s.Artifact(ctx, id); err != nil || a.Status != lunad.StatusRemoved {
		t.Fatalf("artifact: %+v %v", a, err)
	}
	_, _, err := s.Read(ctx, "config.py", "")
	want := "not found: the file config.py of artifact " + id + " was deleted outside lunad; `lunad rm " + id + "` records the removal, then `lunad undo " + id + "` brings it back"
	if err == nil || err.Error() != want {
		t.Fatalf("read: %v\nwant %s", err, want)
	}
	// Its path is not free until the removal is recorded: two artifacts
	// never claim one path.
	if _, err := s.Create(ctx, lunad.CreateSpec{Title: "c", Path: "config.py", Content: []byte("y\n")}); !errors.Is(err, lunad.ErrExists) {
		t.Fatalf("create at the path: %v", err)
	}
	rm, err := s.Remove(ctx, id, lunad.Change{})
	if err != nil {
		t.Fatal(err)
	}
	if rm.Version.Number != 2 || rm.Artifact.Status != lunad.StatusRemoved {
		t.Fatalf("recorded removal: %+v", rm)
	}
	undoTo(t, s, id, "config.py", "x = 1\n")
	checkRepo(t, s)
}

func TestRemoveDeletedInWorkingTree(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.md", Content: []byte("one\n")})
	id := r.Artifact.ID
	// A person's unrecorded edit is kept in history before the removal.
	if err := os.WriteFile(filepath.Join(s.root, "n.md"), []byte("typed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Remove(ctx, id, lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	h, _ := s.History(ctx, id)
	if len(h) != 3 || h[1].Op != lunad.OpHuman || h[2].Op != lunad.OpRemove {
		t.Fatalf("history: %+v", h)
	}
	undoTo(t, s, id, "n.md", "typed\n")
	// A file deleted by hand is recorded as removed.
	os.Remove(filepath.Join(s.root, "n.md"))
	if _, err := s.Remove(ctx, id, lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	if got := listedPaths(t, s); len(got) != 0 {
		t.Fatalf("list: %v", got)
	}
	checkRepo(t, s)
}

// TestRecordDeletion checks that Record takes a file the person deleted —
// in the working tree, or by a commit made outside lunad — as the
// artifact's removal, authored by the person, that undo brings back.
func TestRecordDeletion(t *testing.T) {
	for _, how := range []string{"working tree", "git rm"} {
		t.Run(how, func(t *testing.T) {
			ctx := context.Background()
			s := newStore(t)
			r, _ := s.Create(ctx, lunad.CreateSpec{Title: "c", Path: "src/c.py", Content: []byte("c = 1\n"), Change: lunad.Change{Agent: "coder"}})
			id := r.Artifact.ID
			if how == "working tree" {
				os.Remove(filepath.Join(s.root, "src", "c.py"))
			} else {
				gitRm(t, s, "src/c.py")
			}
			res, ok, err := s.Record(ctx, id, lunad.Change{})
			if err != nil || !ok {
				t.Fatalf("record: %v %v", ok, err)
			}
			if res.Version.Op != lunad.OpRemove || res.Version.Agent != "Ada" || res.Artifact.Status != lunad.StatusRemoved {
				t.Fatalf("recorded: %+v", res)
			}
			if got := git(t, s.root, "log", "-1", "--format=%an <%ae>|%s"); got != "Ada <ada@example.com>|remove src/c.py (deleted outside lunad)\n" {
				t.Fatalf("commit: %q", got)
			}
			if _, _, err := s.Record(ctx, id, lunad.Change{}); !errors.Is(err, lunad.ErrNotFound) || !strings.Contains(err.Error(), "was removed at v2") {
				t.Fatalf("record again: %v", err)
			}
			undoTo(t, s, id, "src/c.py", "c = 1\n")
			checkRepo(t, s)
		})
	}
}

// undoTo undoes the latest change of artifact id and checks that its file
// holds want.
func undoTo(t *testing.T, s *Store, id, file, want string) {
	t.Helper()
	if _, err := s.Undo(context.Background(), id, lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	if got := currentContent(t, s, id, file); got != want {
		t.Fatalf("%s after undo: %q, want %q", file, got, want)
	}
}

// gitRm removes file with git rm and commits, as a person would, after
// bringing .git/index up to date (it follows lunad's commits lazily).
func gitRm(t *testing.T, s *Store, file string) {
	t.Helper()
	s.mu.Lock()
	err := s.syncIndexLocked(context.Background())
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	git(t, s.root, "rm", "-q", file)
	git(t, s.root, "commit", "-q", "-m", "drop "+file)
}

// TestRemoveRefusesSymlink: a directory of the artifact's path replaced by
// a symlink out of the workspace makes Remove refuse, and the file the
// link reaches stays.
func TestRemoveRefusesSymlink(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, _ := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "d/n.md", Content: []byte("n\n")})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "n.md"), []byte("not lunad's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(s.root, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.root, "d")); err != nil {
		t.Fatal(err)
	}
	head := git(t, s.root, "rev-parse", "HEAD")
	if _, err := s.Remove(ctx, r.Artifact.ID, lunad.Change{}); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("remove through a symlink: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "n.md")); err != nil || string(b) != "not lunad's\n" {
		t.Fatalf("the file outside: %q %v", b, err)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Fatal("a removal was committed")
	}
}
