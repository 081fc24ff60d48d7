package runs_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/runs"
)

// countingStore records the event types of each append, in order.
type countingStore struct {
	runs.Store
	mu      sync.Mutex
	appends [][]string
}

func (s *countingStore) AppendRun(ctx context.Context, id, after string, recs []lunad.RunRecord) (string, error) {
	s.record(recs, "")
	return s.Store.AppendRun(ctx, id, after, recs)
}

// AppendRunDeferred records the append's events marked "(deferred)".
func (s *countingStore) AppendRunDeferred(ctx context.Context, id, after string, recs []lunad.RunRecord) (string, error) {
	s.record(recs, " (deferred)")
	return s.Store.(*gitstore.Store).AppendRunDeferred(ctx, id, after, recs)
}

// countingEffects records each stage commit among the appends of its
// countingStore, as "WRITES <paths>", marked "(deferred)" when its last
// sync is left to the next durable write.
type countingEffects struct {
	runs.Effects
	cs *countingStore
}

func (e countingEffects) ApplyWrites(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	e.recordWrites(writes, "")
	return e.Effects.ApplyWrites(ctx, writes, ch)
}

func (e countingEffects) ApplyWritesDeferred(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	e.recordWrites(writes, " (deferred)")
	return e.Effects.(effects).ApplyWritesDeferred(ctx, writes, ch)
}

func (e countingEffects) recordWrites(writes []lunad.StageWrite, mark string) {
	line := "WRITES"
	for _, w := range writes {
		line += " " + w.Path
	}
	e.cs.mu.Lock()
	e.cs.appends = append(e.cs.appends, []string{line + mark})
	e.cs.mu.Unlock()
}

// expect fails t unless the appends recorded are want.
func (s *countingStore) expect(t *testing.T, want [][]string) {
	t.Helper()
	s.mu.Lock()
	got := slices.Clone(s.appends)
	s.mu.Unlock()
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Fatalf("appends:\n%v\nwant:\n%v", got, want)
	}
}

func (s *countingStore) record(recs []lunad.RunRecord, mark string) {
	var types []string
	for _, r := range recs {
		types = append(types, strings.TrimSpace(string(r.Event.Type)+" "+r.Event.Stage)+mark)
	}
	s.mu.Lock()
	s.appends = append(s.appends, types)
	s.mu.Unlock()
}

// TestDurableAppendsPerRun pins the engine's durable appends of a linear
// run whose stages each write a file: the run's creation and its first
// attempt are one append, each stage's outcome one, deferred to the commit
// of its writes that follows, that commit's last sync deferred to the
// append of STAGE_COMMITTED, which goes with the next step. Every durable
// step is a sync of the disk, so one more is a cost on every run.
func TestDurableAppendsPerRun(t *testing.T) {
	a := &goAgent{fn: func(req lunad.StageRequest, _ int) lunad.StageResponse {
		return lunad.StageResponse{Status: "ok", Writes: []lunad.StageWrite{{Path: "out/" + req.Stage + ".md", Content: req.Stage + "\n"}}}
	}}
	cs := &countingStore{}
	w := newWorkspaceWith(t, nil, withAgent(a, func(o *runs.Options) {
		cs.Store = o.Store
		o.Store = cs
		o.Effects = countingEffects{Effects: o.Effects, cs: cs}
	}))
	w.file(".luna/workflows/three.toml", "name = \"three\"\nversion = \"1\"\nstart = \"a\"\n"+
		"[stages.a]\nagent = \"scribe\"\n[[stages.a.next]]\nto = \"b\"\n"+
		"[stages.b]\nagent = \"scribe\"\n[[stages.b.next]]\nto = \"c\"\n"+
		"[stages.c]\nagent = \"scribe\"\n[[stages.c.next]]\nto = \"end\"\n")
	info := w.run(lunad.RunRequest{Workflow: "three"})
	if info.Status != lunad.RunCompleted || !slices.Equal(info.Path, []string{"a", "b", "c"}) {
		t.Fatalf("run: %s %v (%s)", info.Status, info.Path, info.Error)
	}
	want := [][]string{
		{"RUN_CREATED", "STAGE_ENQUEUED a", "STAGE_STARTED a"},
		{"STAGE_SUCCEEDED a (deferred)"},
		{"WRITES out/a.md (deferred)"},
		{"STAGE_COMMITTED a", "STAGE_ENQUEUED b", "STAGE_STARTED b"},
		{"STAGE_SUCCEEDED b (deferred)"},
		{"WRITES out/b.md (deferred)"},
		{"STAGE_COMMITTED b", "STAGE_ENQUEUED c", "STAGE_STARTED c"},
		{"STAGE_SUCCEEDED c (deferred)"},
		{"WRITES out/c.md (deferred)"},
		{"STAGE_COMMITTED c", "RUN_COMPLETED"},
	}
	cs.expect(t, want)
	if got := w.eventTypes(info.ID); len(got) != 14 || got[0] != "RUN_CREATED" || got[2] != "STAGE_STARTED a" {
		t.Fatalf("the log as git reads it: %v", got)
	}
	if rep, err := w.eng.Replay(context.Background(), info.ID, false); err != nil || !rep.Identical {
		t.Fatalf("replay: %+v %v", rep, err)
	}
	w.fsck()
}

// TestWorkerCompletionIsDurable: a completion a worker reports (Complete)
// is appended durably, never deferred: the worker is answered once it is
// recorded, and no stage commit of this driver need follow it.
func TestWorkerCompletionIsDurable(t *testing.T) {
	var eng *runs.Engine
	var mu sync.Mutex
	a := &goAgent{fn: func(req lunad.StageRequest, _ int) lunad.StageResponse {
		resp := lunad.StageResponse{Status: "ok", Writes: []lunad.StageWrite{{Path: "out/s.md", Content: "s\n"}}}
		mu.Lock()
		e := eng
		mu.Unlock()
		// A worker holding the same attempt reports it first.
		if err := e.Complete(context.Background(), req, resp, nil); err != nil {
			return lunad.StageResponse{Status: "fail", Error: err.Error()}
		}
		return resp
	}}
	cs := &countingStore{}
	w := newWorkspaceWith(t, nil, withAgent(a, func(o *runs.Options) {
		cs.Store = o.Store
		o.Store = cs
	}))
	mu.Lock()
	eng = w.eng
	mu.Unlock()
	w.file(".luna/workflows/m.toml", agentWorkflow("m", toEnd))
	info := w.run(lunad.RunRequest{Workflow: "m"})
	if info.Status != lunad.RunCompleted {
		t.Fatalf("run: %s (%s)", info.Status, info.Error)
	}
	want := [][]string{
		{"RUN_CREATED", "STAGE_ENQUEUED s", "STAGE_STARTED s"},
		{"STAGE_SUCCEEDED s"},
		{"DUPLICATE_IGNORED s"},
		{"STAGE_COMMITTED s", "RUN_COMPLETED"},
	}
	cs.expect(t, want)
	w.fsck()
}
