package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

func TestCreateEditLog(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "Config notes", Type: "text/markdown", Content: []byte("# Config\n\nparse_config reads TOML.\n"),
		Change: lunad.Change{Agent: "writer"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Artifact.ID != "a0000001" || r.Artifact.Path != "config-notes.md" || r.Version.Number != 1 {
		t.Fatalf("create result %+v", r)
	}
	keyed := lunad.Change{Agent: "coder", Message: "say JSON", IdempotencyKey: "k1", Input: []byte("TOML→JSON")}
	e, err := s.Edit(ctx, "a0000001", keyed, replace("TOML", "JSON"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Version.Number != 2 || e.Artifact.Version != 2 {
		t.Fatalf("edit result %+v", e)
	}
	checkRepo(t, s)
	if got := git(t, s.root, "show", "HEAD:config-notes.md"); got != "# Config\n\nparse_config reads JSON.\n" {
		t.Fatalf("git show: %q", got)
	}
	log := git(t, s.root, "log", "--format=%an <%ae>|%s|%(trailers:only,unfold)")
	want := []string{
		"coder <coder@agents.lunad>|edit config-notes.md: say JSON|Luna-Artifact: a0000001\nLuna-Op: edit\nLuna-Version: 2\nLuna-Agent: coder\nLuna-Idempotency-Key: k1\nLuna-Request: " +
			requestDigest(newWrite(lunad.OpEdit, keyed, keyed.Input), "a0000001", "coder"),
		"writer <writer@agents.lunad>|create config-notes.md|Luna-Artifact: a0000001\nLuna-Op: create\nLuna-Version: 1\nLuna-Agent: writer",
		"Ada <ada@example.com>|adopt 0 files as artifacts|Luna-Op: adopt\nLuna-Agent: Ada",
	}
	if got := strings.Split(strings.TrimSpace(log), "\n\n"); strings.Join(got, "\n\n") != strings.Join(want, "\n\n") {
		t.Fatalf("git log:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
	}
	// Replay: same result, no new commit.
	head := git(t, s.root, "rev-parse", "HEAD")
	again, err := s.Edit(ctx, "a0000001", keyed, replace("JSON", "YAML"))
	if err != nil || !again.Replayed || again.Version.Commit != e.Version.Commit {
		t.Fatalf("replay: %+v %v", again, err)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Fatal("replay committed")
	}
	hist, err := s.History(ctx, "config-notes.md")
	if err != nil || len(hist) != 2 || hist[1].IdempotencyKey != "k1" || hist[0].Op != lunad.OpCreate {
		t.Fatalf("history %+v %v", hist, err)
	}
	old, a, err := s.Read(ctx, "a0000001", "1")
	if err != nil || string(old) != "# Config\n\nparse_config reads TOML.\n" || a.Version != 1 {
		t.Fatalf("read v1: %q %+v %v", old, a, err)
	}
	if _, _, err := s.Read(ctx, "a0000001", "9"); !errors.Is(err, lunad.ErrNotFound) {
		t.Fatalf("read v9: %v", err)
	}
}

func TestDeterministicHashes(t *testing.T) {
	var heads []string
	for range 2 {
		s := newStore(t)
		if _, err := s.Create(context.Background(), lunad.CreateSpec{Title: "x", Content: []byte("x\n")}); err != nil {
			t.Fatal(err)
		}
		heads = append(heads, git(t, s.root, "rev-parse", "HEAD"))
	}
	if heads[0] != heads[1] {
		t.Fatalf("same inputs, different commits: %v", heads)
	}
}

// The caches under .git/luna are derived data: damaged or wrong, they are
// rebuilt from the repository.
func TestDerivedCachesRebuilt(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	var ids []string
	for i := range 70 { // more than persistAfter, so the metas cache is written
		r, err := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "dir/n" + strconv.Itoa(i) + ".md", Content: []byte("x\n")})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.Artifact.ID)
	}
	if _, err := s.Edit(ctx, ids[3], lunad.Change{IdempotencyKey: "k", Input: []byte("x→y")}, replace("x", "y")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for name, junk := range map[string]string{
		"metas":   `{"tree":"0000000000000000000000000000000000000000","metas":{"zzzz":{"id":"zzzz","path":"dir/n3.md"}}}`,
		"commits": "{\"c\":\"not a hash\"}\n{torn",
		"history": "e {\"c\":\"not a hash\"}\nt 0000000000000000000000000000000000000000\n",
	} {
		if err := os.WriteFile(filepath.Join(s.root, ".git", "luna", name), []byte(junk), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s2, err := Open(s.root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	a, err := s2.Artifact(ctx, "dir/n3.md")
	if err != nil || a.ID != ids[3] || a.Version != 2 {
		t.Fatalf("by path after damaged caches: %+v %v", a, err)
	}
	list, err := s2.List(ctx)
	if err != nil || len(list) != 70 {
		t.Fatalf("list: %d %v", len(list), err)
	}
	again, err := s2.Edit(ctx, ids[3], lunad.Change{IdempotencyKey: "k", Input: []byte("x→y")}, replace("y", "z"))
	if err != nil || !again.Replayed {
		t.Fatalf("idempotency after a rebuilt history cache: %+v %v", again, err)
	}
}

// With IndexSyncDelay (the daemon's setting) the git index follows that
// long after a write, without Close.
func TestIndexSyncWhenIdle(t *testing.T) {
	ctx := context.Background()
	opts := testOptions()
	opts.IndexSyncDelay = 20 * time.Millisecond
	s, _, err := Init(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("a", "b")); err != nil {
		t.Fatal(err)
	}
	var st string
	for range 200 { // wait for the idle sync; the limit only bounds a broken run
		if st = git(t, s.root, "status", "--porcelain"); st == "" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st != "" {
		t.Fatalf("git status never became clean:\n%s", st)
	}
	if got := git(t, s.root, "ls-files", "-s", "a.md"); !strings.Contains(got, plumbingHash("b\n")) {
		t.Fatalf("index entry %q", got)
	}
}

// Under a steady stream of writes the index still follows: the sync is
// due IndexSyncDelay after the first write it has not followed, and later
// writes do not put it off. (A git command holding index.lock keeps each
// write's own index patch from running, so the paths stay pending.)
func TestIndexSyncNotPutOff(t *testing.T) {
	ctx := context.Background()
	opts := testOptions()
	opts.IndexSyncDelay = time.Hour // never fires during the test
	s, _, err := Init(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lock := filepath.Join(s.gitDir, "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(lock)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	first := s.idx.timer
	if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, replace("a", "b")); err != nil {
		t.Fatal(err)
	}
	if s.idx.timer != first || !s.idx.due {
		t.Fatal("a second write put the index sync off")
	}
	if first.Stop() == false {
		t.Fatal("the sync due after the first write was stopped")
	}
}

func plumbingHash(content string) string {
	return plumbing.ComputeHash(plumbing.BlobObject, []byte(content)).String()
}

// A store configured as the daemon configures it (IndexSyncDelay > 0)
// answers a write with the index entries of what it touched already
// synced: `git status` right after is clean, and a person's `git commit`
// of what they staged keeps the edit in HEAD. (The delay is an hour, so
// that no deferred sync can make this pass.)
func TestIndexSyncedBeforeAnswer(t *testing.T) {
	ctx := context.Background()
	opts := testOptions()
	opts.IndexSyncDelay = time.Hour
	s, _, err := Init(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("alpha\n")})
	if err != nil {
		t.Fatal(err)
	}
	if st := git(t, s.root, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after create:\n%s", st)
	}
	if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{Agent: "coder"}, replace("alpha", "beta")); err != nil {
		t.Fatal(err)
	}
	if st := git(t, s.root, "status", "--porcelain"); st != "" {
		t.Fatalf("git status right after the edit:\n%s", st)
	}
	if d := git(t, s.root, "diff", "--cached", "--name-only"); d != "" {
		t.Fatalf("git diff --cached right after the edit: %s", d)
	}
	writeFile(t, s.root, "notes.txt", "by hand\n")
	git(t, s.root, "add", "notes.txt")
	git(t, s.root, "commit", "-q", "-m", "notes by hand")
	if got := git(t, s.root, "show", "HEAD:a.md"); got != "beta\n" {
		t.Fatalf("HEAD:a.md after a hand commit = %q, want the edit", got)
	}
	// The index keeps following: a second edit, then `git commit -am`.
	if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{Agent: "coder"}, replace("beta", "gamma")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, s.root, "notes.txt", "by hand, again\n")
	git(t, s.root, "commit", "-q", "-am", "notes again")
	if got := git(t, s.root, "show", "HEAD:a.md"); got != "gamma\n" {
		t.Fatalf("HEAD:a.md after git commit -am = %q, want the edit", got)
	}
	git(t, s.root, "fsck", "--strict", "--no-progress")
}
