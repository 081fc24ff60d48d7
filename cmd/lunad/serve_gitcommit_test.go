package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon/rpc"
)

// follow subscribes to the events of the daemon p and returns a function
// that waits (at most 15 s) for one that ok accepts. The subscription ends
// with the test.
func (w *ws) follow(p *daemonProc) func(what string, ok func(lunad.Event) bool) {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ws, err := rpc.Connect(ctx, w.dir, rpc.ConnectOptions{})
	if err != nil {
		cancel()
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		cancel()
		ws.Close()
	})
	events, err := ws.Subscribe(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	return func(what string, ok func(lunad.Event) bool) {
		w.t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			select {
			case ev := <-events:
				if ok(ev) {
					return
				}
			case <-deadline:
				w.t.Fatalf("no event: %s\n%s", what, p.stderr)
			}
		}
	}
}

// With the daemon up, `lunad edit` followed at once by a person's `git
// commit` keeps the edit: the write is acknowledged with its index entries
// synced, so `git status` is clean, the hand commit takes the edit's blob,
// and the daemon's watcher, reacting to the hand commit, leaves the
// working tree as it is.
func TestDaemonEditThenGitCommit(t *testing.T) {
	w, id := newWSWith(t, "a.md", "alpha\n")
	other := w.create("b.md", "bravo\n")
	p := w.serve()
	defer p.stop(t, syscall.SIGTERM)
	await := w.follow(p)
	search, repl := w.file("s", "alpha\n"), w.file("r", "edited\n")
	w.ok("edit", id, "--search-file", search, "--replace-file", repl, "--agent", "coder")
	st := w.git("status", "--porcelain")
	// The daemon logs the call before it answers, but the log reaches
	// p.stderr through os/exec's copying goroutine, which a loaded machine
	// may not have run yet: wait for the line rather than read the buffer
	// once.
	if log, ok := p.stderr.waitFor(10*time.Second, "method=lunad/edit"); !ok {
		t.Fatalf("the edit did not go through the daemon:\n%s", log)
	}
	if st != "" {
		t.Fatalf("git status right after lunad edit:\n%s", st)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "notes.txt"), []byte("by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A plain `git commit` of what the person staged commits the index
	// as it is: an entry lunad had not synced would revert the edit.
	w.git("add", "notes.txt")
	w.git("commit", "-q", "-m", "x")
	head := strings.TrimSpace(w.git("rev-parse", "HEAD"))
	await("the hand commit", func(ev lunad.Event) bool { return ev.Kind == "branch" && ev.Commit == head })
	// A later burst of the watcher (a save of another artifact) shows the
	// one that followed the hand commit, index sync included, is over.
	if err := os.WriteFile(filepath.Join(w.dir, "b.md"), []byte("saved by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	await("the save of b.md", func(ev lunad.Event) bool { return slices.Contains(ev.IDs, other) })
	if got := w.git("show", "HEAD:a.md"); got != "edited\n" {
		t.Fatalf("HEAD:a.md after the hand commit = %q, want the edit", got)
	}
	if got, err := os.ReadFile(filepath.Join(w.dir, "a.md")); err != nil || string(got) != "edited\n" {
		t.Fatalf("a.md in the working tree after the watcher reacted = %q %v, want the edit", got, err)
	}
	if out := w.ok("log", id); !strings.Contains(out, " edit ") || strings.Contains(out, "human") {
		t.Fatalf("lunad log %s:\n%s", id, out)
	}
}
