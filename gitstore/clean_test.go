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

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/lunad/lunad"
)

// cleanIgnore is the .gitignore the workspaces of Clean's tests commit.
const cleanIgnore = "__pycache__/\n*.log\n/build/\n!keep.log\n"

// cleanWorktree is runWorkspace with cleanIgnore committed, and a run's
// worktree on luna/w/r1 made from its tip, a store open there. It returns
// the main store, the worktree's, and the worktree's directory.
func cleanWorktree(t *testing.T) (*Store, *Store, string) {
	t.Helper()
	s, _ := runWorkspace(t)
	writeFile(t, s.root, ".gitignore", cleanIgnore)
	git(t, s.root, "add", ".gitignore")
	git(t, s.root, "commit", "-q", "-m", "ignore")
	base := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD"))
	dir, _, err := s.AddWorktree(context.Background(), "r1", "luna/w/r1", base)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.OpenWorktree("r1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return s, w, dir
}

// fileStates is what a worktree holds, for comparison: each file's kind,
// mode and content (a link's target), .git aside.
func fileStates(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case fi.IsDir():
			out[rel+"/"] = "dir"
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fi.Mode().Perm().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClean: whatever an attempt left in a run's worktree — changed,
// deleted, retyped or re-moded tracked files, new files and directories,
// staged changes, a nested repository, a link where a directory was —
// Clean puts it back to the branch's tip, exactly: the same files as a
// fresh checkout, `git status` clean, the index the tip's, fsck clean;
// ignored files stay; it reports what it restored and removed, and the
// branch does not move.
func TestClean(t *testing.T) {
	outside := t.TempDir()
	cases := []struct {
		name     string
		dirty    func(t *testing.T, dir string)
		restored []string
		removed  []string
		ignored  []string // what `git status --ignored` lists after
	}{
		{name: "clean", dirty: func(t *testing.T, dir string) {}},
		{name: "half-written tracked file", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "notes/a.md", "# A\n\nfir")
		}, restored: []string{"notes/a.md"}},
		{name: "deleted files", dirty: func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "data.bin")))
			must(t, os.RemoveAll(filepath.Join(dir, "bin")))
		}, restored: []string{"bin/run.sh", "data.bin"}},
		{name: "mode and link changed", dirty: func(t *testing.T, dir string) {
			must(t, os.Chmod(filepath.Join(dir, "bin/run.sh"), 0o644))
			must(t, os.Remove(filepath.Join(dir, "link")))
			must(t, os.Symlink("data.bin", filepath.Join(dir, "link")))
		}, restored: []string{"bin/run.sh", "link"}},
		{name: "kinds swapped", dirty: func(t *testing.T, dir string) {
			// A directory where a file was, a file where a link was, a
			// file where the submodule's directory was.
			must(t, os.Remove(filepath.Join(dir, "data.bin")))
			writeFile(t, dir, "data.bin/inner.txt", "x")
			must(t, os.Remove(filepath.Join(dir, "link")))
			writeFile(t, dir, "link", "notes/a.md")
			must(t, os.Remove(filepath.Join(dir, "sub")))
			writeFile(t, dir, "sub", "not a submodule")
		}, restored: []string{"data.bin", "link", "sub"}, removed: []string{"data.bin/"}},
		{name: "a link out of the worktree where a directory was", dirty: func(t *testing.T, dir string) {
			writeFile(t, outside, "run.sh", "outside\n")
			must(t, os.RemoveAll(filepath.Join(dir, "bin")))
			must(t, os.Symlink(outside, filepath.Join(dir, "bin")))
		}, restored: []string{"bin/run.sh"}, removed: []string{"bin"}},
		{name: "new files and directories", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "half.txt", "half")
			writeFile(t, dir, "new/deep/x.go", "package x")
			writeFile(t, dir, "notes/b.md", "# B\n")
			must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "new/pw")))
		}, removed: []string{"half.txt", "new/deep/x.go", "new/pw", "notes/b.md"}},
		{name: "ignored files stay", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "__pycache__/m.pyc", "pyc")
			writeFile(t, dir, "notes/__pycache__/n.pyc", "pyc")
			writeFile(t, dir, "build/out/bin", "elf")
			writeFile(t, dir, "run.log", "log")
			writeFile(t, dir, "keep.log", "negated: not ignored")
			writeFile(t, dir, "pkg/mod.py", "x = 1")
			writeFile(t, dir, "pkg/__pycache__/mod.pyc", "pyc")
			writeFile(t, dir, "notes/build/x", "only /build/ at the root is ignored")
		}, removed: []string{"keep.log", "notes/build/x", "pkg/mod.py"},
			ignored: []string{"__pycache__/", "build/", "notes/__pycache__/", "pkg/", "run.log"}},
		{name: "the attempt's own ignore rules do not count", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, ".gitignore", cleanIgnore+"half.txt\n")
			writeFile(t, dir, "half.txt", "half")
			writeFile(t, dir, "gen/.gitignore", "*\n")
			writeFile(t, dir, "gen/out.txt", "generated")
		}, restored: []string{".gitignore"}, removed: []string{"gen/.gitignore", "gen/out.txt", "half.txt"}},
		{name: "staged changes and a conflict", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "staged.txt", "staged")
			writeFile(t, dir, "notes/a.md", "# A\n\nstaged change\n")
			git(t, dir, "add", "staged.txt", "notes/a.md")
			blob := strings.TrimSpace(git(t, dir, "hash-object", "-w", "staged.txt"))
			gitIn(t, dir, "100644 "+blob+" 1\tboth.txt\n100644 "+blob+" 2\tboth.txt\n", "update-index", "--index-info")
		}, restored: []string{"notes/a.md"}, removed: []string{"staged.txt"}},
		{name: "a nested repository", dirty: func(t *testing.T, dir string) {
			writeFile(t, dir, "vendor/lib/x.c", "int x;")
			git(t, filepath.Join(dir, "vendor/lib"), "init", "-q")
		}, removed: []string{"vendor/lib/"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s, w, dir := cleanWorktree(t)
			want := fileStates(t, dir)
			tip := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
			c.dirty(t, dir)
			got, err := w.Clean(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Restored, c.restored) || !slices.Equal(got.Removed, c.removed) {
				t.Fatalf("Clean restored %q, removed %q; want %q, %q", got.Restored, got.Removed, c.restored, c.removed)
			}
			after := fileStates(t, dir)
			for k := range after {
				if strings.HasPrefix(k, "__pycache__") || strings.HasPrefix(k, "build") || strings.Contains(k, "/__pycache__") || k == "run.log" || k == "pkg/" {
					delete(after, k) // ignored: checked below
				}
			}
			for k, v := range want {
				if after[k] != v {
					t.Errorf("%s: %q, want %q", k, after[k], v)
				}
			}
			for k, v := range after {
				if _, ok := want[k]; !ok {
					t.Errorf("%s left: %q", k, v)
				}
			}
			if st := git(t, dir, "status", "--porcelain"); st != "" {
				t.Fatalf("git status:\n%s", st)
			}
			var ignored []string
			for _, l := range strings.Split(strings.TrimSpace(git(t, dir, "status", "--porcelain", "--ignored")), "\n") {
				if p, ok := strings.CutPrefix(l, "!! "); ok {
					ignored = append(ignored, p)
				}
			}
			if !slices.Equal(ignored, c.ignored) {
				t.Fatalf("ignored after: %q, want %q", ignored, c.ignored)
			}
			if ls, lsMain := git(t, dir, "ls-files", "-s"), git(t, dir, "ls-tree", "-r", "HEAD"); strings.Count(ls, "\n") != strings.Count(lsMain, "\n") {
				t.Fatalf("index:\n%s\ntip:\n%s", ls, lsMain)
			}
			if got := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")); got != tip {
				t.Fatalf("the branch moved: %s → %s", tip, got)
			}
			if got.Changed() != (len(c.restored)+len(c.removed) > 0) {
				t.Fatalf("Changed() = %v", got.Changed())
			}
			if _, err := os.Stat(filepath.Join(outside, "run.sh")); err == nil {
				if b, _ := os.ReadFile(filepath.Join(outside, "run.sh")); string(b) != "outside\n" {
					t.Fatalf("Clean wrote through the link, out of the worktree: %q", b)
				}
			}
			// Again: nothing left to do.
			if again, err := w.Clean(ctx); err != nil || again.Changed() || again.Index {
				t.Fatalf("Clean again: %+v %v", again, err)
			}
			git(t, s.root, "fsck", "--strict", "--no-progress")
		})
	}
}

// TestCleanKeepsHandCommits: a person committed on the run's branch, by
// hand in its worktree, and left more changes: Clean restores only the
// paths that differ from that commit — the tip as it is, not as the run
// left it —, leaves every other file as it is (same inode), and the
// commit stays.
func TestCleanKeepsHandCommits(t *testing.T) {
	ctx := context.Background()
	s, w, dir := cleanWorktree(t)
	writeFile(t, dir, "notes/a.md", "# A\n\nby hand\n")
	git(t, dir, "commit", "-q", "-am", "by hand on the run's branch")
	tip := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
	writeFile(t, dir, "data.bin", "half")
	writeFile(t, dir, "scratch.txt", "x")
	var before syscall.Stat_t
	must(t, syscall.Lstat(filepath.Join(dir, "notes/a.md"), &before))
	got, err := w.Clean(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Restored, []string{"data.bin"}) || !slices.Equal(got.Removed, []string{"scratch.txt"}) {
		t.Fatalf("Clean: %+v", got)
	}
	if head := strings.TrimSpace(git(t, s.root, "rev-parse", "luna/w/r1")); head != tip {
		t.Fatalf("the branch is at %s, want the commit by hand %s", head, tip)
	}
	var after syscall.Stat_t
	must(t, syscall.Lstat(filepath.Join(dir, "notes/a.md"), &after))
	if after.Ino != before.Ino || after.Mtim != before.Mtim {
		t.Fatal("notes/a.md, which matched the tip, was rewritten")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes/a.md")); string(b) != "# A\n\nby hand\n" {
		t.Fatalf("notes/a.md: %q", b)
	}
	checkWorktree(t, s.root, dir, "luna/w/r1")
}

// TestCleanThenWrite: after Clean, the worktree's store commits a stage's
// writes alone: the dead attempt's change to an artifact is not committed
// first as a person's version, as it would be without Clean.
func TestCleanThenWrite(t *testing.T) {
	for _, clean := range []bool{true, false} {
		t.Run(map[bool]string{true: "cleaned", false: "not cleaned"}[clean], func(t *testing.T) {
			ctx := context.Background()
			s, w, dir := cleanWorktree(t)
			tip := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
			writeFile(t, dir, "notes/a.md", "# A\n\nhalf of a dead attempt")
			if clean {
				if _, err := w.Clean(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, _, err := w.ApplyWrites(ctx, []lunad.StageWrite{{Path: "notes/a.md", Content: "# A\n\nthe attempt's\n"}}, lunad.Change{Agent: "coder"}); err != nil {
				t.Fatal(err)
			}
			log := git(t, s.root, "log", "--format=%an", tip+"..luna/w/r1")
			want := "coder\n"
			if !clean {
				want = "coder\nAda\n" // the half-change, committed as a person's
			}
			if log != want {
				t.Fatalf("commits on the run's branch by: %q, want %q", log, want)
			}
			checkWorktree(t, s.root, dir, "luna/w/r1")
		})
	}
}

// TestCleanRefused: Clean works only in lunad's run worktrees: in the
// user's checkout it changes nothing and says what to do instead.
func TestCleanRefused(t *testing.T) {
	s, _, _ := cleanWorktree(t)
	writeFile(t, s.root, "mine.txt", "the user's")
	_, err := s.Clean(context.Background())
	if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "not one of lunad's run worktrees") || !strings.Contains(err.Error(), "git clean") {
		t.Fatalf("Clean of the main checkout: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.root, "mine.txt")); err != nil {
		t.Fatal(err)
	}
	_, w, _ := cleanWorktree(t)
	w.Close()
	if _, err := w.Clean(context.Background()); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("Clean of a closed store: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzIgnoreRules: Clean reads the tip's .gitignore files, which are any
// bytes a run committed: parsing and matching them never panics, and a
// plain path named by an anchored pattern at the end is ignored, whatever
// came before it.
func FuzzIgnoreRules(f *testing.F) {
	for _, seed := range [][2]string{
		{cleanIgnore, "build/x"},
		{"*.pyc\n!keep.pyc\n# comment\n\n\\#lit\n", "a/keep.pyc"},
		{"[a-\n**/\n/**/x\na/**/b\n\\ \n!\n/\n", "a/b/c"},
		{"\xff\xfe\r\n*\r\n", "x"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, text, rel string) {
		c := &cleaner{ignores: nil}
		if ps := parseIgnores([]byte(text), []string{"sub"}); len(ps) > 0 {
			c.ignores = gitignore.NewMatcher(ps)
		}
		c.ignored("sub/"+rel, false)
		c.ignored("sub/"+rel, true)
		plain := rel != "" && !strings.HasPrefix(rel, "/") && !strings.HasSuffix(rel, "/") && !strings.Contains(rel, "//")
		for _, r := range rel {
			plain = plain && (r == '/' || r == '.' || r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}
		if !plain || slices.Contains(strings.Split(rel, "/"), ".") || slices.Contains(strings.Split(rel, "/"), "..") {
			return
		}
		c.ignores = gitignore.NewMatcher(parseIgnores([]byte(text+"\n/"+rel+"\n"), []string{"sub"}))
		if !c.ignored("sub/"+rel, false) {
			t.Fatalf("%q is not ignored after the pattern /%s", rel, rel)
		}
	})
}
