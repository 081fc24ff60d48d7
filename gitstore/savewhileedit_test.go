package gitstore

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lunad/lunad"
)

// saver is a real process that saves a file the way editors do: a
// temporary file, then rename(2) over the path (mv). Each line read on its
// stdin is one save of "human N"; it answers "done N" once mv returned.
type saver struct {
	in   io.WriteCloser
	out  *bufio.Scanner
	wait func() error
}

func startSaver(t *testing.T, dir, name string) *saver {
	t.Helper()
	cmd := exec.Command("sh", "-c", `while read n; do printf 'human %s\n' "$n" > "$1.save" && mv -f "$1.save" "$1" && echo "done $n"; done`, "saver", name)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &saver{in: in, out: bufio.NewScanner(out), wait: cmd.Wait}
}

// save makes save n and waits until it is complete.
func (sv *saver) save(t *testing.T, n int) {
	t.Helper()
	fmt.Fprintf(sv.in, "%d\n", n)
	if !sv.out.Scan() || sv.out.Text() != fmt.Sprintf("done %d", n) {
		t.Fatalf("saver: %q %v", sv.out.Text(), sv.out.Err())
	}
}

// editCounter counts the edits an edit loop has started and finished, so
// that a test can wait for an edit that began after a given moment.
type editCounter struct {
	mu               sync.Mutex
	cond             sync.Cond
	started, settled int
	stop             bool
	err              error
}

// after waits until an edit that started after the call has finished, or
// the loop failed.
func (c *editCounter) after() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.started
	for c.settled <= n && c.err == nil {
		c.cond.Wait()
	}
	return c.err
}

// run calls edit until stopped, counting.
func (c *editCounter) run(edit func(k int) error) {
	for k := 1; ; k++ {
		c.mu.Lock()
		if c.stop {
			c.mu.Unlock()
			return
		}
		c.started = k
		c.mu.Unlock()
		err := edit(k)
		c.mu.Lock()
		c.settled = k
		if err != nil && c.err == nil {
			c.err = fmt.Errorf("edit %d: %w", k, err)
		}
		c.cond.Broadcast()
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (c *editCounter) halt() {
	c.mu.Lock()
	c.stop = true
	c.mu.Unlock()
}

// saveWhileEditing runs edit in a loop while a real process saves the
// artifact's file at path by temp file + rename; after each save it waits
// for an edit that began after it (whose check sees the save, unless an
// earlier edit overwrote it). Then every save must be in history or in the
// file, and git fsck --strict passes once the store's background work is
// done: the last edits may have started a pack consolidation, which
// removes the packs it replaced after the edits returned, and git fsck
// reports each pack it listed and then found removed ("packfile ... index
// not opened"), as it does while git's own repack -d runs.
func saveWhileEditing(t *testing.T, s *Store, path string, saves int, edit func(k int) error) {
	root := s.root
	sv := startSaver(t, root, path)
	var c editCounter
	c.cond.L = &c.mu
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.run(edit)
	}()
	for n := 1; n <= saves; n++ {
		sv.save(t, n)
		if err := c.after(); err != nil {
			c.halt()
			<-done
			t.Fatal(err)
		}
	}
	c.halt()
	<-done
	sv.in.Close()
	if err := sv.wait(); err != nil {
		t.Fatalf("saver: %v", err)
	}
	if c.err != nil {
		t.Fatal(c.err)
	}

	// Every completed save is in the file or in a commit of the file.
	seen := map[string]bool{}
	for _, l := range strings.Split(git(t, root, "log", "-p", "--format=", "--", path), "\n") {
		if rest, ok := strings.CutPrefix(l, "+"); ok {
			seen[rest] = true
		}
	}
	file, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(file), "\n") {
		seen[l] = true
	}
	var lost []int
	for n := 1; n <= saves; n++ {
		if !seen[fmt.Sprintf("human %d", n)] {
			lost = append(lost, n)
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d of %d saves are neither in %s nor in its history: %v", len(lost), saves, path, lost)
	}
	gitFsckOpen(t, s)
	if left, _ := os.ReadDir(filepath.Join(root, ".git", "luna", "tmp")); len(left) > 0 {
		t.Fatalf("files left in .git/luna/tmp: %v", left)
	}
}

// A person saving by temp file + rename while lunad edits the same artifact
// loses no save: a save landing between an edit's check of the file and
// its write of the working tree is left in place (and committed by the
// next edit's check) instead of being replaced.
func TestSaveByHandWhileEditing(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("start\n")})
	if err != nil {
		t.Fatal(err)
	}
	saveWhileEditing(t, s, "a.md", 60, func(k int) error {
		_, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{Agent: "coder"}, appendLine(fmt.Sprintf("agent %d", k)))
		return err
	})
}
