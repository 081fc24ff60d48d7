package workspace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

// isoWorkspace is a workspace with one artifact, notes/a.md, and the
// isolated workflow iso (wstest.AddIsolated).
type isoWorkspace struct {
	t    *testing.T
	root string
	opts gitstore.Options
	svc  *workspace.Service
}

func newIsoWorkspace(t *testing.T) *isoWorkspace {
	t.Helper()
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	w := &isoWorkspace{t: t, root: t.TempDir(), opts: gitstore.Options{
		Clock: func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock },
		NewID: func() string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprintf("d%07d", n) },
		Human: gitstore.Signature{Name: "Ada", Email: "ada@example.com"}}}
	svc, _, err := workspace.Init(w.root, w.opts)
	if err != nil {
		t.Fatal(err)
	}
	w.svc = svc
	t.Cleanup(func() { w.svc.Close() })
	wstest.Create(t, svc, "notes/a.md", "# A\n\nfrom main\n")
	wstest.AddIsolated(t, w.root)
	if err := svc.SyncGitIndex(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *isoWorkspace) git(dir string, args ...string) string {
	w.t.Helper()
	return wstest.GitRun(w.t, dir, args...)
}

func (w *isoWorkspace) rev(name string) string {
	w.t.Helper()
	return strings.TrimSpace(w.git(w.root, "rev-parse", name))
}

func (w *isoWorkspace) wait(id string) lunad.RunInfo {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	info, err := w.svc.WaitRun(ctx, id)
	if err != nil {
		w.t.Fatal(err)
	}
	return info
}

// run starts the iso workflow and waits for it to complete.
func (w *isoWorkspace) run(params map[string]string) lunad.RunInfo {
	w.t.Helper()
	info, err := w.svc.StartRun(context.Background(), lunad.RunRequest{Workflow: "iso", Params: params})
	if err != nil {
		w.t.Fatal(err)
	}
	if info = w.wait(info.ID); info.Status != lunad.RunCompleted {
		w.t.Fatalf("run %s: %s (%s)", info.ID, info.Status, info.Error)
	}
	return info
}

// userSide is what the user's checkout is: HEAD, the branch's commit, the
// index's entries, and `git status` (untracked files aside).
func (w *isoWorkspace) userSide() string {
	w.t.Helper()
	head, _ := os.ReadFile(filepath.Join(w.root, ".git", "HEAD"))
	a, _ := os.ReadFile(filepath.Join(w.root, "notes", "a.md"))
	return fmt.Sprintf("HEAD %s main %s\nnotes/a.md %q\nindex:\n%sstatus:\n%s", head, w.rev("main"), a,
		w.git(w.root, "ls-files", "-s"), w.git(w.root, "status", "--porcelain", "--untracked-files=no"))
}

// checkWorktree asserts that git lists dir as a worktree on branch, not
// prunable, and that `git status` there is clean.
func (w *isoWorkspace) checkWorktree(dir, branch string) {
	w.t.Helper()
	list := w.git(w.root, "worktree", "list", "--porcelain")
	entry := "worktree " + dir + "\n"
	i := strings.Index(list, entry)
	if i < 0 {
		w.t.Fatalf("git worktree list has no %s:\n%s", dir, list)
	}
	rest, _, _ := strings.Cut(list[i:], "\n\n")
	if !strings.Contains(rest, "branch refs/heads/"+branch+"\n") && !strings.HasSuffix(rest, "branch refs/heads/"+branch) || strings.Contains(rest, "prunable") {
		w.t.Fatalf("git worktree list:\n%s", rest)
	}
	if st := w.git(dir, "status", "--porcelain"); st != "" {
		w.t.Fatalf("git status in the run's worktree:\n%s", st)
	}
}

// resume opens the workspace again, as a restarted daemon does, drives
// its runs, and waits for run id to complete.
func (w *isoWorkspace) resume(id string) lunad.RunInfo {
	w.t.Helper()
	svc, err := workspace.Open(w.root, w.opts)
	if err != nil {
		w.t.Fatal(err)
	}
	w.svc = svc
	if err := svc.DriveRuns(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	got := w.wait(id)
	if got.Status != lunad.RunCompleted {
		w.t.Fatalf("resumed: %s (%s) %v", got.Status, got.Error, wstest.EventTypes(got))
	}
	return got
}

// waitStarted waits until run id's last event is the STAGE_STARTED of
// stage: its attempt is running.
func (w *isoWorkspace) waitStarted(id, stage string) {
	w.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := w.svc.Run(context.Background(), id)
		if err != nil {
			w.t.Fatal(err)
		}
		if n := len(got.Events); n > 0 && got.Events[n-1].Type == lunad.EventStageStarted && got.Events[n-1].Stage == stage {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("stage %s never started: %v", stage, wstest.EventTypes(got))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// output is a stage's output.
type output struct {
	Stage, Cwd, Branch, Dir string
	SawNew                  bool `json:"saw_new"`
}

func stageOutput(t *testing.T, info lunad.RunInfo, i int) output {
	t.Helper()
	var o output
	if err := json.Unmarshal(info.Stages[i].Output, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestIsolatedRun: an isolated run works in a linked worktree of its own
// on luna/iso/RUN, made from main's tip: its agents run there, each stage's
// writes are a commit on that branch, the worktree's files follow, and
// the user's checkout — HEAD, main, the index, the files — does not
// change. Accepting it fast-forwards main (files and index following) and
// removes the worktree and the branch; git agrees at each step.
func TestIsolatedRun(t *testing.T) {
	ctx := context.Background()
	w := newIsoWorkspace(t)
	base := w.rev("main")
	before := w.userSide()
	info := w.run(nil)
	branch := "luna/iso/" + info.ID
	common := filepath.Join(w.root, ".git")
	dir := filepath.Join(common, "luna", "worktrees", info.ID)
	if info.Branch != branch || info.Base != base || info.BaseBranch != "main" {
		t.Fatalf("run: branch %q base %q base_branch %q", info.Branch, info.Base, info.BaseBranch)
	}
	w.checkWorktree(dir, branch)
	w.git(w.root, "fsck", "--strict", "--no-progress")
	edit, check := stageOutput(t, info, 0), stageOutput(t, info, 1)
	for _, o := range []output{edit, check} {
		if cwd, _ := filepath.EvalSymlinks(o.Cwd); cwd != dir || o.Dir != dir || o.Branch != branch {
			t.Fatalf("stage %s ran in %s, told dir %q branch %q; want %s, %s", o.Stage, o.Cwd, o.Dir, o.Branch, dir, branch)
		}
	}
	if !check.SawNew {
		t.Fatal("stage check did not see notes/new.md in the worktree: it does not follow the run's commits")
	}
	// The run's branch: one commit per stage on main's tip, by the engine.
	log := w.git(w.root, "log", "--format=%s|%(trailers:key=Luna-Run,valueonly,separator=)|%(trailers:key=Luna-Stage,valueonly,separator=)", base+".."+branch)
	if want := fmt.Sprintf("write notes/check.md: run %[1]s, stage check|%[1]s|check\nwrite notes/a.md, notes/new.md: run %[1]s, stage edit|%[1]s|edit\n", info.ID); log != want {
		t.Fatalf("git log %s:\n%s\nwant:\n%s", branch, log, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes", "a.md")); string(b) != "# A\n\nfrom main\nedited by the run\n" {
		t.Fatalf("notes/a.md in the worktree: %q", b)
	}
	// The user's side: as it was.
	if after := w.userSide(); after != before {
		t.Fatalf("the user's checkout changed:\n%s\nwas:\n%s", after, before)
	}
	if _, err := os.Stat(filepath.Join(w.root, "notes", "new.md")); !os.IsNotExist(err) {
		t.Fatalf("notes/new.md in the user's checkout: %v", err)
	}
	// Replay reads what the run wrote from its branch's commits.
	rep, err := w.svc.ReplayRun(ctx, info.ID, false)
	if err != nil || !rep.Identical || rep.Tree == "" {
		t.Fatalf("replay: %+v %v", rep, err)
	}

	acc, err := w.svc.AcceptRun(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	tip := acc.Accepted
	if w.rev("main") != tip || acc.Events[len(acc.Events)-1].Type != lunad.EventRunAccepted {
		t.Fatalf("accept: main at %s, accepted %s, last event %s", w.rev("main"), tip, acc.Events[len(acc.Events)-1].Type)
	}
	if got := w.git(w.root, "log", "--format=%s", "-3", "main"); !strings.HasPrefix(got, "write notes/check.md") || !strings.Contains(got, "write notes/a.md, notes/new.md") {
		t.Fatalf("git log main after accept:\n%s", got)
	}
	if st := w.git(w.root, "status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Fatalf("git status after accept:\n%s", st)
	}
	if got := wstest.Read(t, w.svc, "notes/a.md"); got != "# A\n\nfrom main\nedited by the run\n" {
		t.Fatalf("notes/a.md on main after accept: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(w.root, "notes", "new.md")); string(b) != "new\n" {
		t.Fatalf("notes/new.md in the user's checkout after accept: %q", b)
	}
	if list := w.git(w.root, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Fatalf("worktrees after accept:\n%s", list)
	}
	if got := w.git(w.root, "branch", "--list", "luna/*"); got != "" {
		t.Fatalf("branches after accept: %s", got)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the worktree is left: %v", err)
	}
	if again, err := w.svc.AcceptRun(ctx, info.ID); err != nil || again.Accepted != tip || len(again.Events) != len(acc.Events) {
		t.Fatalf("accept again: %+v %v", again.Accepted, err)
	}
	w.git(w.root, "fsck", "--strict", "--no-progress")
}

// TestIsolatedRunMovedAndDiscarded: a run whose base branch moved is not
// accepted — the typed error names both commits and what to do, and main
// stays where it is — and discarding it removes its worktree and branch.
func TestIsolatedRunMovedAndDiscarded(t *testing.T) {
	ctx := context.Background()
	w := newIsoWorkspace(t)
	base := w.rev("main")
	info := w.run(nil)
	moved := wstest.Create(t, w.svc, "notes/later.md", "made on main meanwhile\n")
	now := w.rev("main")
	_, err := w.svc.AcceptRun(ctx, info.ID)
	var bm *lunad.BranchMovedError
	if !errors.As(err, &bm) || !errors.Is(err, lunad.ErrConflict) {
		t.Fatalf("accept after main moved: %v", err)
	}
	want := lunad.BranchMovedError{Branch: "main", Base: base, Now: now, Run: info.ID, RunBranch: info.Branch}
	if *bm != want {
		t.Fatalf("%+v\nwant %+v", *bm, want)
	}
	if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("(%.12s → %.12s)", base, now)) || !strings.Contains(msg, "git merge "+info.Branch) || !strings.Contains(msg, "discard the run") {
		t.Fatalf("message: %s", msg)
	}
	if w.rev("main") != now || wstest.Read(t, w.svc, moved) != "made on main meanwhile\n" {
		t.Fatal("main changed on a refused accept")
	}

	dis, err := w.svc.DiscardRun(ctx, info.ID)
	if err != nil || !dis.Discarded {
		t.Fatalf("discard: %v %v", dis.Discarded, err)
	}
	if got := w.git(w.root, "branch", "--list", "luna/*"); got != "" {
		t.Fatalf("branches after discard: %s", got)
	}
	if list := w.git(w.root, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Fatalf("worktrees after discard:\n%s", list)
	}
	if _, err := os.Stat(filepath.Join(w.root, ".git", "worktrees", info.ID)); !os.IsNotExist(err) {
		t.Fatalf("git's admin dir is left: %v", err)
	}
	if _, err := w.svc.AcceptRun(ctx, info.ID); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("accept after discard: %v", err)
	}
	w.git(w.root, "fsck", "--strict", "--no-progress")
}

// TestIsolatedRunDirty: an isolated run is not started over uncommitted
// changes; the error names them and says what to do, and nothing is made.
func TestIsolatedRunDirty(t *testing.T) {
	ctx := context.Background()
	w := newIsoWorkspace(t)
	wstest.Save(t, w.root, "notes/a.md", "# A\n\nnot committed\n")
	_, err := w.svc.StartRun(ctx, lunad.RunRequest{Workflow: "iso"})
	if !errors.Is(err, lunad.ErrDirty) || !strings.Contains(err.Error(), "notes/a.md") || !strings.Contains(err.Error(), "commit them or discard them") {
		t.Fatalf("start over a change: %v", err)
	}
	if runs, err := w.svc.Runs(ctx); err != nil || len(runs) != 0 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	if got := w.git(w.root, "branch", "--list", "luna/*"); got != "" {
		t.Fatalf("branches: %s", got)
	}
}

// TestIsolatedRunResumes: a daemon stopped while an isolated run's stage
// ran (its log ends at STAGE_STARTED, as after a kill) resumes the run
// on its branch, even with its worktree removed meanwhile: the worktree is
// made again from the branch — the first stage's commit in it — and each
// stage's writes are committed once.
func TestIsolatedRunResumes(t *testing.T) {
	ctx := context.Background()
	w := newIsoWorkspace(t)
	info, err := w.svc.StartRun(ctx, lunad.RunRequest{Workflow: "iso", Params: map[string]string{"sleep": "60"}})
	if err != nil {
		t.Fatal(err)
	}
	// Until stage check's first attempt runs (edit committed before it).
	w.waitStarted(info.ID, "check")
	if err := w.svc.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(w.root, ".git", "luna", "worktrees", info.ID)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	got := w.resume(info.ID)
	if n := wstest.Interrupted(got); n != 1 {
		t.Fatalf("%d interrupted attempts, want 1: %v", n, wstest.EventTypes(got))
	}
	if !stageOutput(t, got, 1).SawNew {
		t.Fatal("the remade worktree lacks stage edit's commit")
	}
	w.checkWorktree(dir, got.Branch)
	if log := w.git(w.root, "log", "--format=%s", got.Base+".."+got.Branch); strings.Count(log, "\n") != 2 {
		t.Fatalf("commits on the run's branch:\n%s", log)
	}
	if w.rev("main") != got.Base {
		t.Fatal("main moved")
	}
	w.git(w.root, "fsck", "--strict", "--no-progress")
}

// TestIsolatedRunCleansInterruptedAttempt: a daemon stopped in the middle
// of stage edit's attempt, which had half rewritten notes/a.md, made a
// file and a Python cache; meanwhile a person committed on the run's
// branch by hand. The resumed attempt starts from the branch's tip —
// the commit by hand in it, the half-change and the new file gone, the
// ignored cache kept —, so the stage's commit is made from the tip's
// notes/a.md; the commit by hand stays on the branch, each stage is
// committed once, and the user's checkout does not change.
func TestIsolatedRunCleansInterruptedAttempt(t *testing.T) {
	ctx := context.Background()
	w := newIsoWorkspace(t)
	if err := os.WriteFile(filepath.Join(w.root, ".gitignore"), []byte("__pycache__/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.git(w.root, "add", ".gitignore")
	w.git(w.root, "commit", "-q", "-m", "ignore caches")
	before := w.userSide()
	info, err := w.svc.StartRun(ctx, lunad.RunRequest{Workflow: "iso", Params: map[string]string{"sleep": "60", "sleep_in": "edit"}})
	if err != nil {
		t.Fatal(err)
	}
	w.waitStarted(info.ID, "edit")
	if err := w.svc.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(w.root, ".git", "luna", "worktrees", info.ID)
	for name, content := range map[string]string{
		"notes/a.md":            "# A\n\nfrom main\nhalf-wri", // the dead attempt's
		"half.txt":              "half",
		"__pycache__/agent.pyc": "cache",
		"notes/hand.md":         "# Hand\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.git(dir, "add", "notes/hand.md")
	w.git(dir, "commit", "-q", "-m", "by hand")

	got := w.resume(info.ID)
	log := w.git(w.root, "log", "--format=%s|%(trailers:key=Luna-Stage,valueonly,separator=)", got.Base+".."+got.Branch)
	if want := fmt.Sprintf("write notes/check.md: run %[1]s, stage check|check\nwrite notes/a.md, notes/new.md: run %[1]s, stage edit|edit\nby hand|\n", info.ID); log != want {
		t.Fatalf("commits on the run's branch:\n%s\nwant:\n%s", log, want)
	}
	if a := w.git(w.root, "show", got.Branch+":notes/a.md"); a != "# A\n\nfrom main\nedited by the run\n" {
		t.Fatalf("notes/a.md on the run's branch: %q; the resumed attempt did not start from the tip", a)
	}
	if hist := w.git(w.root, "log", "--format=%h", got.Branch, "--", "half.txt", "__pycache__"); hist != "" {
		t.Fatalf("the dead attempt's files were committed: %s", hist)
	}
	if _, err := os.Stat(filepath.Join(dir, "half.txt")); !os.IsNotExist(err) {
		t.Fatalf("half.txt left in the worktree: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "__pycache__", "agent.pyc")); err != nil || string(b) != "cache" {
		t.Fatalf("the ignored cache: %q %v; want it kept", b, err)
	}
	w.checkWorktree(dir, got.Branch)
	if after := w.userSide(); after != before {
		t.Fatalf("the user's checkout changed:\n%s\nwas:\n%s", after, before)
	}
	w.git(w.root, "fsck", "--strict", "--no-progress")
}
