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

// runWorkspace is a workspace with an artifact, and, committed by hand
// with git, an executable script, a symbolic link, a non-artifact file and
// a submodule entry: every kind of tree entry a checkout writes. It
// returns the store and HEAD's commit.
func runWorkspace(t *testing.T) (*Store, string) {
	t.Helper()
	s := newStore(t)
	if _, err := s.Create(context.Background(), lunad.CreateSpec{Title: "A", Path: "notes/a.md", Content: []byte("# A\n\nfirst\n")}); err != nil {
		t.Fatal(err)
	}
	checkRepo(t, s) // the index follows: the commit by hand keeps the artifact
	writeFile(t, s.root, "bin/run.sh", "#!/bin/sh\necho run\n")
	if err := os.Chmod(filepath.Join(s.root, "bin/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("notes/a.md", filepath.Join(s.root, "link")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, s.root, "data.bin", "\x00\x01binary")
	git(t, s.root, "add", "bin/run.sh", "link", "data.bin")
	git(t, s.root, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,sub")
	if err := os.Mkdir(filepath.Join(s.root, "sub"), 0o755); err != nil { // as git leaves a submodule not checked out
		t.Fatal(err)
	}
	git(t, s.root, "commit", "-q", "-m", "by hand")
	return s, strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD"))
}

// checkWorktree asserts what git says of lunad's worktree at dir on
// branch: listed by `git worktree list` (not prunable), `git status`
// clean there, fsck clean.
func checkWorktree(t *testing.T, main, dir, branch string) {
	t.Helper()
	list := git(t, main, "worktree", "list", "--porcelain")
	want := "worktree " + dir + "\nHEAD "
	i := strings.Index(list, want)
	if i < 0 {
		t.Fatalf("git worktree list does not list %s:\n%s", dir, list)
	}
	entry, _, _ := strings.Cut(list[i:], "\n\n")
	if !strings.Contains(entry, "\nbranch refs/heads/"+branch) || strings.Contains(entry, "prunable") || strings.Contains(entry, "locked") {
		t.Fatalf("git worktree list:\n%s", entry)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status in the worktree:\n%s", st)
	}
	if got := strings.TrimSpace(git(t, dir, "rev-parse", "--abbrev-ref", "HEAD")); got != branch {
		t.Fatalf("the worktree is on %s, want %s", got, branch)
	}
	git(t, main, "fsck", "--strict", "--no-progress")
}

// TestAddWorktree: lunad's own linked worktree is one git recognises —
// listed, clean, fsck clean — with every kind of file checked out; a store
// opened there commits on the run's branch and leaves the main checkout
// alone; a worktree removed by hand or left half-made by a crash is made
// again from the branch; removing it and deleting the branch leave
// nothing behind.
func TestAddWorktree(t *testing.T) {
	ctx := context.Background()
	s, base := runWorkspace(t)
	const branch = "luna/w/r1"
	dir, made, err := s.AddWorktree(ctx, "r1", branch, base)
	if err != nil || !made {
		t.Fatalf("AddWorktree = %s %v %v", dir, made, err)
	}
	if want := filepath.Join(s.root, ".git", "luna", "worktrees", "r1"); dir != want || s.WorktreeDir("r1") != want {
		t.Fatalf("dir %s, want %s", dir, want)
	}
	checkWorktree(t, s.root, dir, branch)
	if fi, err := os.Stat(filepath.Join(dir, "bin/run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("bin/run.sh: %v %v", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "link")); err != nil || target != "notes/a.md" {
		t.Fatalf("link → %q %v", target, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "sub")); err != nil || !fi.IsDir() {
		t.Fatalf("submodule dir: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "data.bin")); string(b) != "\x00\x01binary" {
		t.Fatalf("data.bin: %q", b)
	}
	if got := strings.TrimSpace(git(t, s.root, "rev-parse", branch)); got != base {
		t.Fatalf("%s at %s, want %s", branch, got, base)
	}
	if _, made, err := s.AddWorktree(ctx, "r1", branch, base); err != nil || made {
		t.Fatalf("AddWorktree again: made %v, %v; want kept", made, err)
	}
	// The worktree's store starts with the history cache of the main one.
	mainCache, _ := os.ReadFile(filepath.Join(s.lunaDir, "commits"))
	if seeded, err := os.ReadFile(filepath.Join(s.adminDir("r1"), "luna", "commits")); err != nil || len(mainCache) == 0 || string(seeded) != string(mainCache) {
		t.Fatalf("history cache of the worktree: %d bytes, %v; the main one's %d bytes", len(seeded), err, len(mainCache))
	}

	w, err := s.OpenWorktree("r1")
	if err != nil {
		t.Fatal(err)
	}
	_, commit, _, err := w.ApplyWrites(ctx, []lunad.StageWrite{{Path: "notes/a.md", Content: "# A\n\nsecond\n"}, {Path: "notes/b.md", Content: "# B\n"}},
		lunad.Change{Agent: "coder", Extra: map[string]string{"Run": "r1"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := git(t, s.root, "log", "--format=%s|%an", base+".."+branch); got != "write notes/a.md, notes/b.md|coder\n" {
		t.Fatalf("git log %s:\n%s", branch, got)
	}
	if got := strings.TrimSpace(git(t, s.root, "rev-parse", branch)); got != commit {
		t.Fatalf("%s at %s, want the write %s", branch, got, commit)
	}
	checkWorktree(t, s.root, dir, branch)
	// The main checkout: its branch, files and index as they were.
	if got := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD")); got != base {
		t.Fatalf("main moved to %s", got)
	}
	checkRepo(t, s)
	if _, err := os.Stat(filepath.Join(s.root, "notes/b.md")); !os.IsNotExist(err) {
		t.Fatalf("notes/b.md in the main checkout: %v", err)
	}
	// The main store reads the run's artifact at the run's commit.
	if b, a, err := s.Read(ctx, "notes/b.md", commit); err != nil || string(b) != "# B\n" || a.Path != "notes/b.md" {
		t.Fatalf("Read(notes/b.md, %s) = %q %+v %v", commit, b, a, err)
	}
	if _, _, err := s.Read(ctx, "notes/b.md", ""); !errors.Is(err, lunad.ErrNotFound) {
		t.Fatalf("Read(notes/b.md) on main: %v", err)
	}

	// Removed by hand, and a crash's leftovers beside it: made again from
	// the branch's tip, without a base.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(s.worktreesDir(), ".new-r1-crashed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if list := git(t, s.root, "worktree", "list"); !strings.Contains(list, "prunable") {
		t.Fatalf("git worktree list after the removal:\n%s", list)
	}
	if _, made, err := s.AddWorktree(ctx, "r1", branch, ""); err != nil || !made {
		t.Fatalf("AddWorktree after removal: made %v, %v", made, err)
	}
	checkWorktree(t, s.root, dir, branch)
	if b, _ := os.ReadFile(filepath.Join(dir, "notes/b.md")); string(b) != "# B\n" {
		t.Fatalf("notes/b.md in the remade worktree: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(s.worktreesDir(), ".new-*")); len(left) != 0 {
		t.Fatalf("left over: %v", left)
	}

	// A repository moved elsewhere: git's admin dir names the old place;
	// lunad knows its own worktree there and makes it again here.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, s.adminDir("r1"), "gitdir", "/old/place/.git/luna/worktrees/r1/.git\n")
	if _, made, err := s.AddWorktree(ctx, "r1", branch, ""); err != nil || !made {
		t.Fatalf("AddWorktree after a move: made %v, %v", made, err)
	}
	checkWorktree(t, s.root, dir, branch)

	if err := s.RemoveWorktree(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBranch(ctx, branch); err != nil {
		t.Fatal(err)
	}
	if list := git(t, s.root, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Fatalf("git worktree list after RemoveWorktree:\n%s", list)
	}
	for _, p := range []string{dir, s.adminDir("r1"), filepath.Join(s.commonDir, "refs", "heads", "luna")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	if got := git(t, s.root, "branch", "--list", "luna/*"); got != "" {
		t.Fatalf("branches left: %s", got)
	}
	// Both again: nothing to do.
	if err := s.RemoveWorktree(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBranch(ctx, branch); err != nil {
		t.Fatal(err)
	}
	git(t, s.root, "fsck", "--strict", "--no-progress")
}

// TestAddWorktreeRefused: what AddWorktree will not do, and the error
// that says so.
func TestAddWorktreeRefused(t *testing.T) {
	ctx := context.Background()
	s, base := runWorkspace(t)
	git(t, s.root, "branch", "luna")
	if _, _, err := s.AddWorktree(ctx, "r0", "w/r0", base); err != nil {
		t.Fatal(err)
	}
	git(t, s.WorktreeDir("r0"), "switch", "-q", "-c", "elsewhere")
	for _, c := range []struct {
		name, wt, branch, base string
		want                   error
		says                   string
	}{
		{"bad name", "../x", "luna/w/x", base, lunad.ErrInvalid, "plain name"},
		{"bad branch", "r1", "luna/w/x..y", base, lunad.ErrInvalid, "may not contain '..'"},
		{"bad base", "r1", "w/r1", "main", lunad.ErrInvalid, "not a commit hash"},
		{"no branch, no base", "r1", "w/r1", "", lunad.ErrNotFound, "branch w/r1"},
		{"taken by another worktree", "r1", "elsewhere", "", lunad.ErrConflict, "is checked out in " + s.WorktreeDir("r0")},
		{"name under a branch", "r1", "luna/w/r1", base, lunad.ErrExists, "branch luna exists"},
		{"checked out in main", "r1", "main", "", lunad.ErrConflict, "is checked out in " + s.root},
		{"switched by hand", "r0", "w/r0", "", lunad.ErrConflict, "switch it back"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := s.AddWorktree(ctx, c.wt, c.branch, c.base)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("AddWorktree = %v; want %v saying %q", err, c.want, c.says)
			}
		})
	}
	if err := os.MkdirAll(s.adminDir("r2"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, s.adminDir("r2"), "gitdir", "/elsewhere/r2/.git\n")
	if _, _, err := s.AddWorktree(ctx, "r2", "w/r2", base); !errors.Is(err, lunad.ErrExists) || !strings.Contains(err.Error(), "/elsewhere/r2") {
		t.Fatalf("AddWorktree over git's worktree r2: %v", err)
	}
	if err := s.DeleteBranch(ctx, "main"); !errors.Is(err, lunad.ErrConflict) {
		t.Fatalf("DeleteBranch(main) = %v", err)
	}
	if err := s.DeleteBranch(ctx, "elsewhere"); !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), s.WorktreeDir("r0")) {
		t.Fatalf("DeleteBranch(elsewhere) = %v", err)
	}
}

// TestDeleteBranchPacked: a branch git packed is deleted from packed-refs,
// its peeled line and reflog with it.
func TestDeleteBranchPacked(t *testing.T) {
	s, _ := runWorkspace(t)
	git(t, s.root, "branch", "luna/w/p")
	git(t, s.root, "tag", "-a", "-m", "t", "v1")
	git(t, s.root, "pack-refs", "--all")
	if err := os.MkdirAll(filepath.Join(s.commonDir, "logs", "refs", "heads", "luna", "w"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, s.commonDir, "logs/refs/heads/luna/w/p", "reflog\n")
	if err := s.DeleteBranch(context.Background(), "luna/w/p"); err != nil {
		t.Fatal(err)
	}
	if got := git(t, s.root, "for-each-ref", "--format=%(refname)"); strings.Contains(got, "luna/w/p") || !strings.Contains(got, "refs/tags/v1") || !strings.Contains(got, "refs/heads/main") {
		t.Fatalf("refs after the deletion:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(s.commonDir, "logs", "refs", "heads", "luna")); !os.IsNotExist(err) {
		t.Fatalf("reflog left: %v", err)
	}
	git(t, s.root, "fsck", "--strict", "--no-progress")
}

// TestFastForward: the branch a run was made from moves to the run's
// branch tip — its working tree and index following when it is checked
// out — and only when it is still where the run started.
func TestFastForward(t *testing.T) {
	ctx := context.Background()
	// setup makes a run's branch from main with one write on it, and
	// returns the store, the base and the run branch's tip.
	setup := func(t *testing.T) (*Store, string, string) {
		s, base := runWorkspace(t)
		if _, err := s.Branch(ctx, "luna/w/r", base); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.AddWorktree(ctx, "r", "luna/w/r", ""); err != nil {
			t.Fatal(err)
		}
		w, err := s.OpenWorktree("r")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		_, tip, _, err := w.ApplyWrites(ctx, []lunad.StageWrite{{Path: "notes/a.md", Content: "# A\n\nby the run\n"}, {Path: "notes/new.md", Content: "new\n"}}, lunad.Change{Agent: "coder"})
		if err != nil {
			t.Fatal(err)
		}
		return s, base, tip
	}
	t.Run("checked out", func(t *testing.T) {
		s, base, tip := setup(t)
		b, err := s.FastForward(ctx, "main", base, "luna/w/r")
		if err != nil {
			t.Fatal(err)
		}
		if b.Name != "main" || b.Commit != tip || !b.Current {
			t.Fatalf("FastForward = %+v, want main at %s", b, tip)
		}
		if got := git(t, s.root, "log", "--format=%s", "-2", "main"); got != "write notes/a.md, notes/new.md\nby hand\n" {
			t.Fatalf("git log main:\n%s", got)
		}
		if c, _ := os.ReadFile(filepath.Join(s.root, "notes/new.md")); string(c) != "new\n" {
			t.Fatalf("notes/new.md: %q", c)
		}
		if c, _ := os.ReadFile(filepath.Join(s.root, "notes/a.md")); string(c) != "# A\n\nby the run\n" {
			t.Fatalf("notes/a.md: %q", c)
		}
		checkRepo(t, s)
		if b, a, err := s.Read(ctx, "notes/new.md", ""); err != nil || string(b) != "new\n" || a.Version != 1 {
			t.Fatalf("Read after the fast-forward: %q %+v %v", b, a, err)
		}
		again, err := s.FastForward(ctx, "main", base, "luna/w/r")
		if err != nil || again.Commit != tip {
			t.Fatalf("FastForward again = %+v %v", again, err)
		}
	})
	t.Run("not checked out", func(t *testing.T) {
		s, base, tip := setup(t)
		if _, err := s.Branch(ctx, "other", base); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Switch(ctx, "other"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FastForward(ctx, "main", base, "luna/w/r"); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(git(t, s.root, "rev-parse", "main")); got != tip {
			t.Fatalf("main at %s, want %s", got, tip)
		}
		if _, err := os.Stat(filepath.Join(s.root, "notes/new.md")); !os.IsNotExist(err) {
			t.Fatalf("the checkout of other changed: %v", err)
		}
		checkRepo(t, s)
	})
	t.Run("moved", func(t *testing.T) {
		s, base, _ := setup(t)
		moved, err := s.Create(ctx, lunad.CreateSpec{Title: "M", Path: "m.md", Content: []byte("m\n")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.FastForward(ctx, "main", base, "luna/w/r")
		var bm *lunad.BranchMovedError
		if !errors.As(err, &bm) || !errors.Is(err, lunad.ErrConflict) {
			t.Fatalf("FastForward after main moved = %v", err)
		}
		if *bm != (lunad.BranchMovedError{Branch: "main", Base: base, Now: moved.Version.Commit, RunBranch: "luna/w/r"}) {
			t.Fatalf("%+v", *bm)
		}
		if got := strings.TrimSpace(git(t, s.root, "rev-parse", "main")); got != moved.Version.Commit {
			t.Fatalf("main at %s", got)
		}
	})
	t.Run("moved by a person's save of the same file", func(t *testing.T) {
		// The run rewrote notes/a.md; meanwhile a person saved it and the
		// watcher recorded the save. Accepting must not put the run's
		// version over the person's: it is refused, naming both commits.
		s, base, _ := setup(t)
		writeFile(t, s.root, "notes/a.md", "# A\n\nfirst, and the person's line\n")
		saved, recorded, err := s.Record(ctx, "notes/a.md", lunad.Change{})
		if err != nil || !recorded {
			t.Fatalf("Record: %v %v", recorded, err)
		}
		_, err = s.FastForward(ctx, "main", base, "luna/w/r")
		var bm *lunad.BranchMovedError
		if !errors.As(err, &bm) || bm.Now != saved.Version.Commit || bm.Base != base {
			t.Fatalf("FastForward over the person's save = %v", err)
		}
		if c, _ := os.ReadFile(filepath.Join(s.root, "notes/a.md")); string(c) != "# A\n\nfirst, and the person's line\n" {
			t.Fatalf("the person's save was lost: %q", c)
		}
		checkRepo(t, s)
	})
	t.Run("dirty", func(t *testing.T) {
		s, base, _ := setup(t)
		writeFile(t, s.root, "notes/a.md", "# A\n\nmine, unsaved\n")
		_, err := s.FastForward(ctx, "main", base, "luna/w/r")
		if !errors.Is(err, lunad.ErrDirty) || !strings.Contains(err.Error(), "fast-forwarding main would overwrite notes/a.md") {
			t.Fatalf("FastForward over a change = %v", err)
		}
		if got := strings.TrimSpace(git(t, s.root, "rev-parse", "main")); got != base {
			t.Fatalf("main moved to %s", got)
		}
		if c, _ := os.ReadFile(filepath.Join(s.root, "notes/a.md")); string(c) != "# A\n\nmine, unsaved\n" {
			t.Fatalf("the change was lost: %q", c)
		}
	})
	t.Run("not descending", func(t *testing.T) {
		s, base, _ := setup(t)
		git(t, s.root, "branch", "orphan", base+"~1")
		_, err := s.FastForward(ctx, "main", base, "orphan")
		if !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), "does not descend from") {
			t.Fatalf("FastForward to a commit not after base = %v", err)
		}
	})
	t.Run("unknown branch", func(t *testing.T) {
		s, base, _ := setup(t)
		var nf *lunad.NotFoundError
		if _, err := s.FastForward(ctx, "gone", base, "luna/w/r"); !errors.As(err, &nf) || nf.Ref != "gone" {
			t.Fatalf("FastForward(gone) = %v", err)
		}
	})
}

// TestUncommitted: what `git status` shows as changed or staged is
// uncommitted, artifacts or not; untracked files and lunad's own pending
// writes are not.
func TestUncommitted(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		change func(t *testing.T, s *Store)
		want   string
	}{
		{"clean", func(t *testing.T, s *Store) {}, ""},
		{"lunad's write, index not synced yet", func(t *testing.T, s *Store) {
			if _, err := s.Create(ctx, lunad.CreateSpec{Title: "N", Path: "n.md", Content: []byte("n\n")}); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"untracked", func(t *testing.T, s *Store) { writeFile(t, s.root, "scratch.txt", "x\n") }, ""},
		{"artifact edited", func(t *testing.T, s *Store) { writeFile(t, s.root, "notes/a.md", "changed\n") }, "notes/a.md"},
		{"non-artifact edited", func(t *testing.T, s *Store) { writeFile(t, s.root, "data.bin", "changed") }, "data.bin"},
		{"deleted", func(t *testing.T, s *Store) { os.Remove(filepath.Join(s.root, "bin/run.sh")) }, "bin/run.sh"},
		{"mode changed", func(t *testing.T, s *Store) { os.Chmod(filepath.Join(s.root, "bin/run.sh"), 0o644) }, "bin/run.sh"},
		{"link retargeted", func(t *testing.T, s *Store) {
			os.Remove(filepath.Join(s.root, "link"))
			os.Symlink("data.bin", filepath.Join(s.root, "link"))
		}, "link"},
		{"staged new file", func(t *testing.T, s *Store) {
			writeFile(t, s.root, "new.txt", "x\n")
			git(t, s.root, "add", "new.txt")
		}, "new.txt"},
		{"staged then reverted in the tree", func(t *testing.T, s *Store) {
			writeFile(t, s.root, "data.bin", "staged")
			git(t, s.root, "add", "data.bin")
			writeFile(t, s.root, "data.bin", "\x00\x01binary")
		}, "data.bin"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := runWorkspace(t)
			c.change(t, s)
			got, err := s.Uncommitted(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != c.want {
				t.Fatalf("Uncommitted = %q, want %q (git status:\n%s)", got, c.want, git(t, s.root, "status", "--porcelain"))
			}
		})
	}
}
