package runs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/runs/workflow"
)

// fakeIsolation is a runs.Isolation that keeps each run's branch in
// memory: its commits are the writes its Effects got, each a made-up
// commit hash. It records every call.
type fakeIsolation struct {
	t    *testing.T
	dirs string // the parent of the runs' worktree directories

	mu      sync.Mutex
	base    string // what Base answers
	from    string
	baseErr error // Base's error, if set
	wtErr   error // Worktree's error, if set
	// cleanErrs are Clean's errors, one per call while they last.
	cleanErrs []error
	cleaned   runs.Cleaned // what Clean answers
	// cleanHeld, if set, makes Clean tell it it was called, then wait for
	// its context to end.
	cleanHeld chan struct{}
	accErr    error // Accept's error, if set
	calls     []string
	commits   []fakeCommit
}

type fakeCommit struct {
	hash, run string
	files     map[string]string // path → content
	acks      []string
}

func newFakeIsolation(t *testing.T) *fakeIsolation {
	return &fakeIsolation{t: t, dirs: t.TempDir(), base: strings.Repeat("b", 40), from: "main"}
}

func (f *fakeIsolation) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fakeIsolation) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fakeIsolation) Base(ctx context.Context) (string, string, error) {
	f.record("base")
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.from, f.base, f.baseErr
}

func (f *fakeIsolation) Worktree(ctx context.Context, run, branch, base string) (string, runs.Effects, error) {
	f.record(fmt.Sprintf("worktree %s %s base=%q", run, branch, base))
	f.mu.Lock()
	err := f.wtErr
	f.mu.Unlock()
	if err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(f.Dir(run), 0o755); err != nil {
		return "", nil, err
	}
	return f.Dir(run), &fakeBranch{f: f, run: run}, nil
}

func (f *fakeIsolation) Clean(ctx context.Context, run, branch string) (runs.Cleaned, error) {
	f.record(fmt.Sprintf("clean %s %s", run, branch))
	f.mu.Lock()
	held := f.cleanHeld
	f.cleanHeld = nil
	f.mu.Unlock()
	if held != nil {
		close(held)
		<-ctx.Done()
		return runs.Cleaned{}, fmt.Errorf("clean worktree: %w", ctx.Err())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.cleanErrs) > 0 {
		err := f.cleanErrs[0]
		f.cleanErrs = f.cleanErrs[1:]
		return runs.Cleaned{}, err
	}
	return f.cleaned, nil
}

func (f *fakeIsolation) Dir(run string) string { return filepath.Join(f.dirs, run) }

func (f *fakeIsolation) Accept(ctx context.Context, run, branch, into, base string) (string, error) {
	f.record(fmt.Sprintf("accept %s %s into %s from %.7s", run, branch, into, base))
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.accErr != nil {
		return "", f.accErr
	}
	tip := base
	for _, c := range f.commits {
		if c.run == run {
			tip = c.hash
		}
	}
	return tip, nil
}

func (f *fakeIsolation) Discard(ctx context.Context, run, branch string) error {
	f.record(fmt.Sprintf("discard %s %s", run, branch))
	return nil
}

// fakeBranch is the Effects of one run's branch.
type fakeBranch struct {
	f   *fakeIsolation
	run string
}

func (b *fakeBranch) commit(c fakeCommit) string {
	b.f.mu.Lock()
	defer b.f.mu.Unlock()
	c.run, c.hash = b.run, fmt.Sprintf("%040x", len(b.f.commits)+1)
	b.f.commits = append(b.f.commits, c)
	return c.hash
}

func (b *fakeBranch) ApplyWrites(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	files := map[string]string{}
	for _, w := range writes {
		files[w.Path] = w.Content
	}
	hash := b.commit(fakeCommit{files: files})
	refs := make([]lunad.ArtifactRef, len(writes))
	for i, w := range writes {
		refs[i] = lunad.ArtifactRef{ID: "f-" + strings.ReplaceAll(w.Path, "/", "-"), Path: w.Path, Version: 1, Commit: hash}
	}
	return refs, nil
}

func (b *fakeBranch) Ack(ctx context.Context, ref, symbol string, ch lunad.Change) (lunad.ArtifactRef, error) {
	hash := b.commit(fakeCommit{acks: []string{ref + "#" + symbol}})
	return lunad.ArtifactRef{ID: ref, Commit: hash}, nil
}

func (b *fakeBranch) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	return lunad.Artifact{}, &lunad.NotFoundError{Kind: "artifact", Ref: ref}
}

func (b *fakeBranch) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	return b.f.read(ref, at)
}

// read is an artifact as a fake branch's commit at wrote it.
func (f *fakeIsolation) read(ref, at string) ([]byte, lunad.Artifact, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.commits {
		if c.hash != at {
			continue
		}
		for p, content := range c.files {
			if "f-"+strings.ReplaceAll(p, "/", "-") == ref {
				return []byte(content), lunad.Artifact{ID: ref, Path: p}, nil
			}
		}
	}
	return nil, lunad.Artifact{}, &lunad.NotFoundError{Kind: "artifact", Ref: ref}
}

// branchReads reads the fake branches' commits, then the workspace: the
// engine reads an isolated run's writes back for a replay.
type branchReads struct {
	runs.Effects
	f *fakeIsolation
}

func (r branchReads) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	if b, a, err := r.f.read(ref, at); err == nil {
		return b, a, nil
	}
	return r.Effects.Read(ctx, ref, at)
}

// withIsolation configures the engine with f as its Isolation.
func withIsolation(f *fakeIsolation, more func(*runs.Options)) func(*runs.Options) {
	return func(o *runs.Options) {
		o.Isolation = f
		o.Effects = branchReads{o.Effects, f}
		if more != nil {
			more(o)
		}
	}
}

// isolated is a two-stage isolated workflow of the built-in agent
// "scribe".
const isolated = `name = "iso"
version = "1"
isolated = true
start = "a"
[stages.a]
agent = "scribe"
[[stages.a.next]]
to = "b"
[stages.b]
agent = "scribe"
[[stages.b.next]]
to = "end"
`

// scribe writes notes/STAGE.md and, in stage b, acknowledges notes/a.md.
func scribe() *goAgent {
	return &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
		resp := lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{"stage":"` + req.Stage + `"}`),
			Writes: []lunad.StageWrite{{Path: "notes/" + req.Stage + ".md", Content: req.Stage + " in " + req.Dir + "\n"}}}
		if req.Stage == "b" {
			resp.Acks = []lunad.StageAck{{Ref: "notes/a.md"}}
		}
		return resp
	}}
}

// TestIsolatedRun: an isolated workflow's run records its branch and base
// at RUN_CREATED, has its worktree made before its first stage, hands its
// agents the branch and the worktree, commits its writes and acks through
// the worktree's Effects (the workspace's branch gets none), replays
// identically, and is accepted or discarded once, each recorded.
func TestIsolatedRun(t *testing.T) {
	ctx := context.Background()
	f := newFakeIsolation(t)
	a := scribe()
	w := newWorkspaceWith(t, map[string]string{"iso": isolated}, withAgent(a, withIsolation(f, nil)))
	if wi, err := w.eng.Workflow(ctx, "iso"); err != nil || !wi.Isolated {
		t.Fatalf("Workflow(iso) = %+v %v; want isolated", wi, err)
	}
	mainTip := strings.TrimSpace(w.git("rev-parse", "HEAD"))
	info := w.run(lunad.RunRequest{Workflow: "iso"})
	if info.Status != lunad.RunCompleted {
		t.Fatalf("run: %s (%s)", info.Status, info.Error)
	}
	branch := "luna/iso/" + info.ID
	created := info.Events[0]
	if created.Type != lunad.EventRunCreated || created.Branch != branch || created.Base != f.base || created.BaseBranch != "main" {
		t.Fatalf("RUN_CREATED: branch %q base %q base_branch %q", created.Branch, created.Base, created.BaseBranch)
	}
	if info.Branch != branch || info.Base != f.base || info.BaseBranch != "main" {
		t.Fatalf("RunInfo: branch %q base %q base_branch %q", info.Branch, info.Base, info.BaseBranch)
	}
	// The branch and base are on the event's line in git, for `git log`.
	if msg := w.git("log", "--format=%B", "--grep=^RUN_CREATED", "refs/luna/runs/"+info.ID); !strings.Contains(msg, `"branch":"`+branch+`"`) || !strings.Contains(msg, `"base_branch":"main"`) {
		t.Fatalf("RUN_CREATED in git:\n%s", msg)
	}
	dir := f.Dir(info.ID)
	for i, req := range a.requests() {
		if req.Branch != branch || req.Dir != dir {
			t.Fatalf("request %d (stage %s): branch %q dir %q; want %q %q", i, req.Stage, req.Branch, req.Dir, branch, dir)
		}
	}
	calls := f.called()
	wantCalls := []string{"base",
		fmt.Sprintf("worktree %s %s base=%q", info.ID, branch, f.base), // before stage a: the branch may be made
		fmt.Sprintf("worktree %s %s base=\"\"", info.ID, branch),       // stage a's agent,
		fmt.Sprintf("clean %s %s", info.ID, branch),                    // which starts from the branch's tip
		fmt.Sprintf("worktree %s %s base=\"\"", info.ID, branch),       // stage a's commit
		fmt.Sprintf("worktree %s %s base=\"\"", info.ID, branch),       // stage b's agent
		fmt.Sprintf("clean %s %s", info.ID, branch),
		fmt.Sprintf("worktree %s %s base=\"\"", info.ID, branch), // stage b's commit
	}
	if !slices.Equal(calls, wantCalls) {
		t.Fatalf("isolation calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(wantCalls, "\n"))
	}
	if len(f.commits) != 3 || f.commits[2].acks[0] != "notes/a.md#" {
		t.Fatalf("commits on the run's branch: %+v", f.commits)
	}
	if got := eventOf(t, info, lunad.EventStageCommitted).Writes; len(got) != 1 || got[0].Commit != f.commits[1].hash {
		t.Fatalf("STAGE_COMMITTED of b names %+v", got)
	}
	// The workspace's branch: not one commit more.
	if got := strings.TrimSpace(w.git("rev-parse", "HEAD")); got != mainTip {
		t.Fatalf("the workspace's branch moved: %s → %s", mainTip, got)
	}
	for _, live := range []bool{false, true} {
		rep, err := w.eng.Replay(ctx, info.ID, live)
		if err != nil || !rep.Identical || rep.Tree == "" || rep.Tree != rep.ReplayTree {
			t.Fatalf("replay (live %v): %+v %v", live, rep, err)
		}
	}
	if last := a.requests()[len(a.requests())-1]; !last.Replay || last.Branch != branch || last.Dir != dir {
		t.Fatalf("live replay's request: replay %v branch %q dir %q", last.Replay, last.Branch, last.Dir)
	}

	// Accepted: the branch fast-forwarded to the run's last commit, recorded once.
	acc, err := w.eng.Accept(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	ev := eventOf(t, acc, lunad.EventRunAccepted)
	if acc.Accepted != f.commits[2].hash || ev.Tip != acc.Accepted || ev.BaseBranch != "main" || ev.Base != f.base || ev.Branch != branch {
		t.Fatalf("accepted: %q, event %+v", acc.Accepted, ev)
	}
	again, err := w.eng.Accept(ctx, info.ID)
	if err != nil || len(again.Events) != len(acc.Events) {
		t.Fatalf("accept again: %d events, %v; want %d", len(again.Events), err, len(acc.Events))
	}
	if _, err := w.eng.Discard(ctx, info.ID); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "was accepted") {
		t.Fatalf("discard after accept: %v", err)
	}
	if got := f.called()[len(wantCalls):]; !slices.Equal(got, []string{
		fmt.Sprintf("accept %s %s into main from bbbbbbb", info.ID, branch), "discard " + info.ID + " " + branch, "discard " + info.ID + " " + branch}) {
		t.Fatalf("calls of accept:\n%s", strings.Join(got, "\n"))
	}
	if got := w.eventTypes(info.ID); got[len(got)-1] != "RUN_ACCEPTED" || got[len(got)-2] != "RUN_COMPLETED" {
		t.Fatalf("the run's log in git ends with %v", got[len(got)-2:])
	}

	// Another run, discarded: recorded once; then it cannot be accepted.
	second := w.run(lunad.RunRequest{Workflow: "iso"})
	dis, err := w.eng.Discard(ctx, second.ID)
	if err != nil || !dis.Discarded || eventOf(t, dis, lunad.EventRunDiscarded).Branch != "luna/iso/"+second.ID {
		t.Fatalf("discard: %+v %v", dis.Discarded, err)
	}
	if again, err := w.eng.Discard(ctx, second.ID); err != nil || len(again.Events) != len(dis.Events) {
		t.Fatalf("discard again: %d events %v", len(again.Events), err)
	}
	if _, err := w.eng.Accept(ctx, second.ID); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "was discarded") {
		t.Fatalf("accept after discard: %v", err)
	}
	w.fsck()
}

// TestIsolatedRefused: what an isolated run refuses, with the error that
// says why; nothing is started or recorded for a refused start.
func TestIsolatedRefused(t *testing.T) {
	ctx := context.Background()
	t.Run("dirty", func(t *testing.T) {
		f := newFakeIsolation(t)
		f.baseErr = fmt.Errorf("%w: notes/a.md; commit them or discard them", lunad.ErrDirty)
		w := newWorkspaceWith(t, map[string]string{"iso": isolated}, withAgent(scribe(), withIsolation(f, nil)))
		if _, err := w.eng.Start(ctx, lunad.RunRequest{Workflow: "iso"}); !errors.Is(err, lunad.ErrDirty) || !strings.Contains(err.Error(), "notes/a.md") {
			t.Fatalf("start in a dirty workspace: %v", err)
		}
		if all, err := w.eng.Runs(ctx); err != nil || len(all) != 0 {
			t.Fatalf("runs after a refused start: %v %v", all, err)
		}
	})
	t.Run("no isolation", func(t *testing.T) {
		w := newWorkspaceWith(t, map[string]string{"iso": isolated}, withAgent(scribe(), nil))
		if _, err := w.eng.Start(ctx, lunad.RunRequest{Workflow: "iso"}); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "isolated = true") {
			t.Fatalf("start without isolation: %v", err)
		}
	})
	t.Run("keyed start found", func(t *testing.T) {
		f := newFakeIsolation(t)
		w := newWorkspaceWith(t, map[string]string{"iso": isolated}, withAgent(scribe(), withIsolation(f, nil)))
		first := w.run(lunad.RunRequest{Workflow: "iso", Key: "k1"})
		f.baseErr = fmt.Errorf("%w: dirty now", lunad.ErrDirty)
		again, err := w.eng.Start(ctx, lunad.RunRequest{Workflow: "iso", Key: "k1"})
		if err != nil || again.ID != first.ID || again.Branch != first.Branch {
			t.Fatalf("the keyed start again: %+v %v", again, err)
		}
	})
	t.Run("worktree refused", func(t *testing.T) {
		f := newFakeIsolation(t)
		f.wtErr = fmt.Errorf("%w: branch luna exists, so luna/iso/x cannot be made under it", lunad.ErrExists)
		w := newWorkspaceWith(t, map[string]string{"iso": isolated}, withAgent(scribe(), withIsolation(f, nil)))
		info := w.run(lunad.RunRequest{Workflow: "iso"})
		if info.Status != lunad.RunAborted || !strings.Contains(info.Error, "the run's branch and worktree could not be made") || !strings.Contains(info.Error, "branch luna exists") {
			t.Fatalf("run: %s (%s)", info.Status, info.Error)
		}
		if len(info.Path) != 0 {
			t.Fatalf("stages entered: %v", info.Path)
		}
	})
	t.Run("branch moved", func(t *testing.T) {
		f := newFakeIsolation(t)
		w := newWorkspaceWith(t, map[string]string{"iso": isolated}, withAgent(scribe(), withIsolation(f, nil)))
		info := w.run(lunad.RunRequest{Workflow: "iso"})
		f.accErr = &lunad.BranchMovedError{Branch: "main", Base: f.base, Now: strings.Repeat("c", 40), RunBranch: info.Branch}
		_, err := w.eng.Accept(ctx, info.ID)
		var bm *lunad.BranchMovedError
		if !errors.As(err, &bm) || bm.Run != info.ID || !errors.Is(err, lunad.ErrConflict) {
			t.Fatalf("accept after the branch moved: %v", err)
		}
		if got, _ := w.eng.Run(ctx, info.ID); len(got.Events) != len(info.Events) || got.Accepted != "" {
			t.Fatalf("a refused accept was recorded: %v", wstest.EventTypes(got))
		}
	})
	t.Run("not isolated", func(t *testing.T) {
		w := newWorkspace(t, map[string]string{"linear": linear})
		info := w.run(lunad.RunRequest{Workflow: "linear"})
		for name, f := range map[string]func(context.Context, string) (lunad.RunInfo, error){"accept": w.eng.Accept, "discard": w.eng.Discard} {
			if _, err := f(ctx, info.ID); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "is not isolated") {
				t.Fatalf("%s: %v", name, err)
			}
		}
	})
	t.Run("running", func(t *testing.T) {
		f := newFakeIsolation(t)
		release := make(chan struct{})
		slow := &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
			<-release
			return lunad.StageResponse{Status: "ok"}
		}}
		w := newWorkspaceWith(t, map[string]string{"iso": isolated}, withAgent(slow, withIsolation(f, nil)))
		info, err := w.eng.Start(ctx, lunad.RunRequest{Workflow: "iso"})
		if err != nil {
			t.Fatal(err)
		}
		for name, f := range map[string]func(context.Context, string) (lunad.RunInfo, error){"accept": w.eng.Accept, "discard": w.eng.Discard} {
			if _, err := f(ctx, info.ID); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "is still running") {
				t.Fatalf("%s: %v", name, err)
			}
		}
		close(release)
		w.wait(info.ID)
	})
}

// TestIsolatedResume: an isolated run whose log was cut after any event
// (a daemon killed there) resumes on its branch: its worktree is asked
// for again — the branch made at base only if the run had not entered a
// stage yet — and cleaned, its agent works there, and its writes are
// committed once, on the branch.
func TestIsolatedResume(t *testing.T) {
	resp := lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{}`), Writes: []lunad.StageWrite{{Path: "x.md", Content: "recorded\n"}}}
	const wf = "name = \"iso\"\nisolated = true\nstart = \"s\"\n[stages.s]\nagent = \"scribe\"\n" + toEnd
	for _, c := range []struct {
		name  string
		after []lunad.EventType
		base  bool // the first worktree call may make the branch
		agent bool // the agent runs (again)
	}{
		{"created", nil, true, true},
		{"started", []lunad.EventType{lunad.EventStageEnqueued, lunad.EventStageStarted}, false, true},
		{"succeeded", []lunad.EventType{lunad.EventStageEnqueued, lunad.EventStageStarted, lunad.EventStageSucceeded}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeIsolation(t)
			var before []string // the isolation call before each agent run
			a := &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
				calls := f.called()
				before = append(before, calls[len(calls)-1])
				return resp
			}}
			w := newWorkspaceWith(t, map[string]string{"iso": wf}, withAgent(a, withIsolation(f, nil)))
			w.eng.Close()
			parsed, err := workflow.Parse("iso.toml", []byte(wf))
			if err != nil {
				t.Fatal(err)
			}
			const id = "cut"
			branch := "luna/iso/" + id
			ev := lunad.RunEvent{RunID: id, CorrelationID: id, Workflow: "iso", WorkflowVersion: parsed.VersionID(), Time: time.Now().UTC()}
			created := ev
			created.Type, created.Branch, created.Base, created.BaseBranch = lunad.EventRunCreated, branch, f.base, "main"
			recs := []lunad.RunRecord{{Event: created, Files: map[string][]byte{"workflow.toml": []byte(wf), "config.toml": nil}}}
			for _, typ := range c.after {
				e := ev
				e.Type, e.Stage, e.Visit, e.Attempt = typ, "s", 1, 1
				rec := lunad.RunRecord{Event: e}
				if typ == lunad.EventStageSucceeded {
					rec.Event.Next, rec.Event.Output = "end", resp.Output
					b, _ := json.Marshal(resp)
					rec.Files = map[string][]byte{"response.json": b}
				}
				recs = append(recs, rec)
			}
			if _, err := w.store.AppendRun(context.Background(), id, "", recs); err != nil {
				t.Fatal(err)
			}
			w.open()
			got := w.wait(id)
			if got.Status != lunad.RunCompleted || got.Branch != branch {
				t.Fatalf("resumed: %s (%s), branch %q", got.Status, got.Error, got.Branch)
			}
			calls := f.called()
			wantFirst := fmt.Sprintf("worktree %s %s base=\"\"", id, branch)
			if c.base {
				wantFirst = fmt.Sprintf("worktree %s %s base=%q", id, branch, f.base)
			}
			if len(calls) == 0 || calls[0] != wantFirst {
				t.Fatalf("isolation calls on resume: %v; want first %s", calls, wantFirst)
			}
			if ran := len(a.requests()) > 0; ran != c.agent {
				t.Fatalf("the agent ran: %v, want %v", ran, c.agent)
			}
			// The resumed attempt starts from the branch's tip, whatever
			// the interrupted one left in the worktree.
			for _, call := range before {
				if call != "clean "+id+" "+branch {
					t.Fatalf("the agent ran after %q, not after its worktree was cleaned", call)
				}
			}
			for _, req := range a.requests() {
				if req.Dir != f.Dir(id) || req.Branch != branch {
					t.Fatalf("resumed request: branch %q dir %q", req.Branch, req.Dir)
				}
			}
			if len(f.commits) != 1 || f.commits[0].files["x.md"] != "recorded\n" {
				t.Fatalf("commits on the branch: %+v", f.commits)
			}
			if n := strings.Count(w.git("log", "--format=%H", "--", "x.md"), "\n"); n != 0 {
				t.Fatalf("x.md committed on the workspace's branch %d times", n)
			}
		})
	}
}

// TestIsolatedClean: before every attempt of an isolated run's stage —
// the first, a retry — the engine has the run's worktree put back to its
// branch's tip, right before the agent runs there; a Clean that fails
// for now (a lock) fails that attempt, which is retried, and one that is
// refused fails the stage for good, the agent never running on a
// worktree that is not the tip; what Clean changed is logged.
func TestIsolatedClean(t *testing.T) {
	const retry = "retry = { max_attempts = 3, initial = \"10ms\", max = \"50ms\" }\n"
	const wf = "name = \"iso\"\nisolated = true\nstart = \"s\"\n[stages.s]\nagent = \"scribe\"\n" + retry + toEnd
	many := make([]string, 25)
	for i := range many {
		many[i] = fmt.Sprintf("junk/%02d.txt", i)
	}
	for _, c := range []struct {
		name      string
		cleanErrs []error
		failFirst bool // the agent's first attempt fails
		cleaned   runs.Cleaned
		status    lunad.RunStatus
		agentRuns int
		cleans    int
		failed    string // in the first STAGE_FAILED's error
		logged    []string
	}{
		{name: "every attempt", failFirst: true, status: lunad.RunCompleted, agentRuns: 2, cleans: 2, failed: "first attempt fails"},
		{name: "a lock held for now", cleanErrs: []error{fmt.Errorf("%w: index.lock exists (a git command is running)", lunad.ErrLocked)},
			status: lunad.RunCompleted, agentRuns: 1, cleans: 2, failed: "putting the worktree of run"},
		{name: "refused", cleanErrs: []error{fmt.Errorf("%w: the tree has a path git would not check out", lunad.ErrInvalid)},
			status: lunad.RunDeadLettered, agentRuns: 0, cleans: 1, failed: "path git would not check out"},
		{name: "logged", cleaned: runs.Cleaned{Restored: []string{"notes/a.md"}, Removed: many}, status: lunad.RunCompleted, agentRuns: 1, cleans: 1,
			logged: []string{"notes/a.md", "junk/19.txt", "and 5 more", "stage=s", "attempt=1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeIsolation(t)
			f.cleanErrs, f.cleaned = c.cleanErrs, c.cleaned
			var mu sync.Mutex
			var bad []string
			a := &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
				calls := f.called()
				if want := fmt.Sprintf("clean %s %s", req.RunID, req.Branch); calls[len(calls)-1] != want {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("attempt %d ran after %q, not %q", req.Attempt, calls[len(calls)-1], want))
					mu.Unlock()
				}
				if c.failFirst && req.Attempt == 1 {
					return lunad.StageResponse{Status: "fail", Error: "first attempt fails"}
				}
				return lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{}`)}
			}}
			var log syncBuf
			w := newWorkspaceWith(t, map[string]string{"iso": wf}, withAgent(a, withIsolation(f, func(o *runs.Options) {
				o.Logger = slog.New(slog.NewTextHandler(&log, nil))
			})))
			info := w.run(lunad.RunRequest{Workflow: "iso"})
			if info.Status != c.status {
				t.Fatalf("run: %s (%s)", info.Status, info.Error)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bad) > 0 {
				t.Fatal(strings.Join(bad, "\n"))
			}
			if n := len(a.requests()); n != c.agentRuns {
				t.Fatalf("the agent ran %d times, want %d", n, c.agentRuns)
			}
			cleans := 0
			for _, call := range f.called() {
				if strings.HasPrefix(call, "clean ") {
					cleans++
				}
			}
			if cleans != c.cleans {
				t.Fatalf("Clean called %d times, want %d: %v", cleans, c.cleans, f.called())
			}
			if c.failed != "" {
				if ev := firstEvent(info, lunad.EventStageFailed); ev == nil || !strings.Contains(ev.Error, c.failed) {
					t.Fatalf("STAGE_FAILED: %+v; want an error with %q", ev, c.failed)
				}
			}
			for _, want := range c.logged {
				if !strings.Contains(log.String(), want) {
					t.Fatalf("log lacks %q:\n%s", want, log.String())
				}
			}
			if c.logged == nil && strings.Contains(log.String(), "earlier attempt left") {
				t.Fatalf("logged a clean that changed nothing:\n%s", log.String())
			}
		})
	}
}

// firstEvent is the run's first event of type typ, nil if none.
func firstEvent(info lunad.RunInfo, typ lunad.EventType) *lunad.RunEvent {
	for i := range info.Events {
		if info.Events[i].Type == typ {
			return &info.Events[i]
		}
	}
	return nil
}

// syncBuf is a bytes.Buffer for a logger written from several goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestIsolatedCleanInterrupted: an engine closed while it cleans a run's
// worktree records no failure of the attempt — the attempt never ran —
// and the next engine runs it, from a cleaned worktree.
func TestIsolatedCleanInterrupted(t *testing.T) {
	const wf = "name = \"iso\"\nisolated = true\nstart = \"s\"\n[stages.s]\nagent = \"scribe\"\n" + toEnd
	f := newFakeIsolation(t)
	held := make(chan struct{})
	f.cleanHeld = held
	a := &goAgent{fn: func(req lunad.StageRequest, call int) lunad.StageResponse {
		return lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{}`)}
	}}
	w := newWorkspaceWith(t, map[string]string{"iso": wf}, withAgent(a, withIsolation(f, nil)))
	info, err := w.eng.Start(context.Background(), lunad.RunRequest{Workflow: "iso"})
	if err != nil {
		t.Fatal(err)
	}
	<-held
	w.eng.Close()
	if got := w.eventTypes(info.ID); !slices.Equal(got, []string{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s"}) {
		t.Fatalf("the run's log after a close mid-clean: %v; want it to end at STAGE_STARTED", got)
	}
	w.open()
	got := w.wait(info.ID)
	if got.Status != lunad.RunCompleted || len(a.requests()) != 1 {
		t.Fatalf("resumed: %s (%s), the agent ran %d times", got.Status, got.Error, len(a.requests()))
	}
	if ev := firstEvent(got, lunad.EventStageFailed); ev == nil || !ev.Interrupted {
		t.Fatalf("STAGE_FAILED of the interrupted attempt: %+v", ev)
	}
}
