package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOddArguments runs Main in-process on odd command lines: each fails
// with a usage error or a clear message, never a panic.
func TestOddArguments(t *testing.T) {
	w, id := newWSWith(t, "a.md", "a\n")
	for _, args := range [][]string{
		{"--dir"}, {"--json=x"}, {"-"}, {"---dir", "x"}, {"--", "list"}, {"help", "help"}, {"help", "a", "b"},
		{"edit", "--base-version"}, {"edit", id, "--base-version", "-1", "--content-file", "/dev/null"},
		{"show", "@"}, {"show", "@3"}, {"show", ""}, {"show", id + "@"}, {"show", id + "@0"}, {"show", id + "@99999999999"},
		{"restore", "@1"}, {"restore", id + "@-1"}, {"restore", id, "1", "2"}, {"restore", id + "@99999999999999999999"},
		{"diff", id, "1", "2", "3"}, {"diff", id, "-1"}, {"diff", id, "2", "1"}, {"log", "", ""},
		{"mv", id, ""}, {"mv", id, "."}, {"link", id, id}, {"branch", ""}, {"branch", "-x"}, {"switch", "HEAD"},
		{"create", "--title", " "}, {"create", "--title", strings.Repeat("t", 10000)}, {"create", "--title", "x", "--path", strings.Repeat("a/", 600) + "x"},
		{"edit", id, "--blocks-file", "/dev/null"}, {"edit", id, "--patch-file", os.DevNull},
		{"edit", id, "--search-file", os.DevNull, "--replace-file", os.DevNull},
		{"edit", id, "--message", strings.Repeat("m", 20000), "--content-file", os.DevNull},
		{"edit", id, "--idempotency-key", "a\nb", "--content-file", os.DevNull},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, errs, err := runMain(&Main{Getenv: func(string) string { return "" }}, "", append(args, "--dir", w.dir)...)
			if args[0] == "help" && len(args) == 2 {
				if err != nil {
					t.Fatalf("help help: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; stdout %q", out)
			}
			if code := ExitCode(err); code == 0 || !strings.HasPrefix(errs, "lunad: ") || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
	if got := w.show(id); got != "a\n" {
		t.Fatalf("content changed: %q", got)
	}
	w.clean()
}

// TestLocked: a writer waits LUNAD_LOCK_TIMEOUT for the workspace lock,
// then fails with exit 1 and a message naming the holder.
func TestLocked(t *testing.T) {
	w, id := newWSWith(t, "a.md", "a\n")
	f, err := os.OpenFile(filepath.Join(w.dir, ".git", "luna", "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	head := w.head()
	w.env = []string{"LUNAD_LOCK_TIMEOUT=200ms"}
	w.fail(1, "locked", "edit", id, "--content-file", w.file("b", "b\n"))
	w.wantHead(head) // nothing committed while locked
	// Reads do not need the lock.
	if got := w.show(id); got != "a\n" {
		t.Fatalf("show while locked: %q", got)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	w.ok("edit", id, "--content-file", w.file("b", "b\n"))
	w.clean()
}
