package follow_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/follow"
)

// growingRun is a WorkflowRuns whose run gains one event per read and finishes
// with its last.
type growingRun struct {
	lunad.WorkflowRuns
	mu     sync.Mutex
	events []lunad.RunEvent
	reads  int
}

func (g *growingRun) Run(_ context.Context, id string) (lunad.RunInfo, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reads++
	n := min(g.reads, len(g.events))
	info := lunad.RunInfo{ID: id, Status: lunad.RunRunning, Events: g.events[:n]}
	if n == len(g.events) {
		info.Status = lunad.RunCompleted
	}
	return info, nil
}

// TestFollowRun: every event is reported once, in order, and the finished
// run is returned; a done context stops following.
func TestFollowRun(t *testing.T) {
	evs := []lunad.RunEvent{
		{Seq: 1, Type: lunad.EventRunCreated},
		{Seq: 2, Type: lunad.EventStageStarted, Stage: "supervise", Attempt: 1},
		{Seq: 3, Type: lunad.EventStageSucceeded, Stage: "supervise", Next: "coder"},
		{Seq: 4, Type: lunad.EventStageStarted, Stage: "coder", Attempt: 2},
		{Seq: 5, Type: lunad.EventStageFailed, Stage: "coder", Error: "401 Unauthorized\ndetails"},
		{Seq: 6, Type: lunad.EventRetryScheduled, Stage: "coder", RetryAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{Seq: 7, Type: lunad.EventStageCommitted, Stage: "coder", Writes: []lunad.ArtifactRef{{Path: "a.py", Version: 2}, {Path: "b.md", Version: 1}}},
		{Seq: 8, Type: lunad.EventStageCommitted, Stage: "coder"},
		{Seq: 9, Type: lunad.EventRunCompleted},
	}
	var got []string
	var seqs []int
	info, err := follow.Run(context.Background(), &growingRun{events: evs}, "r1", time.Millisecond, func(e lunad.RunEvent) {
		seqs = append(seqs, e.Seq)
		if p := follow.Progress(e); p != "" {
			got = append(got, p)
		}
	})
	if err != nil || info.Status != lunad.RunCompleted || len(info.Events) != len(evs) {
		t.Fatalf("%+v %v", info, err)
	}
	if !slices.Equal(seqs, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatalf("events reported %v", seqs)
	}
	want := []string{"supervise: working", "supervise: done, next coder", "coder: attempt 2", "coder: failed: 401 Unauthorized",
		"coder: retrying at 03:04:05", "coder: committed a.py v2, b.md v1", "completed"}
	if !slices.Equal(got, want) {
		t.Fatalf("progress %q, want %q", got, want)
	}
	if p := follow.Progress(lunad.RunEvent{Type: lunad.EventRunCompleted, Outcome: "question"}); p != "question" {
		t.Errorf("an outcome: %q", p)
	}
	if p := follow.Progress(lunad.RunEvent{Type: lunad.EventStageConflict, Stage: "writer", Error: "conflict: a.md changed"}); p != "writer: not written: conflict: a.md changed" {
		t.Errorf("a conflict: %q", p)
	}
	if p := follow.Progress(lunad.RunEvent{Type: lunad.EventRunAborted, Error: "no"}); p != "aborted: no" {
		t.Errorf("aborted: %q", p)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := follow.Run(ctx, &growingRun{events: evs}, "r1", time.Hour, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}
