package main

import (
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

// waitClean waits until `git status` in w is clean (a daemon syncs the git
// index right after each write; give it a moment), then checks w.clean.
func (w *ws) waitClean() {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for w.git("status", "--porcelain", "--untracked-files=all") != "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	w.clean()
}

// TestLinkedWorktree: `lunad init` in the main checkout, `git worktree add
// ../wt -b feature`, then lunad in the worktree, without a daemon and
// through `lunad serve` running there. Every write lands on feature and
// shows in git's log there, both checkouts stay clean, the main branch
// does not move; each worktree has its own daemon (its socket in its own
// git dir), and a switch to the branch the other worktree is on is
// refused, naming that worktree.
func TestLinkedWorktree(t *testing.T) {
	w, shared := newWSWith(t, "shared.md", "# Shared\n\nfrom main\n")
	mainTip := w.head()
	w.git("worktree", "add", "-q", "../wt", "-b", "feature")
	wt := &ws{t: t, dir: filepath.Join(filepath.Dir(w.dir), "wt"), home: w.home}
	wtState := filepath.Join(w.dir, ".git", "worktrees", "wt", "luna")

	// Without a daemon.
	id := wt.create("docs/feature.md", "# Feature\n\nfirst\n", "--agent", "writer")
	if out := wt.ok("edit", id, "--search-file", wt.file("s1", "first\n"), "--replace-file", wt.file("r1", "second\n"), "--agent", "coder"); !strings.HasPrefix(out, id+" v2 ") {
		t.Fatalf("edit in the worktree: %q", out)
	}
	wt.ok("edit", shared, "--search-file", wt.file("s2", "from main\n"), "--replace-file", wt.file("r2", "from the worktree\n"))
	if log := wt.ok("log"); !strings.Contains(log, id) || !strings.Contains(log, shared) || strings.Count(log, "\n") != 6 {
		t.Fatalf("lunad log in the worktree:\n%s", log)
	}
	if got := wt.git("log", "-3", "--format=%s"); got != "edit shared.md\nedit docs/feature.md\ncreate docs/feature.md\n" {
		t.Fatalf("git log in the worktree:\n%s", got)
	}
	if got := strings.TrimSpace(wt.git("symbolic-ref", "--short", "HEAD")); got != "feature" {
		t.Fatalf("worktree on %s", got)
	}
	wt.wantContent(shared, "shared.md", "# Shared\n\nfrom the worktree\n")
	wt.clean()
	w.wantHead(mainTip)
	w.wantContent(shared, "shared.md", "# Shared\n\nfrom main\n")
	w.clean()
	if _, err := os.Stat(filepath.Join(wtState, "lock")); err != nil {
		t.Fatalf("the worktree's state is not in its git dir: %v", err)
	}

	// Through a daemon serving the worktree, then one serving the main
	// checkout as well: two daemons, two sockets.
	wp := wt.serve()
	before := wt.served()
	wt.ok("edit", id, "--search-file", wt.file("s3", "second\n"), "--replace-file", wt.file("r3", "third\n"))
	id2 := wt.create("docs/more.md", "# More\n")
	if after := wt.served(); after < before+4 {
		t.Fatalf("the worktree's daemon served %d calls, want at least %d", after, before+4)
	}
	if log := wp.stderr.String(); !strings.Contains(log, "method=lunad/edit") || !strings.Contains(log, "artifact="+id+" version=3") {
		t.Fatalf("the worktree's daemon did not log the edit:\n%s", log)
	}
	if log := wt.ok("log", id); strings.Count(log, "\n") != 4 {
		t.Fatalf("lunad log %s through the daemon:\n%s", id, log)
	}
	if _, err := os.Lstat(filepath.Join(wtState, "daemon.sock")); err != nil {
		t.Fatalf("the worktree's daemon socket: %v", err)
	}
	// The daemon's watcher follows the worktree: a save by hand there is
	// recorded, and a `git checkout` run there (HEAD in the worktree's git
	// dir) is a branch event.
	await := wt.follow(wp)
	if err := os.WriteFile(filepath.Join(wt.dir, "docs", "more.md"), []byte("# More\n\nsaved by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	await("the save in the worktree", func(ev lunad.Event) bool { return slices.Contains(ev.IDs, id2) })
	if out := wt.ok("log", id2); !strings.Contains(out, "human") {
		t.Fatalf("log after a save by hand in the worktree:\n%s", out)
	}
	wt.waitClean()
	wt.git("checkout", "-q", "-b", "aside")
	await("git checkout -b in the worktree", func(ev lunad.Event) bool { return ev.Kind == "branch" })
	wt.git("checkout", "-q", "feature")
	await("git checkout back in the worktree", func(ev lunad.Event) bool { return ev.Kind == "branch" })
	if _, err := os.Lstat(filepath.Join(w.dir, ".git", "luna", "daemon.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a daemon socket in the main checkout's git dir: %v", err)
	}
	mp := w.serve()
	if _, err := os.Lstat(filepath.Join(w.dir, ".git", "luna", "daemon.sock")); err != nil {
		t.Fatalf("the main checkout's daemon socket: %v", err)
	}
	mainID := w.create("main-only.md", "# Main\n")
	if list := w.ok("list"); strings.Contains(list, id2) || !strings.Contains(list, mainID) {
		t.Fatalf("lunad list in main:\n%s", list)
	}
	if list := wt.ok("list"); !strings.Contains(list, id2) || strings.Contains(list, mainID) {
		t.Fatalf("lunad list in the worktree:\n%s", list)
	}
	wt.fail(exitConflict, "branch main is checked out in the worktree "+w.dir, "switch", "main")
	w.fail(exitConflict, "branch feature is checked out in the worktree "+wt.dir, "switch", "feature")
	if got := wt.git("log", "-3", "--format=%s"); got != "human edit docs/more.md (found in the working tree)\ncreate docs/more.md\nedit docs/feature.md\n" {
		t.Fatalf("git log in the worktree:\n%s", got)
	}
	wt.waitClean()
	w.waitClean()

	for _, p := range []*daemonProc{wp, mp} {
		if err := p.stop(t, syscall.SIGTERM); err != nil {
			t.Fatalf("lunad serve after SIGTERM: %v\n%s", err, p.stderr)
		}
	}
	if _, err := os.Lstat(filepath.Join(wtState, "daemon.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
	wt.wantContent(id, "docs/feature.md", "# Feature\n\nthird\n")
	wt.clean()
	w.clean()
}
