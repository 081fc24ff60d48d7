package gitstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"golang.org/x/sys/unix"

	"github.com/lunad/lunad"
)

var runT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// runEvents is a small run: created, a stage enqueued and started (one
// append), then succeeded.
func runEvents(id string) [][]lunad.RunRecord {
	base := lunad.RunEvent{RunID: id, CorrelationID: "corr-" + id, Workflow: "review", WorkflowVersion: "1@abc", ConfigRef: blobHash([]byte("cfg"))}
	ev := func(typ lunad.EventType, stage string, attempt int, f func(*lunad.RunEvent)) lunad.RunEvent {
		e := base
		e.Type, e.Stage, e.Attempt = typ, stage, attempt
		if stage != "" {
			e.Visit = 1
		}
		e.Time = runT0.Add(time.Duration(attempt) * time.Millisecond)
		if f != nil {
			f(&e)
		}
		return e
	}
	return [][]lunad.RunRecord{
		{{Event: ev(lunad.EventRunCreated, "", 0, func(e *lunad.RunEvent) {
			e.Params, e.Key = map[string]string{"topic": "git"}, "k1"
		}), Files: map[string][]byte{"config.toml": []byte("cfg"), "workflow.toml": []byte("name = \"review\"\n")}}},
		{{Event: ev(lunad.EventStageEnqueued, "draft", 0, nil)},
			{Event: ev(lunad.EventStageStarted, "draft", 1, nil), Files: map[string][]byte{"request.json": []byte(`{"run_id":"` + id + `"}`)}}},
		{{Event: ev(lunad.EventStageSucceeded, "draft", 1, func(e *lunad.RunEvent) {
			e.Output = json.RawMessage(`{"score":0.9,"tags":["a","b"]}`)
			e.Writes = []lunad.ArtifactRef{{ID: "a0000001", Path: "notes/a.md", Version: 2, Commit: strings.Repeat("ab", 20)}}
			e.Next = "end"
		}), Files: map[string][]byte{"response.json": []byte(`{"status":"ok"}`)}}},
	}
}

// appendAll appends each group of records in one call and returns the
// events as they must read back.
func appendAll(t *testing.T, s *Store, id string, groups [][]lunad.RunRecord) (string, []lunad.RunEvent) {
	t.Helper()
	var want []lunad.RunEvent
	tip := ""
	for _, g := range groups {
		var err error
		if tip, err = s.AppendRun(context.Background(), id, tip, g); err != nil {
			t.Fatalf("append %s: %v", id, err)
		}
		for _, r := range g {
			e := r.Event
			e.Seq = len(want) + 1
			want = append(want, e)
		}
	}
	return tip, want
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunLogRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	head := git(t, s.root, "rev-parse", "HEAD")
	tip, want := appendAll(t, s, "r1", runEvents("r1"))
	events, got, err := s.RunLog(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if got != tip {
		t.Errorf("RunLog tip %s, AppendRun returned %s", got, tip)
	}
	if mustJSON(t, events) != mustJSON(t, want) {
		t.Errorf("events read back differ:\n got %s\nwant %s", mustJSON(t, events), mustJSON(t, want))
	}
	for i, e := range events {
		if e.Seq != i+1 {
			t.Errorf("event %d has seq %d", i, e.Seq)
		}
	}
	// A fresh store (no memo) reads the same.
	s2, err := Open(s.root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	events2, tip2, err := s2.RunLog(ctx, "r1")
	s2.Close()
	if err != nil || tip2 != tip || mustJSON(t, events2) != mustJSON(t, want) {
		t.Errorf("fresh store reads %v %s %s", err, tip2, mustJSON(t, events2))
	}

	// What git sees: the events in order as an audit trail, each event as
	// JSON in its message, the files in its tree, a clean fsck, HEAD and
	// the working tree untouched.
	log := git(t, s.root, "log", "--reverse", "--format=%s|%(trailers:key=Luna-Run,key=Luna-Event,key=Luna-Seq,key=Luna-Stage,key=Luna-Attempt,valueonly,separator=%x2C)", "refs/luna/runs/r1")
	wantLog := "RUN_CREATED|r1,RUN_CREATED,1\n" +
		"STAGE_ENQUEUED draft|r1,STAGE_ENQUEUED,2,draft\n" +
		"STAGE_STARTED draft (attempt 1)|r1,STAGE_STARTED,3,draft,1\n" +
		"STAGE_SUCCEEDED draft (attempt 1)|r1,STAGE_SUCCEEDED,4,draft,1\n"
	if log != wantLog {
		t.Errorf("git log:\n%s\nwant:\n%s", log, wantLog)
	}
	if body := git(t, s.root, "log", "-1", "--format=%b", "refs/luna/runs/r1"); !strings.Contains(body, "next: end") || !strings.Contains(body, "wrote notes/a.md (a0000001 version 2)") {
		t.Errorf("last event's message body:\n%s", body)
	}
	// The event, whole, is the body's "event: " line, as git shows it.
	compact, _ := json.Marshal(want[3])
	if body := git(t, s.root, "log", "-1", "--format=%b", "refs/luna/runs/r1"); !strings.Contains(body, "\nevent: "+string(compact)+"\n") {
		t.Errorf("last event's message body:\n%s\nwant the line event: %s", body, compact)
	}
	if got := git(t, s.root, "cat-file", "-p", tip+":response.json"); got != `{"status":"ok"}` {
		t.Errorf("response.json: %q", got)
	}
	if got := git(t, s.root, "ls-tree", "--name-only", "refs/luna/runs/r1~3"); got != "config.toml\nworkflow.toml\n" {
		t.Errorf("first event's tree: %q", got)
	}
	if c := git(t, s.root, "rev-list", "--count", "refs/luna/runs/r1"); c != "4\n" {
		t.Errorf("run has %s commits, want 4", c)
	}
	if git(t, s.root, "rev-parse", "HEAD") != head {
		t.Errorf("HEAD moved")
	}
	checkRepo(t, s)

	// RunFile, Runs.
	if b, err := s.RunFile(ctx, "r1", 3, "request.json"); err != nil || string(b) != `{"run_id":"r1"}` {
		t.Errorf("RunFile 3 request.json: %q %v", b, err)
	}
	if b, err := s.RunFile(ctx, "r1", 1, "config.toml"); err != nil || string(b) != "cfg" {
		t.Errorf("RunFile 1 config.toml: %q %v", b, err)
	}
	if blobHash([]byte("cfg")) != strings.TrimSpace(git(t, s.root, "rev-parse", "refs/luna/runs/r1~3:config.toml")) {
		t.Errorf("BlobHash differs from git's")
	}
	for _, c := range []struct {
		seq  int
		name string
	}{{3, "response.json"}, {9, "event.json"}, {0, "event.json"}} {
		if _, err := s.RunFile(ctx, "r1", c.seq, c.name); !errors.Is(err, lunad.ErrNotFound) {
			t.Errorf("RunFile %d %s: %v, want ErrNotFound", c.seq, c.name, err)
		}
	}
	if runs, err := s.Runs(ctx); err != nil || len(runs) != 1 || runs["r1"] != tip {
		t.Errorf("Runs: %v %v", runs, err)
	}
	var nf *lunad.RunNotFoundError
	if _, _, err := s.RunLog(ctx, "nope"); !errors.As(err, &nf) || !errors.Is(err, lunad.ErrNotFound) {
		t.Errorf("RunLog of an unknown run: %v", err)
	}
	if _, err := s.RunFile(ctx, "nope", 1, "event.json"); !errors.As(err, &nf) {
		t.Errorf("RunFile of an unknown run: %v", err)
	}
}

// TestRunLogDeterministic: with the store's clock injected, the same
// events make the same commits.
// TestRunFilesDir: a stage's own files are stored under files/, nested,
// and read back by their path.
func TestRunFilesDir(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	files := map[string][]byte{"response.json": []byte(`{}`), "files/llm/0001.json": []byte(`{"seq":1}`), "files/notes.txt": []byte("n\n")}
	if _, err := s.AppendRun(ctx, "r1", "", []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventRunCreated}, Files: files}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want string // "" for ErrNotFound
	}{
		{"files/llm/0001.json", `{"seq":1}`},
		{"files/notes.txt", "n\n"},
		{"files/llm", ""},
		{"files/../response.json", ""},
		{"llm/0001.json", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := s.RunFile(ctx, "r1", 1, c.name)
			if c.want == "" {
				if !errors.Is(err, lunad.ErrNotFound) && !errors.Is(err, lunad.ErrInvalid) {
					t.Fatalf("RunFile %s = %q, %v; want an error", c.name, b, err)
				}
				return
			}
			if err != nil || string(b) != c.want {
				t.Fatalf("RunFile %s = %q, %v; want %q", c.name, b, err, c.want)
			}
		})
	}
}

func TestRunLogDeterministic(t *testing.T) {
	var tips []string
	for range 2 {
		s := newStore(t)
		tip, _ := appendAll(t, s, "r1", runEvents("r1"))
		tips = append(tips, tip)
	}
	if tips[0] != tips[1] {
		t.Errorf("same events, same clock, different tips: %v", tips)
	}
}

func TestRunAppendErrors(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	rec := []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventRunCreated}}}
	tip, err := s.AppendRun(ctx, "r1", "", rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendRun(ctx, "r1", "", rec); !errors.Is(err, lunad.ErrExists) {
		t.Errorf("second creation: %v, want ErrExists", err)
	}
	var nf *lunad.RunNotFoundError
	if _, err := s.AppendRun(ctx, "r2", tip, rec); !errors.As(err, &nf) {
		t.Errorf("append to a missing run: %v, want RunNotFoundError", err)
	}
	tip2, err := s.AppendRun(ctx, "r1", tip, rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendRun(ctx, "r1", tip, rec); !errors.Is(err, lunad.ErrConflict) {
		t.Errorf("append on a stale tip: %v, want ErrConflict", err)
	}
	for _, id := range []string{"", ".hidden", "a/b", "a..b", "a.", "x.lock", "a b", "é", "-ok-but-" + strings.Repeat("x", 60), "a\n", "a:b", "a~1"} {
		if _, err := s.AppendRun(ctx, id, "", rec); !errors.Is(err, lunad.ErrInvalid) {
			t.Errorf("run ID %q: %v, want ErrInvalid", id, err)
		}
	}
	for _, id := range []string{"r", "run-1", "R_2.x", "_x", "-x", strings.Repeat("a", 64)} {
		if _, err := s.AppendRun(ctx, id, "", rec); err != nil {
			t.Errorf("run ID %q: %v", id, err)
		}
	}
	bad := map[string]lunad.RunRecord{
		"lower-case type":  {Event: lunad.RunEvent{Type: "started"}},
		"no type":          {},
		"other run":        {Event: lunad.RunEvent{Type: lunad.EventRunCreated, RunID: "r9"}},
		"stage newline":    {Event: lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "a\nLuna-Op: edit"}},
		"bad output":       {Event: lunad.RunEvent{Type: lunad.EventStageSucceeded, Output: json.RawMessage(`{`)}},
		"file in dir":      {Event: lunad.RunEvent{Type: lunad.EventRunCreated}, Files: map[string][]byte{"a/b": nil}},
		"file files":       {Event: lunad.RunEvent{Type: lunad.EventRunCreated}, Files: map[string][]byte{"files": nil}},
		"file files/..":    {Event: lunad.RunEvent{Type: lunad.EventRunCreated}, Files: map[string][]byte{"files/../x": nil}},
		"file event.json":  {Event: lunad.RunEvent{Type: lunad.EventRunCreated}, Files: map[string][]byte{"event.json": nil}},
		"file .git":        {Event: lunad.RunEvent{Type: lunad.EventRunCreated}, Files: map[string][]byte{".git": nil}},
		"file ..":          {Event: lunad.RunEvent{Type: lunad.EventRunCreated}, Files: map[string][]byte{"..": nil}},
		"negative attempt": {Event: lunad.RunEvent{Type: lunad.EventStageStarted, Attempt: -1}},
	}
	for name, r := range bad {
		if _, err := s.AppendRun(ctx, "r1", tip2, []lunad.RunRecord{rec[0], r}); !errors.Is(err, lunad.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	for name, tip := range map[string]string{"short": "abc", "not hex": strings.Repeat("z", 40)} {
		if _, err := s.AppendRun(ctx, "r1", tip, rec); !errors.Is(err, lunad.ErrInvalid) {
			t.Errorf("tip %s: %v, want ErrInvalid", name, err)
		}
	}
	if _, err := s.AppendRun(ctx, "r1", tip2, nil); !errors.Is(err, lunad.ErrInvalid) {
		t.Errorf("no records: %v", err)
	}
	// None of the refused appends left anything: the log is two events.
	if events, cur, err := s.RunLog(ctx, "r1"); err != nil || cur != tip2 || len(events) != 2 {
		t.Errorf("after refusals: %d events at %s, %v", len(events), cur, err)
	}
	if entries, _ := filepath.Glob(filepath.Join(s.gitDir, "refs", "luna", "runs", "*.lock")); len(entries) > 0 {
		t.Errorf("lock files left: %v", entries)
	}
	checkRepo(t, s)
}

// TestRunAppendRace: appenders racing from the same tip; exactly one wins
// each round, the others get ErrConflict, and the log has one event per
// round.
func TestRunAppendRace(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	tip, err := s.AppendRun(ctx, "r", "", []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventRunCreated}}})
	if err != nil {
		t.Fatal(err)
	}
	// A second store on the same workspace races too (another process's view).
	s2, err := Open(s.root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for round := range 10 {
		var wg sync.WaitGroup
		tips := make([]string, 4)
		errs := make([]error, 4)
		for g := range 4 {
			wg.Go(func() {
				st := s
				if g%2 == 1 {
					st = s2
				}
				tips[g], errs[g] = st.AppendRun(ctx, "r", tip, []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventStageStarted, Stage: fmt.Sprintf("g%d", g), Attempt: round + 1}}})
			})
		}
		wg.Wait()
		won := 0
		for g := range 4 {
			switch {
			case errs[g] == nil:
				won++
				tip = tips[g]
			case !errors.Is(errs[g], lunad.ErrConflict):
				t.Errorf("round %d: loser %d got %v, want ErrConflict", round, g, errs[g])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d winners", round, won)
		}
	}
	events, cur, err := s.RunLog(ctx, "r")
	if err != nil || cur != tip || len(events) != 11 {
		t.Fatalf("log: %d events at %s (want 11 at %s): %v", len(events), cur, tip, err)
	}
	gitFsckOpen(t, s)
}

func TestReplaceRun(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	tip, _ := appendAll(t, s, "r1", runEvents("r1"))
	summary := lunad.RunRecord{Event: lunad.RunEvent{Type: lunad.EventRunCompleted, Workflow: "review", Error: "pruned: 4 events"},
		Files: map[string][]byte{"summary.json": []byte(`{"events":4}`)}}
	if _, err := s.ReplaceRun(ctx, "r1", "", summary); !errors.Is(err, lunad.ErrInvalid) {
		t.Errorf("replace without a tip: %v", err)
	}
	if _, err := s.ReplaceRun(ctx, "r1", git(t, s.root, "rev-parse", "refs/luna/runs/r1~1")[:40], summary); !errors.Is(err, lunad.ErrConflict) {
		t.Errorf("replace on a stale tip: %v", err)
	}
	nt, err := s.ReplaceRun(ctx, "r1", tip, summary)
	if err != nil {
		t.Fatal(err)
	}
	events, cur, err := s.RunLog(ctx, "r1")
	if err != nil || cur != nt || len(events) != 1 || events[0].Seq != 1 || events[0].Type != lunad.EventRunCompleted || events[0].RunID != "r1" {
		t.Fatalf("after replace: %+v %s %v", events, cur, err)
	}
	if c := git(t, s.root, "rev-list", "--count", "refs/luna/runs/r1"); c != "1\n" {
		t.Errorf("replaced run has %s commits", c)
	}
	// Appends go on from the summary.
	nt2, err := s.AppendRun(ctx, "r1", nt, []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventRunRetried}}})
	if err != nil {
		t.Fatal(err)
	}
	if events, _, _ := s.RunLog(ctx, "r1"); len(events) != 2 || events[1].Seq != 2 {
		t.Errorf("append after replace: %+v", events)
	}
	if b, err := s.RunFile(ctx, "r1", 1, "summary.json"); err != nil || string(b) != `{"events":4}` {
		t.Errorf("summary file: %q %v", b, err)
	}
	_ = nt2
	gitFsckOpen(t, s)
}

// TestRunsConcurrent: goroutines append to their own runs while artifact
// edits go on; every run has all its events in order, the branch has every
// edit, and git is happy.
func TestRunsConcurrent(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	const runs, perRun = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, runs*perRun+100)
	for g := range runs {
		wg.Go(func() {
			id := fmt.Sprintf("run-%d", g)
			tip := ""
			for i := range perRun {
				recs := []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "s", Attempt: i + 1}}}
				if i%3 == 0 {
					recs = append(recs, lunad.RunRecord{Event: lunad.RunEvent{Type: lunad.EventStageFailed, Stage: "s", Attempt: i + 1, Error: "boom"}})
				}
				var err error
				if tip, err = s.AppendRun(ctx, id, tip, recs); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 20 {
			if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, appendLine(fmt.Sprint("line ", i))); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all, err := s.Runs(ctx)
	if err != nil || len(all) != runs {
		t.Fatalf("Runs: %v %v", all, err)
	}
	for id := range all {
		events, _, err := s.RunLog(ctx, id)
		if err != nil || len(events) != perRun+(perRun+2)/3 {
			t.Errorf("%s: %d events, %v", id, len(events), err)
		}
	}
	if h, _ := s.History(ctx, r.Artifact.ID); len(h) != 21 {
		t.Errorf("artifact has %d versions, want 21", len(h))
	}
	checkRepo(t, s)
}

// BenchmarkAppendRun measures one durable append (one event commit, one
// filesystem sync, one ref move).
func BenchmarkAppendRun(b *testing.B) {
	ctx := context.Background()
	s, _, err := Init(b.TempDir(), testOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tip := ""
	req := []byte(strings.Repeat(`{"k":"v"}`, 50))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tip, err = s.AppendRun(ctx, "bench", tip, []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "s", Attempt: i + 1, Time: runT0},
			Files: map[string][]byte{"request.json": req}}})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// The crash test's child: appends to three runs in a loop, printing
// "RUNACK <run> <seq> <tip>" after each append returned; run c1's appends
// are deferred (AppendRunDeferred), as the engine's appends of a stage's
// outcome are.
const runHelperEnv = "LUNAD_GITSTORE_RUN_HELPER"

func TestRunCrashHelper(t *testing.T) {
	dir := os.Getenv(runHelperEnv)
	if dir == "" {
		return
	}
	out := &helperOut{}
	s, err := Open(dir, helperOptions())
	if err != nil {
		out.line("ERR open: %v", err)
		os.Exit(1)
	}
	ctx := context.Background()
	tips, seqs := map[string]string{}, map[string]int{}
	for _, id := range []string{"c0", "c1", "c2"} {
		events, tip, err := s.RunLog(ctx, id)
		var nf *lunad.RunNotFoundError
		if err != nil && !errors.As(err, &nf) {
			out.line("ERR log %s: %v", id, err)
			os.Exit(1)
		}
		tips[id], seqs[id] = tip, len(events)
	}
	out.line("READY")
	for i := 0; ; i++ {
		id := fmt.Sprintf("c%d", i%3)
		recs := []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventStageStarted, Stage: "s", Attempt: i + 1},
			Files: map[string][]byte{"request.json": []byte(strings.Repeat("x", i%2000))}}}
		if i%2 == 0 {
			recs = append(recs, lunad.RunRecord{Event: lunad.RunEvent{Type: lunad.EventStageSucceeded, Stage: "s", Attempt: i + 1}})
		}
		appendRun := s.AppendRun
		if id == "c1" {
			appendRun = s.AppendRunDeferred
		}
		tip, err := appendRun(ctx, id, tips[id], recs)
		if err != nil {
			out.line("ERR append %s: %v", id, err)
			os.Exit(1)
		}
		tips[id] = tip
		seqs[id] += len(recs)
		out.line("RUNACK %s %d %s", id, seqs[id], tip)
	}
}

// TestCrashRunLog SIGKILLs a child appending run events, at random
// moments, again and again on one workspace: after each kill every
// acknowledged append is in its run's log, the logs read, a stale ref lock
// is cleared by the next writer, and git fsck --strict is clean.
func TestCrashRunLog(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := crashWorkspace(t)
	acked := map[string]int{} // run → highest acknowledged seq
	ackTips := map[string]string{}
	kills, total, staleLocks := 0, 0, 0
	for i := range 15 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRunCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), runHelperEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1<<16)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		select {
		case l := <-lines:
			if l != "READY" {
				t.Fatalf("child %d: %q; stderr:\n%s", i, l, stderr.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("child %d never got ready", i)
		}
		time.Sleep(time.Duration(5+rng.IntN(60)) * time.Millisecond)
		cmd.Process.Signal(unix.SIGKILL)
		kills++
		for l := range lines {
			f := strings.Fields(l)
			if len(f) == 4 && f[0] == "RUNACK" {
				seq, _ := strconv.Atoi(f[2])
				if seq > acked[f[1]] {
					acked[f[1]], ackTips[f[1]] = seq, f[3]
				}
				total++
			} else if l != "" {
				t.Errorf("child %d: %s", i, l)
			}
		}
		cmd.Wait()
		if locks, _ := filepath.Glob(filepath.Join(dir, ".git", "refs", "luna", "runs", "*.lock")); len(locks) > 0 {
			staleLocks++ // the kill hit an append between its ref lock and the rename
		}

		s, err := Open(dir, helperOptions())
		if err != nil {
			t.Fatal(err)
		}
		for id, seq := range acked {
			events, tip, err := s.RunLog(context.Background(), id)
			if err != nil {
				t.Fatalf("after kill %d: log of %s: %v", i, id, err)
			}
			if len(events) < seq {
				t.Fatalf("after kill %d: %s has %d events, %d were acknowledged", i, id, len(events), seq)
			}
			c := exec.Command("git", "merge-base", "--is-ancestor", ackTips[id], tip)
			c.Dir = dir
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("after kill %d: acknowledged tip %s of %s is not in its log: %v %s", i, ackTips[id], id, err, out)
			}
		}
		s.Close()
		gitFsck(t, dir)
	}
	if total == 0 {
		t.Errorf("no append was acknowledged in %d kills", kills)
	}
	// A writer appends to every run after the last kill, whatever lock it left.
	s, err := Open(dir, helperOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id := range acked {
		_, tip, err := s.RunLog(context.Background(), id)
		if err == nil {
			_, err = s.AppendRun(context.Background(), id, tip, []lunad.RunRecord{{Event: lunad.RunEvent{Type: lunad.EventRunCompleted}}})
		}
		if err != nil {
			t.Errorf("append to %s after the last kill: %v", id, err)
		}
	}
	gitFsckOpen(t, s)
	t.Logf("%d kills (%d left a run ref lock behind), %d acknowledged appends, runs at %v", kills, staleLocks, total, acked)
}

// blobHash is git's blob hash of b, as workflow.BlobHash computes a run's
// config_ref.
func blobHash(b []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, b).String()
}

// TestAppendRunGroupCommit: appends to different runs made at once share
// their filesystem syncs, and each still lands exactly as if alone.
func TestAppendRunGroupCommit(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	const runs, appends = 16, 10
	before := s.objs.syncs
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	for r := range runs {
		wg.Go(func() {
			<-start
			id := fmt.Sprintf("g%02d", r)
			tip := ""
			for i := range appends {
				ev := lunad.RunEvent{Type: "STAGE_STARTED", RunID: id, Workflow: "w", Stage: "s", Attempt: i + 1}
				if i == 0 {
					ev.Type = "RUN_CREATED"
				}
				var err error
				if tip, err = s.AppendRun(ctx, id, tip, []lunad.RunRecord{{Event: ev}}); err != nil {
					errs <- fmt.Errorf("%s append %d: %w", id, i, err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s.mu.Lock()
	syncs := s.objs.syncs - before
	s.mu.Unlock()
	if syncs >= runs*appends {
		t.Fatalf("%d syncs for %d appends made at once: none was grouped", syncs, runs*appends)
	}
	for r := range runs {
		events, _, err := s.RunLog(ctx, fmt.Sprintf("g%02d", r))
		if err != nil || len(events) != appends || events[appends-1].Seq != appends || events[appends-1].Attempt != appends {
			t.Fatalf("run %d: %d events, %v", r, len(events), err)
		}
	}
	t.Logf("%d appends, %d syncs", runs*appends, syncs)
	git(t, s.root, "fsck", "--strict", "--no-progress")
}

// TestAppendRunDeferred: a deferred append is visible at once and leaves
// the fsync of refs/luna/runs to the next syncfs; an append that is not
// deferred, one on a file system without syncfs, and Close make that
// fsync. (That syncfs makes an earlier rename durable is the file
// system's; TestCrashRunLog kills a process during deferred appends.)
func TestAppendRunDeferred(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	ev := func(typ lunad.EventType) []lunad.RunRecord {
		return []lunad.RunRecord{{Event: lunad.RunEvent{Type: typ, Stage: "s", Attempt: 1, Time: runT0}}}
	}
	syncs := func() (int, bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.runs.dirSyncs, s.runs.unsynced
	}
	tip, err := s.AppendRun(ctx, "r", "", ev(lunad.EventStageStarted))
	if n, pending := syncs(); err != nil || n != 1 || pending {
		t.Fatalf("append: %d directory syncs, pending %v, %v", n, pending, err)
	}
	if tip, err = s.AppendRunDeferred(ctx, "r", tip, ev(lunad.EventStageSucceeded)); err != nil {
		t.Fatal(err)
	}
	if n, pending := syncs(); n != 1 || !pending {
		t.Fatalf("deferred append: %d directory syncs, pending %v; want 1, true", n, pending)
	}
	events, got, err := s.RunLog(ctx, "r")
	if err != nil || got != tip || len(events) != 2 || strings.TrimSpace(git(t, s.root, "rev-parse", "refs/luna/runs/r")) != tip {
		t.Fatalf("the deferred append is not visible: %d events at %s, %v", len(events), got, err)
	}
	if tip, err = s.AppendRun(ctx, "r", tip, ev(lunad.EventStageCommitted)); err != nil {
		t.Fatal(err)
	}
	if n, pending := syncs(); n != 2 || pending {
		t.Fatalf("append after a deferred one: %d directory syncs, pending %v; want 2, false", n, pending)
	}
	s.mu.Lock()
	s.objs.perFile = true // as on a file system without syncfs
	s.mu.Unlock()
	if tip, err = s.AppendRunDeferred(ctx, "r", tip, ev(lunad.EventStageStarted)); err != nil {
		t.Fatal(err)
	}
	if n, pending := syncs(); n != 3 || pending {
		t.Fatalf("deferred append without syncfs: %d directory syncs, pending %v; want 3, false", n, pending)
	}
	s.mu.Lock()
	s.objs.perFile = false
	s.mu.Unlock()
	if _, err = s.AppendRunDeferred(ctx, "r", tip, ev(lunad.EventStageSucceeded)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, pending := syncs(); pending {
		t.Fatal("Close left a deferred append unsynced")
	}
	git(t, s.root, "fsck", "--strict", "--no-progress")
}
