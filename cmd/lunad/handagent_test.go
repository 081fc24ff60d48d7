package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestHandAndAgent runs, for a bounded time and concurrently, what a
// workspace lives through: three processes editing through lunad (two on
// the artifact a person is typing in), and a person who saves that file by
// temp file + rename (as editors do), saves another file and runs
// `git stash` / `git stash pop` on it, and runs `git commit -a` — with and
// without the daemon. Afterwards every marker of an acknowledged lunad edit
// (exit 0) and of a completed save is in the working tree or in history
// (any commit or stash entry), and `git fsck --strict` is clean.
func TestHandAndAgent(t *testing.T) {
	const run = 4 * time.Second
	bothModes(t, func(t *testing.T, withDaemon bool) {
		w, a := newWSWith(t, "a.md", "# A\nanchor-0\nanchor-1\n")
		b := w.create("b.md", "# B\nanchor-2\n")
		w.create("c.md", "# C\n")
		var p *daemonProc
		if withDaemon {
			p = w.serve()
		}
		var (
			mu    sync.Mutex
			acked []string // markers of edits lunad acknowledged
			saved []string // markers of saves that completed
			fails []string // what went wrong, for the failure message
			diary []string // what the person did, for the failure message
		)
		note := func(list *[]string, s string) {
			mu.Lock()
			*list = append(*list, s)
			mu.Unlock()
		}
		stop := time.Now().Add(run)
		var wg sync.WaitGroup
		for k, id := range []string{a, a, b} { // editors 0 and 1 share a.md with the person
			wg.Go(func() {
				anchor := fmt.Sprintf("anchor-%d\n", k)
				for i := 0; time.Now().Before(stop); i++ {
					marker := fmt.Sprintf("E-%d-%d", k, i)
					out, err := w.lunad("edit", id, "--agent", fmt.Sprintf("coder-%d", k),
						"--search-file", w.tempFile(anchor), "--replace-file", w.tempFile(marker+"\n"+anchor))
					if err != nil {
						note(&fails, fmt.Sprintf("edit %s: %v: %s", marker, err, out))
						continue
					}
					note(&acked, marker)
				}
			})
		}
		wg.Go(func() { // the person
			for i := 0; time.Now().Before(stop); i++ {
				marker := fmt.Sprintf("H-%d", i)
				if err := saveByHand(filepath.Join(w.dir, "a.md"), marker); err != nil {
					note(&fails, fmt.Sprintf("save %s: %v", marker, err))
				} else {
					note(&saved, marker)
				}
				if i%4 == 0 {
					if i >= 4 {
						c, _ := os.ReadFile(filepath.Join(w.dir, "c.md"))
						note(&diary, fmt.Sprintf("before C-%d: c.md holds C-%d: %v", i, i-4, bytes.Contains(c, []byte(fmt.Sprintf("C-%d\n", i-4)))))
					}
					marker := fmt.Sprintf("C-%d", i)
					if err := saveByHand(filepath.Join(w.dir, "c.md"), marker); err != nil {
						note(&fails, fmt.Sprintf("save %s: %v", marker, err))
					} else {
						note(&saved, marker)
					}
					out, err := w.gitRun("stash", "push", "--", "c.md")
					note(&diary, fmt.Sprintf("after %s: git stash push: %v: %s", marker, err, out))
					if err == nil && !strings.Contains(out, "No local changes") {
						out, err := w.gitRun("stash", "pop")
						c, _ := os.ReadFile(filepath.Join(w.dir, "c.md"))
						note(&diary, fmt.Sprintf("git stash pop: %v: %s; c.md holds %s: %v", err, out, marker, bytes.Contains(c, []byte(marker+"\n"))))
						if err != nil {
							// It stopped on a conflict (the stash's index
							// held an entry lunad had not synced yet). The
							// entry is kept; the person takes HEAD's side
							// of the files in conflict, as lunad asks.
							note(&fails, fmt.Sprintf("git stash pop: %v: %s", err, out))
							if files, _ := w.gitRun("diff", "--name-only", "--diff-filter=U"); files != "" {
								w.gitRun(append([]string{"checkout", "HEAD", "--"}, strings.Fields(files)...)...)
							}
						}
					}
				}
				if i%5 == 0 {
					// It may find nothing to commit, or the index locked: as for a person.
					out, err := w.gitRun("commit", "-qam", fmt.Sprintf("by hand %d", i))
					note(&diary, fmt.Sprintf("after H-%d: git commit -am: %v: %s", i, err, out))
				}
				time.Sleep(30 * time.Millisecond)
			}
		})
		wg.Wait()
		if p != nil {
			p.stop(t, syscall.SIGTERM)
		}
		if len(acked) < 15 || len(saved) < 15 {
			t.Fatalf("too little happened: %d edits acknowledged, %d saves\nfailures:\n%s", len(acked), len(saved), strings.Join(fails, "\n"))
		}
		// Everything that ever held the files: the working tree, and
		// every commit's and stash entry's additions.
		var all bytes.Buffer
		for _, f := range []string{"a.md", "b.md", "c.md"} {
			b, err := os.ReadFile(filepath.Join(w.dir, f))
			if err != nil {
				t.Fatal(err)
			}
			all.Write(b)
		}
		all.WriteString(w.git("log", "--all", "--reflog", "--diff-merges=first-parent", "-p", "--format=%H"))
		all.WriteString(w.git("stash", "list", "-p"))
		var lost []string
		for _, m := range append(append([]string{}, acked...), saved...) {
			if !bytes.Contains(all.Bytes(), []byte(m+"\n")) {
				lost = append(lost, m)
			}
		}
		if len(lost) > 0 {
			t.Fatalf("%d of %d acknowledged edits and saves are in neither the working tree nor history: %v\nfailures:\n%s\nthe person's git commands:\n%s",
				len(lost), len(acked)+len(saved), lost, strings.Join(fails, "\n"), strings.Join(diary, "\n"))
		}
		w.git("fsck", "--strict", "--no-progress")
		for _, f := range fails[:min(len(fails), 5)] {
			t.Logf("failed: %s", f)
		}
		t.Logf("%d edits acknowledged, %d saves, %d commits, %d failed edits or saves", len(acked), len(saved),
			strings.Count(w.git("rev-list", "--all"), "\n"), len(fails))
	})
}

// saveByHand appends a line to the file as an editor saves: the whole
// content written to a temporary file, renamed over the file.
func saveByHand(path, line string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	tmp := path + ".save~"
	if err := os.WriteFile(tmp, append(b, line+"\n"...), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// lunad runs lunad in the workspace from any goroutine (no t.Fatal).
func (w *ws) lunad(args ...string) (string, error) {
	cmd := exec.Command(lunadBin, append(args, "--dir", w.dir)...)
	cmd.Dir = w.dir
	cmd.Env = env(w.home, w.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// gitRun runs git in the workspace from any goroutine, as the person.
func (w *ws) gitRun(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = w.dir
	cmd.Env = env(w.home, "GIT_AUTHOR_NAME=Grace", "GIT_AUTHOR_EMAIL=grace@example.com",
		"GIT_COMMITTER_NAME=Grace", "GIT_COMMITTER_EMAIL=grace@example.com")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// tempFile writes content to a new file outside the workspace, from any
// goroutine.
func (w *ws) tempFile(content string) string {
	f, err := os.CreateTemp(w.home, "in-")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	f.WriteString(content)
	return f.Name()
}
