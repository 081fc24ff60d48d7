package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An edit whose working-tree file cannot be written (its directory made
// immutable with chattr +i) exits 0 with a warning that says it was
// committed and must not be retried. Once the directory is writable again,
// neither the daemon nor the next command records the stale file as a
// person's edit: undo undoes the agent's edit.
func TestEditWhenTheWorkingTreeCannotBeWritten(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test makes a directory immutable with chattr +i and must run as root (CI does)")
	}
	bothModes(t, func(t *testing.T, withDaemon bool) {
		w, id := newWSWith(t, "docs/a.md", "one\n")
		if withDaemon {
			p := w.serve()
			defer p.stop(t, syscall.SIGTERM)
		}
		docs := filepath.Join(w.dir, "docs")
		chattr := func(flag string) {
			if out, err := exec.Command("chattr", flag, docs).CombinedOutput(); err != nil {
				t.Fatalf("chattr %s: %v %s", flag, err, out)
			}
		}
		chattr("+i")
		t.Cleanup(func() { exec.Command("chattr", "-i", docs).Run() })
		r := w.run("edit", id, "--search-file", w.file("s", "one\n"), "--replace-file", w.file("r", "two\n"), "--agent", "coder")
		chattr("-i")
		if r.code != 0 {
			t.Fatalf("an edit that was committed failed:\n%s", r)
		}
		for _, want := range []string{"lunad: warning: committed as", "docs/a.md in the working tree could not be updated", "do not retry"} {
			if !strings.Contains(r.stderr, want) {
				t.Fatalf("stderr lacks %q:\n%s", want, r)
			}
		}
		if strings.Contains(r.stderr, "nothing was committed") {
			t.Fatalf("the message contradicts itself:\n%s", r)
		}
		if got := w.git("show", "HEAD:docs/a.md"); got != "two\n" {
			t.Fatalf("HEAD holds %q", got)
		}
		w.ok("undo", id)
		if got := w.show(id); got != "one\n" {
			t.Fatalf("after undo: %q", got)
		}
		if b, _ := os.ReadFile(filepath.Join(docs, "a.md")); string(b) != "one\n" {
			t.Fatalf("working tree after undo: %q", b)
		}
		if log := w.git("log", "--format=%s"); strings.Contains(log, "human") {
			t.Fatalf("the stale file was recorded as a person's edit:\n%s", log)
		}
		w.git("fsck", "--strict", "--no-progress")
	})
}
