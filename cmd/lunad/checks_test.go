package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// What a workspace looks like from outside lunad: what the real git and
// the working tree say.

// git runs the real git binary in the workspace.
func (w *ws) git(args ...string) string {
	w.t.Helper()
	return gitIn(w.t, w.dir, w.home, args...)
}

func gitIn(t *testing.T, dir, home string, args ...string) string {
	t.Helper()
	return gitEnv(t, dir, home, nil, args...)
}

// gitEnv is gitIn with more environment variables (KEY=VALUE).
func gitEnv(t *testing.T, dir, home string, more []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env(home, append([]string{"GIT_AUTHOR_NAME=Grace", "GIT_AUTHOR_EMAIL=grace@example.com",
		"GIT_COMMITTER_NAME=Grace", "GIT_COMMITTER_EMAIL=grace@example.com"}, more...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

func (w *ws) head() string {
	w.t.Helper()
	return strings.TrimSpace(w.git("rev-parse", "HEAD"))
}

// clean checks what git says: fsck --strict is clean and so is status.
func (w *ws) clean() {
	w.t.Helper()
	w.git("fsck", "--strict", "--no-progress")
	if st := w.git("status", "--porcelain", "--untracked-files=all"); st != "" {
		w.t.Fatalf("git status not clean:\n%s", st)
	}
}

// commitCount returns the number of commits on HEAD.
func (w *ws) commitCount() int {
	w.t.Helper()
	var n int
	fmt.Sscan(w.git("rev-list", "--count", "HEAD"), &n)
	return n
}

// wantHead fails the test unless HEAD is still head: nothing was committed.
func (w *ws) wantHead(head string) {
	w.t.Helper()
	if got := w.head(); got != head {
		w.t.Fatalf("HEAD moved from %s to %s", head, got)
	}
}

// workFile reads a file of the working tree.
func (w *ws) workFile(p string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.dir, filepath.FromSlash(p)))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

// lastCommit returns the author name and the full message of HEAD.
func (w *ws) lastCommit() (author, msg string) {
	w.t.Helper()
	a, m, _ := strings.Cut(w.git("log", "-1", "--format=%an%x00%B"), "\x00")
	return a, m
}

// trailers returns the Luna-* trailers of HEAD as a map.
func (w *ws) trailers() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(w.git("log", "-1", "--format=%(trailers:only,unfold)"), "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok {
			out[k] = v
		}
	}
	return out
}

func wantTrailers(t *testing.T, got map[string]string, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("trailer %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

// wantContent checks an artifact's content as lunad shows it (ref is its
// ID or path), as git has it at HEAD and in the working tree (at path).
func (w *ws) wantContent(ref, path, want string) {
	w.t.Helper()
	if got := w.show(ref); got != want {
		w.t.Fatalf("lunad show %q, want %q", got, want)
	}
	if got := w.git("show", "HEAD:"+path); got != want {
		w.t.Fatalf("git show %q, want %q", got, want)
	}
	if got := w.workFile(path); got != want {
		w.t.Fatalf("working tree %q, want %q", got, want)
	}
}
