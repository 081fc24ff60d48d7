package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// freeze makes dir immutable (chattr +i: even root cannot create, rename
// or delete entries in it) until the returned function or the test's end.
func freeze(t *testing.T, dir string) (thaw func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test makes a directory immutable with chattr +i and must run as root (CI does)")
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Fatalf("chattr +i %s: %v %s", dir, err, out)
	}
	thawed := false
	thaw = func() {
		if !thawed {
			thawed = true
			if out, err := exec.Command("chattr", "-i", dir).CombinedOutput(); err != nil {
				t.Fatalf("chattr -i %s: %v %s", dir, err, out)
			}
		}
	}
	t.Cleanup(thaw)
	return thaw
}

// TestWorkTreeWriteFails: an edit whose working-tree file cannot be
// written is committed and says so without contradicting itself (a
// warning, no error: a retry would make a second change). The stale file
// left behind is lunad's own state, never a person's: neither Record (the
// daemon's watcher) nor the next write commits it back as a human edit,
// and undo undoes the agent's edit.
func TestWorkTreeWriteFails(t *testing.T) {
	for _, delay := range []time.Duration{0, time.Hour} { // one-shot CLI store; the daemon's store
		t.Run("IndexSyncDelay="+delay.String(), func(t *testing.T) {
			ctx := context.Background()
			opts := testOptions()
			opts.IndexSyncDelay = delay
			s, _, err := Init(t.TempDir(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "docs/a.md", Content: []byte("one\n")})
			if err != nil {
				t.Fatal(err)
			}
			id := r.Artifact.ID
			thaw := freeze(t, filepath.Join(s.root, "docs"))
			res, err := s.Edit(ctx, id, lunad.Change{Agent: "coder"}, replace("one", "two"))
			if err != nil {
				t.Fatalf("edit: %v (it was committed: the error contradicts it)", err)
			}
			for _, want := range []string{"committed as " + res.Version.Commit, "docs/a.md in the working tree could not be updated", "do not retry"} {
				if !strings.Contains(res.Warning, want) {
					t.Fatalf("warning %q lacks %q", res.Warning, want)
				}
			}
			if got := git(t, s.root, "show", "HEAD:docs/a.md"); got != "two\n" {
				t.Fatalf("HEAD holds %q", got)
			}
			head := git(t, s.root, "rev-parse", "HEAD")

			// Still frozen: the watcher's Record must not take the old file
			// for a person's save; it cannot repair it yet either.
			if _, rec, err := s.Record(ctx, id, lunad.Change{}); rec || err == nil || !strings.Contains(err.Error(), "could not replace") {
				t.Fatalf("Record while frozen: recorded %v, %v", rec, err)
			}
			thaw()
			if _, rec, err := s.Record(ctx, id, lunad.Change{}); rec || err != nil {
				t.Fatalf("Record after thawing: recorded %v, %v", rec, err)
			}
			if b, _ := os.ReadFile(filepath.Join(s.root, "docs/a.md")); string(b) != "two\n" {
				t.Fatalf("working tree %q after the repair", b)
			}
			if h := git(t, s.root, "rev-parse", "HEAD"); h != head {
				t.Fatalf("a commit was made: %s", git(t, s.root, "log", "-1", "--format=%s", "HEAD"))
			}
			u, err := s.Undo(ctx, id, lunad.Change{})
			if err != nil {
				t.Fatal(err)
			}
			if u.Version.Number != 3 || currentContent(t, s, id, "docs/a.md") != "one\n" {
				t.Fatalf("undo: %+v", u.Version)
			}
			if log := git(t, s.root, "log", "--format=%s"); strings.Contains(log, "human") {
				t.Fatalf("a human edit was recorded:\n%s", log)
			}
		})
	}
}

// TestWorkTreeWriteFailsThenEdit: the next edit after a failed working-tree
// write, once the directory is writable again, applies to HEAD and writes
// the file; the stale file is not committed first as a human edit.
func TestWorkTreeWriteFailsThenEdit(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "docs/a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	thaw := freeze(t, filepath.Join(s.root, "docs"))
	if res, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("one", "two")); err != nil || res.Warning == "" {
		t.Fatalf("edit: %+v %v", res, err)
	}
	thaw()
	res, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("two", "three"))
	if err != nil || res.Warning != "" || res.Version.Number != 3 {
		t.Fatalf("edit after thawing: %+v %v", res, err)
	}
	if got := currentContent(t, s, r.Artifact.ID, "docs/a.md"); got != "three\n" {
		t.Fatalf("content %q", got)
	}
	if log := git(t, s.root, "log", "--format=%s"); strings.Contains(log, "human") {
		t.Fatalf("a human edit was recorded:\n%s", log)
	}
	checkRepo(t, s)
}

// TestWorkTreeErrorMessage: the warning names the commit and the files and
// says the cause in plain words, never "nothing was committed".
func TestWorkTreeErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"full disk", &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, ": the disk is full;"},
		{"read-only", &os.PathError{Op: "write", Path: "x", Err: syscall.EROFS}, ": the file system is read-only;"},
		{"quota", syscall.EDQUOT, ": the disk quota is exhausted;"},
		{"immutable", &os.PathError{Op: "rename", Path: "x", Err: syscall.EPERM}, ": permission denied (rename x: operation not permitted);"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := (&workTreeError{commit: "c0ffee", paths: []string{"a.md", "b.md"}, errs: []error{tc.err}}).Error()
			for _, want := range []string{"committed as c0ffee, but a.md, b.md in the working tree could not be updated", tc.want, "do not retry"} {
				if !strings.Contains(msg, want) {
					t.Fatalf("%q lacks %q", msg, want)
				}
			}
			if strings.Contains(msg, "nothing was committed") {
				t.Fatalf("%q contradicts itself", msg)
			}
		})
	}
}
