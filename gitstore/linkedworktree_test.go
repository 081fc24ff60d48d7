package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/gitdir"
)

// linkedWorktree makes a workspace (its main checkout's store, with one
// artifact) and a linked worktree of it on a new branch, made by `git
// worktree add`; it returns the main store and the worktree's path.
func linkedWorktree(t *testing.T, branch string) (*Store, string) {
	t.Helper()
	s := newStore(t)
	if _, err := s.Create(context.Background(), lunad.CreateSpec{Title: "Shared", Path: "shared.md", Content: []byte("# Shared\n\nfrom main\n")}); err != nil {
		t.Fatal(err)
	}
	checkRepo(t, s) // the main checkout's index follows
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, s.root, "worktree", "add", "-q", "-b", branch, wt)
	return s, wt
}

// openWorktree opens a store in a linked worktree; its artifact IDs
// (b0000001, …) differ from the main store's.
func openWorktree(t *testing.T, dir string) *Store {
	t.Helper()
	opts := testOptions()
	var mu sync.Mutex
	n := 0
	opts.NewID = func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("b%07d", n)
	}
	w, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// In a linked `git worktree` (.git is a file naming
// <main>/.git/worktrees/NAME) every package finds the same checkout — the
// linked one, never the repository it links to — and the store works
// there: its HEAD and index are the worktree's, the objects and branches
// the repository's, its state (lock, pending list, caches) in the
// worktree's own git dir. Writes land on the worktree's branch and leave
// the main checkout's branch, index and files alone.
func TestLinkedWorktree(t *testing.T) {
	ctx := context.Background()
	s, wt := linkedWorktree(t, "feature")
	main := s.Root()
	mainTip := git(t, main, "rev-parse", "main")
	mainIndex, err := os.ReadFile(filepath.Join(main, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(wt, "docs")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	wtReal, _ := filepath.EvalSymlinks(wt)
	for _, dir := range []string{wt, sub} {
		co, err := gitdir.Find(dir)
		if err != nil {
			t.Fatalf("gitdir.Find(%s): %v", dir, err)
		}
		if r, _ := filepath.EvalSymlinks(co.Root); r != wtReal {
			t.Fatalf("gitdir.Find(%s).Root = %s, want the linked checkout %s", dir, co.Root, wt)
		}
		if want := filepath.Join(main, ".git", "worktrees", "wt"); co.GitDir != want || co.CommonDir != filepath.Join(main, ".git") || !co.Linked() {
			t.Fatalf("gitdir.Find(%s) = %+v, want git dir %s, common dir %s/.git", dir, co, want, main)
		}
	}
	if co, err := gitdir.Find(filepath.Join(main, ".luna")); err != nil || co.Root != main || co.Linked() || co.GitDir != filepath.Join(main, ".git") {
		t.Fatalf("gitdir.Find in the main checkout = %+v, %v", co, err)
	}

	w := openWorktree(t, sub)
	if r, _ := filepath.EvalSymlinks(w.Root()); r != wtReal {
		t.Fatalf("Root() = %s, want %s", w.Root(), wt)
	}
	if want := filepath.Join(main, ".git", "worktrees", "wt", "luna", "cache"); w.CacheDir() != want {
		t.Fatalf("CacheDir() = %s, want %s", w.CacheDir(), want)
	}
	created, err := w.Create(ctx, lunad.CreateSpec{Title: "Feature notes", Path: "docs/feature.md", Content: []byte("# Feature\n\nfirst\n"), Change: lunad.Change{Agent: "writer"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Edit(ctx, created.Artifact.ID, lunad.Change{Agent: "coder", Message: "second"}, replace("first", "second")); err != nil {
		t.Fatal(err)
	}
	edited, err := w.Edit(ctx, "shared.md", lunad.Change{Agent: "coder"}, replace("from main", "from the worktree"))
	if err != nil {
		t.Fatal(err)
	}
	if branch, commit, err := w.Head(); err != nil || branch != "feature" || commit != edited.Version.Commit {
		t.Fatalf("Head() = %s %s %v, want feature at %s", branch, commit, err, edited.Version.Commit)
	}
	checkRepo(t, w) // fsck --strict, and `git status` in the worktree clean
	if got := git(t, wt, "log", "-3", "--format=%s"); got != "edit shared.md\nedit docs/feature.md: second\ncreate docs/feature.md\n" {
		t.Fatalf("git log in the worktree:\n%s", got)
	}
	if got := git(t, wt, "rev-parse", "HEAD"); strings.TrimSpace(got) != edited.Version.Commit {
		t.Fatalf("worktree HEAD %s, want %s", got, edited.Version.Commit)
	}
	if got, _ := os.ReadFile(filepath.Join(wt, "shared.md")); string(got) != "# Shared\n\nfrom the worktree\n" {
		t.Fatalf("worktree file: %q", got)
	}
	for _, name := range []string{"lock", "pending", "commits", historySnapName} {
		if _, err := os.Stat(filepath.Join(main, ".git", "worktrees", "wt", "luna", name)); err != nil {
			t.Errorf("worktree state %s: %v", name, err)
		}
	}

	// The main checkout: branch, index and files untouched.
	if got := git(t, main, "rev-parse", "main"); got != mainTip {
		t.Fatalf("main moved: %s → %s", mainTip, got)
	}
	if b, _ := os.ReadFile(filepath.Join(main, ".git", "index")); string(b) != string(mainIndex) {
		t.Fatal("the main checkout's index changed")
	}
	if st := git(t, main, "status", "--porcelain"); st != "" {
		t.Fatalf("git status in the main checkout:\n%s", st)
	}
	if got, _ := os.ReadFile(filepath.Join(main, "shared.md")); string(got) != "# Shared\n\nfrom main\n" {
		t.Fatalf("main file: %q", got)
	}
	// The branches are shared: the main store sees the worktree's.
	branches, err := s.Branches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(branches) != fmt.Sprintf("[{feature %s false} {main %s true}]", edited.Version.Commit, strings.TrimSpace(mainTip)) {
		t.Fatalf("branches seen from main: %v", branches)
	}
	// A store reopened in the worktree reads what it wrote.
	w.Close()
	w2 := openWorktree(t, wt)
	if h, err := w2.History(ctx, "shared.md"); err != nil || len(h) != 2 {
		t.Fatalf("history of shared.md in the worktree: %+v %v", h, err)
	}
	git(t, main, "fsck", "--strict", "--no-progress")
}

// A branch is checked out in one worktree at a time, as git has it: a
// switch to a branch another worktree is on is refused, naming that
// worktree; once it left, the switch works.
func TestLinkedWorktreeSwitchRefused(t *testing.T) {
	ctx := context.Background()
	s, wt := linkedWorktree(t, "feature")
	w := openWorktree(t, wt)
	_, err := w.Switch(ctx, "main")
	if !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), "checked out in the worktree "+s.Root()) {
		t.Fatalf("switch to main in the worktree: %v, want ErrConflict naming %s", err, s.Root())
	}
	_, err = s.Switch(ctx, "feature")
	if !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), "checked out in the worktree "+wt) {
		t.Fatalf("switch to feature in main: %v, want ErrConflict naming %s", err, wt)
	}
	if branch, _, _ := w.Head(); branch != "feature" {
		t.Fatalf("worktree HEAD on %s after a refused switch", branch)
	}
	// Switching to the branch one is on is no move: allowed.
	if _, err := w.Switch(ctx, "feature"); err != nil {
		t.Fatalf("switch to its own branch: %v", err)
	}
	// The worktree leaves feature; main may take it.
	if _, err := w.Branch(ctx, "other", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Switch(ctx, "other"); err != nil {
		t.Fatalf("switch to a free branch: %v", err)
	}
	if got := strings.TrimSpace(git(t, wt, "symbolic-ref", "HEAD")); got != "refs/heads/other" {
		t.Fatalf("git in the worktree sees HEAD %s", got)
	}
	if _, err := s.Switch(ctx, "feature"); err != nil {
		t.Fatalf("switch main to feature once free: %v", err)
	}
	checkRepo(t, w)
	checkRepo(t, s)
}

// Two stores, one per worktree, write concurrently on their own branches:
// every write lands on its branch (each worktree has its own writer lock;
// they share objects and refs, each branch moved by compare-and-swap),
// and the run logs (refs/luna/runs, under the shared runs lock) are the
// repository's: a run appended in one worktree is read in the other.
func TestLinkedWorktreeConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	s, wt := linkedWorktree(t, "feature")
	w := openWorktree(t, wt)
	const n = 15
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i, st := range []*Store{s, w} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r, err := st.Create(ctx, lunad.CreateSpec{Title: "log", Path: fmt.Sprintf("log%d.md", i), Content: []byte("start\n")})
			if err != nil {
				errs <- err
				return
			}
			for k := range n {
				if _, err := st.Edit(ctx, r.Artifact.ID, lunad.Change{Agent: "coder"}, func(b []byte) ([]byte, map[string]string, error) {
					return fmt.Appendf(b, "line %d\n", k), nil, nil
				}); err != nil {
					errs <- fmt.Errorf("store %d edit %d: %w", i, k, err)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			appendAll(t, st, fmt.Sprintf("run-%d", i), runEvents(fmt.Sprintf("run-%d", i)))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, st := range []*Store{s, w} {
		content, a, err := st.Read(ctx, fmt.Sprintf("log%d.md", i), "")
		if err != nil || a.Version != n+1 || strings.Count(string(content), "line") != n {
			t.Fatalf("store %d: %+v %q %v", i, a, content, err)
		}
		checkRepo(t, st)
		// The other's artifact is not on this branch; both runs are here.
		if _, err := st.Artifact(ctx, fmt.Sprintf("log%d.md", 1-i)); !errors.Is(err, lunad.ErrNotFound) {
			t.Fatalf("store %d sees the other branch's artifact: %v", i, err)
		}
		runs, err := st.Runs(ctx)
		if err != nil || len(runs) != 2 {
			t.Fatalf("store %d runs: %v %v", i, runs, err)
		}
		if evs, _, err := st.RunLog(ctx, fmt.Sprintf("run-%d", 1-i)); err != nil || len(evs) != 4 {
			t.Fatalf("store %d reads the other's run: %d events, %v", i, len(evs), err)
		}
	}
	if got := strings.Count(git(t, wt, "log", "--format=%s", "feature"), "edit log1.md"); got != n {
		t.Fatalf("feature has %d edits of log1.md, want %d", got, n)
	}
	if got := strings.Count(git(t, s.Root(), "log", "--format=%s", "main"), "edit log0.md"); got != n {
		t.Fatalf("main has %d edits of log0.md, want %d", got, n)
	}
	if _, err := os.Stat(filepath.Join(s.Root(), ".git", "luna", "runs.lock")); err != nil {
		t.Fatalf("the runs lock is not in the common dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.Root(), ".git", "worktrees", "wt", "luna", "runs.lock")); err == nil {
		t.Fatal("the worktree has a runs lock of its own")
	}
}

// TestLinkedWorktreeOtherFilesystem: a worktree on another filesystem than
// its repository (here tmpfs, the repository on the test's temp dir) gets
// its files written: the working tree's temporary files are made where a
// rename reaches.
func TestLinkedWorktreeOtherFilesystem(t *testing.T) {
	const shm = "/dev/shm"
	if fi, err := os.Stat(shm); err != nil || !fi.IsDir() {
		t.Fatalf("%s is needed for a second filesystem: %v", shm, err)
	}
	s := newStore(t)
	dir, err := os.MkdirTemp(shm, "lunad-wt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	wt := filepath.Join(dir, "wt")
	git(t, s.root, "worktree", "add", "-q", "-b", "far", wt)
	w := openWorktree(t, wt)
	res, err := w.Create(context.Background(), lunad.CreateSpec{Title: "Far", Path: "docs/far.md", Content: []byte("# Far\n")})
	if err != nil || res.Warning != "" {
		t.Fatalf("create: %v, warning %q", err, res.Warning)
	}
	if b, err := os.ReadFile(filepath.Join(wt, "docs/far.md")); err != nil || string(b) != "# Far\n" {
		t.Fatalf("the working tree's file: %q, %v", b, err)
	}
	if err := w.Close(); err != nil { // syncs the worktree's git index
		t.Fatal(err)
	}
	if st := git(t, wt, "status", "--porcelain"); st != "" {
		t.Fatalf("git status in the worktree:\n%s", st)
	}
}
