package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// Through a running daemon: `lunad rm` goes over the socket
// (lunad/remove), and a git rm committed by hand is recorded by the
// daemon's watcher as the artifact's removal; list leaves both out, stale
// names the broken link, and undo brings the file back.
func TestDaemonRemove(t *testing.T) {
	w, cfg := newWSWith(t, "config.py", "X = 1\n")
	w.create("guide.md", "# Guide\n\nSee [config](config.py).\n")
	w.create("notes.md", "n\n")
	p := w.serve()
	defer p.stop(t, syscall.SIGTERM)
	await := w.follow(p)

	w.ok("rm", "notes.md")
	if log, ok := p.stderr.waitFor(10*time.Second, "method=lunad/remove"); !ok {
		t.Fatalf("the removal did not go through the daemon:\n%s", log)
	}
	w.git("rm", "-q", "config.py")
	w.git("commit", "-q", "-m", "drop config")
	await("the removal of config.py recorded", func(ev lunad.Event) bool {
		return ev.Kind == "removed" && slices.Contains(ev.IDs, cfg)
	})
	if got := w.git("log", "-1", "--format=%s|%(trailers:key=Luna-Op,valueonly,separator=)"); got != "remove config.py (deleted outside lunad)|remove\n" {
		t.Fatalf("git log -1: %q", got)
	}
	if out := w.ok("list"); strings.Contains(out, "config.py") || strings.Contains(out, "notes.md") || !strings.Contains(out, "guide.md") {
		t.Fatalf("lunad list:\n%s", out)
	}
	r := w.run("stale", "--check")
	if r.code != 6 || !strings.Contains(r.stdout, "no artifact at config.py") {
		t.Fatalf("stale --check:\n%s", r)
	}
	w.fail(5, "artifact "+cfg+" (config.py) was removed at v2; `lunad undo "+cfg+"` brings it back", "show", cfg)
	w.ok("undo", cfg)
	if got, err := os.ReadFile(filepath.Join(w.dir, "config.py")); err != nil || string(got) != "X = 1\n" {
		t.Fatalf("config.py after undo: %q %v", got, err)
	}
	if out := w.ok("stale"); strings.Contains(out, "broken") {
		t.Fatalf("stale after undo:\n%s", out)
	}
}
