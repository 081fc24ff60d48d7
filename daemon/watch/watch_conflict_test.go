package watch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
)

// A `git stash pop` that stops on a conflict while the watcher runs: the
// file with conflict markers is never recorded (nor taken in first by a
// lunad write, which is refused saying what to do); once the person
// resolves it and runs git add, the resolved content is recorded.
func TestWatchConflictedStashPop(t *testing.T) {
	s := newService(t)
	id := create(t, s, "notes.md", "one\ntwo\nthree\n")
	root := s.Root()

	// The person's change, stashed; then the same line changed by lunad.
	save(t, s, "notes.md", "one\nTWO by hand\nthree\n")
	gitRun(t, root, "stash")
	if _, err := s.Edit(context.Background(), lunad.EditRequest{ID: id, Patch: "@@ -2 +2 @@\n-two\n+TWO by lunad\n"}); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, s, Options{RecordSaves: true})
	eventually(t, "git status clean", func() bool { out, _ := gitCmd(root, "status", "--porcelain"); return out == "" })
	head := strings.TrimSpace(gitRun(t, root, "rev-parse", "HEAD"))
	if out, err := gitCmd(root, "stash", "pop"); err == nil || !strings.Contains(out, "CONFLICT") {
		t.Fatalf("git stash pop did not stop on a conflict: %v\n%s", err, out)
	}
	eventually(t, "the conflict logged", func() bool {
		return strings.Contains(w.log.String(), "not recording a file in conflict")
	})
	if got := strings.TrimSpace(gitRun(t, root, "rev-parse", "HEAD")); got != head {
		t.Fatalf("a commit was made of the conflicted file: %s", gitRun(t, root, "show", got))
	}
	_, err := s.Edit(context.Background(), lunad.EditRequest{ID: id, Patch: "@@ -1 +1 @@\n-one\n+ONE\n"})
	if !errors.Is(err, gitstore.ErrUnmerged) || !errors.Is(err, lunad.ErrDirty) || !strings.Contains(err.Error(), "git add notes.md") {
		t.Fatalf("edit of a conflicted file: %v", err)
	}

	// The person resolves it.
	save(t, s, "notes.md", "one\nTWO by both\nthree\n")
	gitRun(t, root, "add", "notes.md")
	w.await("the resolution recorded", changedFor(id))
	if got := read(t, s, id); got != "one\nTWO by both\nthree\n" {
		t.Fatalf("recorded %q", got)
	}
	log := gitRun(t, root, "log", "-p", "--format=%s", head+"..HEAD")
	if strings.Contains(log, "<<<<<<<") || !strings.Contains(log, "human edit notes.md") {
		t.Fatalf("history since the stash pop:\n%s", log)
	}
}
