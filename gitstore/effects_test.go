package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

func stageChange(key string) lunad.Change {
	return lunad.Change{Agent: "writer", Message: "stage draft", IdempotencyKey: key,
		Extra: map[string]string{"Run": "r1", "Stage": "draft", "Attempt": "2"}}
}

func TestApplyWritesOneCommit(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a, err := s.Create(ctx, lunad.CreateSpec{Title: "A", Path: "notes/a.md", Content: []byte("# A\n")})
	if err != nil {
		t.Fatal(err)
	}
	before := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD"))
	writes := []lunad.StageWrite{
		{Path: "notes/a.md", Content: "# A\n\nrewritten\n"},
		{Path: "notes/b.md", Content: "# B\n"},
		{Path: "src/deep/c.py", Content: "print(1)\n"},
	}
	refs, commit, replayed, err := s.ApplyWrites(ctx, writes, stageChange("run-r1-draft-v1"))
	if err != nil || replayed {
		t.Fatalf("ApplyWrites: %v replayed=%v", err, replayed)
	}
	if head := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD")); head != commit {
		t.Fatalf("HEAD %s, ApplyWrites returned %s", head, commit)
	}
	if n := git(t, s.root, "rev-list", "--count", before+"..HEAD"); n != "1\n" {
		t.Errorf("%s commits, want one", n)
	}
	if refs[0].ID != a.Artifact.ID || refs[0].Version != 2 || refs[1].Version != 1 || refs[2].Version != 1 {
		t.Errorf("refs %+v", refs)
	}
	for i, r := range refs {
		if r.Commit != commit || r.Path != writes[i].Path {
			t.Errorf("ref %d: %+v", i, r)
		}
	}
	// git's view: the three files and the two new metadata files in one
	// commit, the trailers, a clean repository.
	stat := git(t, s.root, "show", "--name-status", "--format=", commit)
	for _, want := range []string{"M\tnotes/a.md", "A\tnotes/b.md", "A\tsrc/deep/c.py",
		"A\t" + metaPath(refs[1].ID), "A\t" + metaPath(refs[2].ID)} {
		if !strings.Contains(stat, want+"\n") {
			t.Errorf("git show lacks %q:\n%s", want, stat)
		}
	}
	if n := strings.Count(git(t, s.root, "show", "--stat", "--format=", commit), "|"); n != 5 {
		t.Errorf("git show --stat lists %d files, want 5", n)
	}
	trailers := git(t, s.root, "log", "-1", "--format=%(trailers)", commit)
	for _, want := range []string{"Luna-Run: r1", "Luna-Stage: draft", "Luna-Attempt: 2", "Luna-Agent: writer",
		"Luna-Idempotency-Key: run-r1-draft-v1", "Luna-Op: edit", "Luna-Artifact: " + a.Artifact.ID,
		"Luna-Also: " + refs[1].ID + ":create:1 " + refs[2].ID + ":create:1"} {
		if !strings.Contains(trailers, want+"\n") {
			t.Errorf("trailers lack %q:\n%s", want, trailers)
		}
	}
	if subj := git(t, s.root, "log", "-1", "--format=%s", commit); subj != "write notes/a.md, notes/b.md, src/deep/c.py: stage draft\n" {
		t.Errorf("subject %q", subj)
	}
	checkRepo(t, s)

	// lunad's view: each artifact's history, type, title, content.
	check := func(s *Store) {
		t.Helper()
		for i, r := range refs {
			h, err := s.History(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			last := h[len(h)-1]
			wantOp := lunad.OpCreate
			if i == 0 {
				wantOp = lunad.OpEdit
			}
			if last.Number != r.Version || last.Commit != commit || last.Op != wantOp || last.Agent != "writer" || last.Extra["Run"] != "r1" {
				t.Errorf("%s: last version %+v", r.Path, last)
			}
			b, art, err := s.Read(ctx, r.ID, "")
			if err != nil || string(b) != writes[i].Content || art.Path != r.Path || art.Version != r.Version {
				t.Errorf("read %s: %q %+v %v", r.Path, b, art, err)
			}
		}
		all, _ := s.History(ctx, "")
		var here []string
		for _, v := range all {
			if v.Commit == commit {
				here = append(here, v.Artifact)
			}
		}
		if len(here) != 3 {
			t.Errorf("History(\"\") lists the commit for %v, want the three artifacts", here)
		}
	}
	check(s)
	if art, _ := s.Artifact(ctx, refs[2].ID); art.Type != "code/python" || art.Title != "c.py" {
		t.Errorf("new artifact %+v", art)
	}
	// A fresh store, its history index rebuilt from the commits' trailers.
	os.Remove(filepath.Join(s.gitDir, "luna", "commits"))
	os.Remove(filepath.Join(s.gitDir, "luna", historySnapName))
	s2, err := Open(s.root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	check(s2)
	s2.Close()

	// Undo works per artifact on a shared commit.
	if _, err := s.Undo(ctx, refs[0].ID, lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	if b, _, _ := s.Read(ctx, refs[0].ID, ""); string(b) != "# A\n" {
		t.Errorf("after undo: %q", b)
	}
	if b, _, _ := s.Read(ctx, refs[1].ID, ""); string(b) != "# B\n" {
		t.Errorf("undo of a touched b: %q", b)
	}
	checkRepo(t, s)
}

func TestApplyWritesIdempotent(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Create(ctx, lunad.CreateSpec{Title: "A", Path: "a.md", Content: []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	writes := []lunad.StageWrite{{Path: "a.md", Content: "a\n"}, {Path: "b.md", Content: "b\n"}} // a.md: no change
	refs, commit, _, err := s.ApplyWrites(ctx, writes, stageChange("k1"))
	if err != nil {
		t.Fatal(err)
	}
	if refs[0].Version != 1 || refs[0].Commit == commit || refs[1].Version != 1 || refs[1].Commit != commit {
		t.Errorf("refs %+v (commit %s)", refs, commit)
	}
	if _, err := s.Edit(ctx, "a.md", lunad.Change{}, appendLine("later")); err != nil {
		t.Fatal(err)
	}
	head := git(t, s.root, "rev-parse", "HEAD")
	for name, ws := range map[string][]lunad.StageWrite{"same": writes, "reordered": {writes[1], writes[0]}} {
		r2, c2, replayed, err := s.ApplyWrites(ctx, ws, stageChange("k1"))
		if err != nil || !replayed || c2 != commit {
			t.Fatalf("%s repeat: %v replayed=%v commit %s", name, err, replayed, c2)
		}
		if name == "same" && !slices.Equal(r2, refs) {
			t.Errorf("repeat refs %+v, first %+v", r2, refs)
		}
	}
	// A fresh store replays from the commit's trailers.
	s2, err := Open(s.root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	r3, c3, replayed, err := s2.ApplyWrites(ctx, writes, stageChange("k1"))
	s2.Close()
	if err != nil || !replayed || c3 != commit || !slices.Equal(r3, refs) {
		t.Errorf("fresh store repeat: %+v %s %v %v", r3, c3, replayed, err)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Errorf("a repeat committed")
	}
	// The key with other writes, another agent or other trailers: conflict.
	other := stageChange("k1")
	other.Extra["Attempt"] = "3"
	for name, c := range map[string]struct {
		ws []lunad.StageWrite
		ch lunad.Change
	}{
		"other content": {[]lunad.StageWrite{{Path: "b.md", Content: "B\n"}, writes[0]}, stageChange("k1")},
		"fewer writes":  {writes[1:], stageChange("k1")},
		"other agent":   {writes, lunad.Change{Agent: "other", Message: "stage draft", IdempotencyKey: "k1", Extra: stageChange("").Extra}},
		"other attempt": {writes, other},
	} {
		_, _, _, err := s.ApplyWrites(ctx, c.ws, c.ch)
		var kr *lunad.KeyReusedError
		if !errors.As(err, &kr) || !errors.Is(err, lunad.ErrConflict) {
			t.Errorf("%s: %v, want KeyReusedError", name, err)
		}
	}
	// An edit reusing the key is refused too.
	if _, err := s.Edit(ctx, "b.md", lunad.Change{IdempotencyKey: "k1", Input: []byte("x")}, appendLine("x")); !errors.Is(err, lunad.ErrConflict) {
		t.Errorf("edit with the stage's key: %v", err)
	}
	// All no-ops: no commit.
	r4, c4, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{{Path: "b.md", Content: "b\n"}}, stageChange(""))
	if err != nil || c4 != "" || r4[0].Version != 1 || r4[0].Commit != commit {
		t.Errorf("no-op writes: %+v %q %v", r4, c4, err)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Errorf("no-op writes committed")
	}
	checkRepo(t, s)
}

// TestApplyWritesTitleAndType: a write that creates an artifact gives it
// its title and type; an existing artifact keeps its own; the key of a
// request is bound to them too.
func TestApplyWritesTitleAndType(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a, err := s.Create(ctx, lunad.CreateSpec{Title: "Old title", Path: "a.md", Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	writes := []lunad.StageWrite{
		{Path: "a.md", Content: "a2\n", Title: "Ignored", Type: "text/plain"},
		{Path: "docs/config.md", Content: "# Config\n", Title: "Reading the config"},
		{Path: "src/run.sh", Content: "echo\n", Type: "code/bash"},
		{Path: "plain.md", Content: "p\n"},
	}
	refs, _, _, err := s.ApplyWrites(ctx, writes, stageChange("k-title"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ title, typ string }{
		{"Old title", "text/markdown"}, {"Reading the config", "text/markdown"}, {"run.sh", "code/bash"}, {"plain.md", "text/markdown"},
	} {
		got, err := s.Artifact(ctx, refs[i].ID)
		if err != nil || got.Title != want.title || got.Type != want.typ {
			t.Errorf("%s: %q %q (%v), want %q %q", writes[i].Path, got.Title, got.Type, err, want.title, want.typ)
		}
	}
	if refs[0].ID != a.Artifact.ID {
		t.Errorf("a.md is a new artifact: %+v", refs[0])
	}
	other := slices.Clone(writes)
	other[1].Title = "Another title"
	if _, _, _, err := s.ApplyWrites(ctx, other, stageChange("k-title")); !errors.Is(err, lunad.ErrConflict) {
		t.Errorf("the key with another title: %v, want ErrConflict", err)
	}
	if _, _, replayed, err := s.ApplyWrites(ctx, writes, stageChange("k-title")); err != nil || !replayed {
		t.Errorf("repeat: replayed %v, %v", replayed, err)
	}
}

func TestApplyWritesRefused(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Create(ctx, lunad.CreateSpec{Title: "A", Path: "notes/a.md", Content: []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(s.root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "f.md"), filepath.Join(s.root, "flink.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(s.root, "emptydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	head := git(t, s.root, "rev-parse", "HEAD")
	status := git(t, s.root, "status", "--porcelain", "--ignored")
	good := lunad.StageWrite{Path: "notes/new.md", Content: "new\n"}
	edit := lunad.StageWrite{Path: "notes/a.md", Content: "changed\n"}
	for _, c := range []struct {
		name string
		ws   []lunad.StageWrite
		want error
	}{
		{"absolute", []lunad.StageWrite{good, {Path: "/etc/passwd", Content: "x"}}, lunad.ErrInvalid},
		{"absolute in the workspace", []lunad.StageWrite{edit, {Path: filepath.Join(s.root, "x.md"), Content: "x"}}, lunad.ErrInvalid},
		{"dot dot", []lunad.StageWrite{good, {Path: "../escape.md", Content: "x"}}, lunad.ErrInvalid},
		{"dot dot inside", []lunad.StageWrite{good, {Path: "notes/../../escape.md", Content: "x"}}, lunad.ErrInvalid},
		{"into .git", []lunad.StageWrite{good, {Path: ".git/hooks/post-commit", Content: "x"}}, lunad.ErrInvalid},
		{"into .GIT", []lunad.StageWrite{good, {Path: ".GIT/config", Content: "x"}}, lunad.ErrInvalid},
		{"into .luna", []lunad.StageWrite{good, {Path: ".luna/workspace.json", Content: "{}"}}, lunad.ErrInvalid},
		{"through a symlinked dir", []lunad.StageWrite{edit, {Path: "link/x.md", Content: "x"}}, lunad.ErrInvalid},
		{"onto a symlink", []lunad.StageWrite{edit, {Path: "flink.md", Content: "x"}}, lunad.ErrInvalid},
		{"a tracked directory", []lunad.StageWrite{good, {Path: "notes", Content: "x"}}, lunad.ErrInvalid},
		{"a working-tree directory", []lunad.StageWrite{good, {Path: "emptydir", Content: "x"}}, lunad.ErrInvalid},
		{"trailing slash", []lunad.StageWrite{good, {Path: "notes/", Content: "x"}}, lunad.ErrInvalid},
		{"empty path", []lunad.StageWrite{good, {Path: "", Content: "x"}}, lunad.ErrInvalid},
		{"backslash", []lunad.StageWrite{good, {Path: `notes\x.md`, Content: "x"}}, lunad.ErrInvalid},
		{"twice", []lunad.StageWrite{good, good}, lunad.ErrInvalid},
		{"case twins", []lunad.StageWrite{good, {Path: "notes/NEW.md", Content: "x"}}, lunad.ErrInvalid},
		{"file and dir", []lunad.StageWrite{good, {Path: "notes/new.md/x.md", Content: "x"}}, lunad.ErrInvalid},
		{"file and dir, another path sorted between", []lunad.StageWrite{{Path: "x/a", Content: "x"}, {Path: "x/a-b", Content: "x"}, {Path: "x/a/b", Content: "x"}}, lunad.ErrInvalid},
		{"file and dir, case twins", []lunad.StageWrite{{Path: "x/A", Content: "x"}, {Path: "x/a/b", Content: "x"}}, lunad.ErrInvalid},
		{"binary", []lunad.StageWrite{good, {Path: "bin.md", Content: "a\x00b"}}, lunad.ErrInvalid},
		{"two-line title", []lunad.StageWrite{good, {Path: "t.md", Content: "x", Title: "a\nb"}}, lunad.ErrInvalid},
		{"bad type", []lunad.StageWrite{good, {Path: "t.md", Content: "x", Type: "Markdown"}}, lunad.ErrInvalid},
		{"no writes", nil, lunad.ErrInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, commit, _, err := s.ApplyWrites(ctx, c.ws, stageChange(""))
			if !errors.Is(err, c.want) || commit != "" {
				t.Errorf("%v (commit %q), want %v", err, commit, c.want)
			}
		})
	}
	// A person's unrecorded change to a.md, then a refused stage: the
	// human commit made on the way is rolled back too.
	writeFile(t, s.root, "notes/a.md", "typed by hand\n")
	if _, _, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{edit, {Path: "link/y.md", Content: "y"}}, stageChange("")); !errors.Is(err, lunad.ErrInvalid) {
		t.Errorf("refused stage after a hand edit: %v", err)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Fatalf("a refused write committed")
	}
	writeFile(t, s.root, "notes/a.md", "a\n")
	if got := git(t, s.root, "status", "--porcelain", "--ignored"); got != status {
		t.Errorf("refused writes changed the working tree:\n%s\nwas:\n%s", got, status)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("something was written through the symlink: %v", entries)
	}
	// Extra trailers naming lunad's own are refused.
	bad := stageChange("")
	bad.Extra["Also"] = "a0000001:edit:9"
	if _, _, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{good}, bad); !errors.Is(err, lunad.ErrInvalid) {
		t.Errorf("Extra Also: %v", err)
	}
	// And the good writes alone go through.
	if _, commit, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{good, edit}, stageChange("")); err != nil || commit == "" {
		t.Fatalf("good writes: %v", err)
	}
	for _, p := range []string{"link", "flink.md"} {
		os.Remove(filepath.Join(s.root, p))
	}
	os.Remove(filepath.Join(s.root, "emptydir"))
	checkRepo(t, s)
}

// TestApplyWritesAdoptsTrackedFile: a file committed with git after lunad
// init is no artifact; a stage write to it adopts it (one commit: the
// metadata and the new content), and refuses when the working tree holds
// changes to it that are not committed.
func TestApplyWritesAdoptsTrackedFile(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if err := os.WriteFile(filepath.Join(s.root, "calc.py"), []byte("def add(a, b):\n    return a - b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, s.root, "add", "calc.py")
	git(t, s.root, "commit", "-qm", "calc by hand")
	before := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD"))

	t.Run("dirty refused", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(s.root, "calc.py"), []byte("unsaved\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, commit, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{{Path: "calc.py", Content: "x\n"}}, stageChange(""))
		if !errors.Is(err, lunad.ErrDirty) || commit != "" || !strings.Contains(err.Error(), "calc.py has uncommitted changes") {
			t.Fatalf("err %v, commit %q; want ErrDirty naming calc.py", err, commit)
		}
		git(t, s.root, "checkout", "--", "calc.py")
	})
	t.Run("adopted", func(t *testing.T) {
		want := "def add(a, b):\n    return a + b\n"
		refs, commit, _, err := s.ApplyWrites(ctx, []lunad.StageWrite{{Path: "calc.py", Content: want}}, stageChange(""))
		if err != nil {
			t.Fatal(err)
		}
		if n := git(t, s.root, "rev-list", "--count", before+"..HEAD"); n != "1\n" {
			t.Errorf("%s commits, want one", n)
		}
		stat := git(t, s.root, "show", "--name-status", "--format=", commit)
		for _, line := range []string{"M\tcalc.py", "A\t" + metaPath(refs[0].ID)} {
			if !strings.Contains(stat, line+"\n") {
				t.Errorf("git show lacks %q:\n%s", line, stat)
			}
		}
		got, a, err := s.Read(ctx, "calc.py", "")
		if err != nil || string(got) != want || a.ID != refs[0].ID || refs[0].Version != 1 {
			t.Errorf("read %q %+v %v; refs %+v", got, a, err, refs)
		}
		checkRepo(t, s)
	})
}

// TestApplyWritesDeferred: a deferred stage commit is visible at once and
// leaves the fsync of the branch's directory to the next syncfs; without
// syncfs, or not deferred, the directory is fsynced before it returns, and
// Close fsyncs one no later write did.
func TestApplyWritesDeferred(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	heads := filepath.Join(s.commonDir, "refs", "heads")
	s.mu.Lock()
	base := s.branchDirSyncs // the repository's creation's
	s.mu.Unlock()
	steps := []struct {
		name              string
		deferred, perFile bool
		syncs             int    // fsyncs of refs/heads by the steps so far
		unsynced          string // the directory left to the next syncfs
	}{
		{"durable", false, false, 1, ""},
		{"deferred", true, false, 1, heads},
		{"durable after a deferred one", false, false, 2, ""},
		{"deferred without syncfs", true, true, 3, ""},
		{"deferred again", true, false, 3, heads},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			s.mu.Lock()
			s.objs.perFile = st.perFile
			s.mu.Unlock()
			apply := s.ApplyWrites
			if st.deferred {
				apply = s.ApplyWritesDeferred
			}
			w := []lunad.StageWrite{{Path: "out.md", Content: strings.Repeat("v\n", i+1)}}
			_, commit, _, err := apply(ctx, w, stageChange(st.name))
			if err != nil {
				t.Fatal(err)
			}
			if head := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD")); head != commit {
				t.Fatalf("HEAD is %s, not the commit %s", head, commit)
			}
			s.mu.Lock()
			n, dir := s.branchDirSyncs-base, s.unsyncedBranchDir
			s.mu.Unlock()
			if n != st.syncs || dir != st.unsynced {
				t.Fatalf("%d fsyncs of the branch's directory, %q left unsynced; want %d, %q", n, dir, st.syncs, st.unsynced)
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.unsyncedBranchDir != "" {
		t.Fatal("Close left a deferred commit unsynced")
	}
	git(t, s.root, "fsck", "--strict", "--no-progress")
}
