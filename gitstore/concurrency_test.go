package gitstore

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// concEdit is one write a goroutine or process attempted.
type concEdit struct {
	id, line string
	res      lunad.Result // when acknowledged
	base     int          // BaseVersion passed, 0 for none
	err      error
}

var conflictMsg = regexp.MustCompile(`is at version (\d+) but the edit was made against version (\d+)`)

// TestConcurrentEditsOneProcess: 8 goroutines share one Store. Four append
// to their own artifact and a shared one; two race on a second shared one
// with BaseVersion (conflicts are possible, never required); one edits that
// artifact without a base; one alternates a plain edit of the first shared
// artifact with an edit against the version it read before (which must
// conflict). Every acknowledged edit must be in the content and
// the history, every rejected one nowhere, and one commit per edit.
func TestConcurrentEditsOneProcess(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	create := func(p string) string {
		r, err := s.Create(ctx, lunad.CreateSpec{Title: p, Path: p, Content: []byte("start " + p + "\n")})
		if err != nil {
			t.Fatal(err)
		}
		return r.Artifact.ID
	}
	shared, raced := create("shared/one.md"), create("shared/two.md")
	var own []string
	for g := range 4 {
		own = append(own, create(fmt.Sprintf("own/g%d.go", g)))
	}
	setupCommits := 1 + 2 + len(own) // adopt + creates

	const perGoroutine = 20
	var mu sync.Mutex
	var edits []*concEdit
	record := func(e *concEdit) {
		mu.Lock()
		edits = append(edits, e)
		mu.Unlock()
	}
	edit := func(g, i int, id string, base int) *concEdit {
		e := &concEdit{id: id, base: base, line: fmt.Sprintf("g%d edit %d", g, i)}
		e.res, e.err = s.Edit(ctx, id, lunad.Change{Agent: fmt.Sprintf("g%d", g), BaseVersion: base}, appendLine(e.line))
		record(e)
		return e
	}
	version := func(id string) int {
		a, err := s.Artifact(ctx, id)
		if err != nil {
			t.Error(err)
		}
		return a.Version
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range perGoroutine {
				id := own[g]
				if i%2 == 1 {
					id = shared
				}
				edit(g, i, id, 0)
			}
		})
	}
	for g := 4; g < 6; g++ {
		wg.Go(func() {
			for i := range perGoroutine {
				edit(g, i, raced, version(raced))
			}
		})
	}
	wg.Go(func() {
		for i := range perGoroutine {
			edit(6, i, raced, 0)
		}
	})
	wg.Go(func() {
		for i := range perGoroutine {
			base := version(shared)
			// Move the artifact on (other goroutines may too), then
			// edit against the old version.
			edit(7, 2*i, shared, 0)
			e := edit(7, 2*i+1, shared, base)
			if !errors.Is(e.err, lunad.ErrConflict) {
				t.Errorf("edit on stale base %d: %v, want ErrConflict", base, e.err)
			}
		}
	})
	wg.Wait()

	acked, conflicts := 0, 0
	perArtifact := map[string][]*concEdit{}
	for _, e := range edits {
		switch {
		case e.err == nil:
			acked++
			perArtifact[e.id] = append(perArtifact[e.id], e)
			if e.base > 0 && e.res.Version.Number != e.base+1 {
				t.Errorf("%q on base %d became version %d", e.line, e.base, e.res.Version.Number)
			}
		case errors.Is(e.err, lunad.ErrConflict) && e.base > 0:
			conflicts++
			m := conflictMsg.FindStringSubmatch(e.err.Error())
			if m == nil || m[2] != strconv.Itoa(e.base) || atoi(m[1]) <= e.base || !strings.Contains(e.err.Error(), e.id) {
				t.Errorf("conflict error does not name %s, its version and the base %d: %v", e.id, e.base, e.err)
			}
		default:
			t.Errorf("%q: unexpected error %v", e.line, e.err)
		}
	}
	if conflicts < perGoroutine {
		t.Errorf("%d conflicts; the stale-base goroutine alone must cause %d", conflicts, perGoroutine)
	}
	t.Logf("%d edits acknowledged, %d conflicts", acked, conflicts)
	checkAcknowledged(t, s, edits, perArtifact)
	if n := atoi(strings.TrimSpace(git(t, s.root, "rev-list", "--count", "HEAD"))); n != setupCommits+acked {
		t.Errorf("%d commits, want %d setup + %d acknowledged edits", n, setupCommits, acked)
	}
	checkRepo(t, s)
}

// checkAcknowledged asserts that every acknowledged edit's line is in its
// artifact exactly once, in the order of its versions, that no rejected
// edit's line is anywhere, and that each artifact's versions run 1..N with
// the acknowledged (version, commit) pairs among them.
func checkAcknowledged(t *testing.T, s *Store, edits []*concEdit, perArtifact map[string][]*concEdit) {
	t.Helper()
	ctx := context.Background()
	arts, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arts {
		content, _, err := s.Read(ctx, a.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		hist, err := s.History(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range hist {
			if v.Number != i+1 {
				t.Fatalf("%s: versions %v are not 1..N", a.Path, versionNumbers(hist))
			}
		}
		es := perArtifact[a.ID]
		if len(hist) != 1+len(es) {
			t.Errorf("%s: %d versions, want 1 + %d acknowledged edits", a.Path, len(hist), len(es))
		}
		sort.Slice(es, func(i, j int) bool { return es[i].res.Version.Number < es[j].res.Version.Number })
		lines := strings.Split(strings.TrimSuffix(string(content), "\n"), "\n")[1:]
		if len(lines) != len(es) {
			t.Errorf("%s: %d appended lines, want %d", a.Path, len(lines), len(es))
		}
		for i, e := range es {
			if !hasVersion(hist, e.res.Version.Number, e.res.Version.Commit) {
				t.Errorf("%s: acknowledged version %d (%s) not in history", a.Path, e.res.Version.Number, e.res.Version.Commit)
			}
			if i < len(lines) && lines[i] != e.line {
				t.Errorf("%s: line %d is %q, want %q (version %d)", a.Path, i+2, lines[i], e.line, e.res.Version.Number)
			}
		}
	}
	all := map[string]bool{}
	for _, a := range arts {
		b, _, _ := s.Read(ctx, a.ID, "")
		for _, l := range strings.Split(string(b), "\n") {
			all[l] = true
		}
	}
	for _, e := range edits {
		if e.err != nil && all[e.line] {
			t.Errorf("rejected edit %q (%v) is in the content", e.line, e.err)
		}
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// TestConcurrentProcesses: 4 processes open the workspace with Open and
// append 25 lines each, to two shared artifacts and one of their own.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	dir := t.TempDir()
	s, _, err := Init(dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	create := func(p string) string {
		r, err := s.Create(ctx, lunad.CreateSpec{Title: p, Path: p, Content: []byte("start " + p + "\n")})
		if err != nil {
			t.Fatal(err)
		}
		return r.Artifact.ID
	}
	sharedA, sharedB := create("shared/a.md"), create("shared/deep/b.py")
	const procs, perProc = 4, 25
	var own []string
	for k := range procs {
		own = append(own, create(fmt.Sprintf("own/p%d.txt", k)))
	}
	setupCommits := 1 + 2 + procs
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	type result struct {
		acks []ack
		errs []string
		done bool
	}
	results := make([]result, procs)
	var wg sync.WaitGroup
	for k := range procs {
		h := startHelper(t, "procs", dir, uint64(k), strconv.Itoa(k), strconv.Itoa(perProc), sharedA, own[k], sharedB)
		wg.Go(func() {
			r := &results[k]
			timeout := time.After(60 * time.Second)
			for {
				select {
				case line, ok := <-h.lines:
					if !ok {
						if err := h.cmd.Wait(); err != nil {
							r.errs = append(r.errs, fmt.Sprintf("exit: %v; stderr: %s", err, h.stderr.String()))
						}
						return
					}
					h.collect(line, &r.acks, &r.errs)
					r.done = r.done || line == "DONE"
				case <-timeout:
					h.cmd.Process.Kill()
					r.errs = append(r.errs, "timed out")
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	var edits []*concEdit
	perArtifact := map[string][]*concEdit{}
	for k, r := range results {
		for _, e := range r.errs {
			t.Errorf("process %d: %s", k, e)
		}
		if !r.done || len(r.acks) != perProc {
			t.Errorf("process %d: %d of %d edits acknowledged (done %v)", k, len(r.acks), perProc, r.done)
		}
		ids := []string{sharedA, own[k], sharedB}
		for i, a := range r.acks {
			e := &concEdit{id: a.artifact, line: fmt.Sprintf("proc %d edit %d", k, i),
				res: lunad.Result{Version: lunad.Version{Artifact: a.artifact, Number: a.version, Commit: a.commit}}}
			if a.artifact != ids[i%len(ids)] {
				t.Errorf("process %d edit %d acknowledged for %s, want %s", k, i, a.artifact, ids[i%len(ids)])
			}
			edits = append(edits, e)
			perArtifact[e.id] = append(perArtifact[e.id], e)
		}
	}
	t.Logf("%d processes × %d edits in %v", procs, perProc, elapsed.Round(time.Millisecond))

	s, err = Open(dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkAcknowledged(t, s, edits, perArtifact)
	if n := atoi(strings.TrimSpace(git(t, dir, "rev-list", "--count", "HEAD"))); n != setupCommits+procs*perProc {
		t.Errorf("%d commits, want %d setup + %d edits", n, setupCommits, procs*perProc)
	}
	checkRepo(t, s)
}

// holdLock takes s's workspace lock as a batch does, and returns its release.
func holdLock(t *testing.T, s *Store) func() {
	t.Helper()
	if err := s.lock.lock(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	return func() { s.lock.unlock() }
}

// snapshotWorkspace hashes every file of the workspace, .git included,
// except the lock file itself.
func snapshotWorkspace(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == filepath.Join(".git", "luna", "lock") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string][32]byte) {
	t.Helper()
	for p, h := range after {
		if b, ok := before[p]; !ok {
			t.Errorf("%s appeared", p)
		} else if b != h {
			t.Errorf("%s changed", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s disappeared", p)
		}
	}
}

// TestSecondWriterLocked: while one Store holds the workspace lock, another
// one waits LockTimeout and fails with ErrLocked naming the holder's pid,
// having changed nothing; once the lock is free, it writes.
func TestSecondWriterLocked(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Artifact.ID
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	first, err := Open(s.root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	release := holdLock(t, first)
	before := snapshotWorkspace(t, s.root)

	opts := testOptions()
	opts.LockTimeout = 200 * time.Millisecond
	second, err := Open(s.root, opts) // its recovery gives up on the lock quietly
	if err != nil {
		t.Fatalf("open while locked: %v", err)
	}
	defer second.Close()
	for _, op := range []struct {
		name string
		call func() error
	}{
		{"edit", func() error { _, err := second.Edit(ctx, id, lunad.Change{}, appendLine("two")); return err }},
		{"create", func() error {
			_, err := second.Create(ctx, lunad.CreateSpec{Title: "m", Path: "m.md", Content: []byte("m\n")})
			return err
		}},
		{"move", func() error { _, err := second.Move(ctx, id, "moved.md", lunad.Change{}); return err }},
	} {
		t0 := time.Now()
		err := op.call()
		waited := time.Since(t0)
		if !errors.Is(err, lunad.ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("%s while locked: %v, want ErrLocked naming pid %d", op.name, err, os.Getpid())
		}
		if waited < 200*time.Millisecond || waited > 2*time.Second {
			t.Errorf("%s waited %v for a 200ms lock timeout", op.name, waited)
		}
	}
	sameSnapshot(t, before, snapshotWorkspace(t, s.root))

	release()
	if _, err := second.Edit(ctx, id, lunad.Change{}, appendLine("two")); err != nil {
		t.Fatalf("edit after the lock was released: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.root, "n.md")); string(b) != "one\ntwo\n" {
		t.Fatalf("content %q", b)
	}
}

// TestSecondWriterLockedByProcess: the same across processes, and the lock
// dies with its holder.
func TestSecondWriterLockedByProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	ctx := context.Background()
	dir := crashWorkspace(t)
	h := startHelper(t, "hold", dir, 0)
	var acks []ack
	var errs []string
	line := h.waitFor(t, "LOCKED", 20*time.Second, &acks, &errs)
	pid := strings.Fields(line)[1]
	before := snapshotWorkspace(t, dir)

	opts := helperOptions()
	opts.LockTimeout = 200 * time.Millisecond
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("open while locked: %v", err)
	}
	defer s.Close()
	_, err = s.Edit(ctx, "README.txt", lunad.Change{}, appendLine("x"))
	if !errors.Is(err, lunad.ErrLocked) || !strings.Contains(err.Error(), "pid "+pid) {
		t.Fatalf("edit while process %s holds the lock: %v", pid, err)
	}
	sameSnapshot(t, before, snapshotWorkspace(t, dir))

	h.killAndDrain(&acks, &errs)
	if _, err := s.Edit(ctx, "README.txt", lunad.Change{}, appendLine("x")); err != nil {
		t.Fatalf("edit after the holder died: %v", err)
	}
	if len(errs) > 0 {
		t.Errorf("helper: %v", errs)
	}
}
