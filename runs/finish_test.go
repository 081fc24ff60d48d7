package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs"
)

// finishes records the calls of Options.OnFinish: what each got.
type finishes struct {
	mu    sync.Mutex
	calls map[string][]lunad.RunInfo // by run
}

// hook is the OnFinish to configure: its output names the run's status,
// its last event and how many events it saw.
func (f *finishes) hook(o *runs.Options) {
	o.OnFinish = func(ctx context.Context, info lunad.RunInfo) json.RawMessage {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.calls == nil {
			f.calls = map[string][]lunad.RunInfo{}
		}
		f.calls[info.ID] = append(f.calls[info.ID], info)
		last := info.Events[len(info.Events)-1]
		return json.RawMessage(fmt.Sprintf(`{"status":%q,"last":%q,"events":%d}`, info.Status, last.Type, len(info.Events)))
	}
}

func (f *finishes) of(id string) []lunad.RunInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[id]
}

// checkFinished checks that OnFinish was called n times for the run, the
// last time with the run as it ended, and that its output is on the
// terminal event.
func (f *finishes) checkFinished(t *testing.T, info lunad.RunInfo, n int) {
	t.Helper()
	calls := f.of(info.ID)
	if len(calls) != n {
		t.Fatalf("OnFinish called %d times for run %s, want %d", len(calls), info.ID, n)
	}
	got := calls[n-1]
	last := info.Events[len(info.Events)-1]
	if got.Status != info.Status || len(got.Events) != len(info.Events) || got.Events[len(got.Events)-1].Type != last.Type {
		t.Fatalf("OnFinish got the run %s with %d events ending %s; the run is %s with %d ending %s",
			got.Status, len(got.Events), got.Events[len(got.Events)-1].Type, info.Status, len(info.Events), last.Type)
	}
	want := fmt.Sprintf(`{"status":%q,"last":%q,"events":%d}`, info.Status, last.Type, len(info.Events))
	if string(last.Output) != want {
		t.Fatalf("the terminal event's output %s, want %s", last.Output, want)
	}
}

// TestOnFinish: OnFinish is called once per terminal event the engine
// appends, after the run's commits, and its output is that event's; not
// when a finished run is found on restart, nor by replay.
func TestOnFinish(t *testing.T) {
	const next = "[[stages.s.next]]\nto = \"end\"\nwhen = \"output.stop == true\"\nstatus = \"stopped\"\n" + toEnd
	for _, c := range []struct {
		name   string
		resp   lunad.StageResponse
		status lunad.RunStatus
	}{
		{"completed after a commit", lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{"stop":false}`), Writes: []lunad.StageWrite{{Path: "f.md", Content: "f\n"}}}, lunad.RunCompleted},
		{"completed without writes", lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{"stop":false}`)}, lunad.RunCompleted},
		{"aborted: no transition", lunad.StageResponse{Status: "ok"}, lunad.RunAborted},
		{"an outcome", lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{"stop":true}`)}, "stopped"},
		{"aborted", lunad.StageResponse{Status: "fail", Permanent: true, Error: "no"}, lunad.RunDeadLettered},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &finishes{}
			a := &goAgent{fn: func(lunad.StageRequest, int) lunad.StageResponse { return c.resp }}
			w := newWorkspaceWith(t, map[string]string{"f": agentWorkflow("f", next)}, withAgent(a, f.hook))
			info := w.run(lunad.RunRequest{Workflow: "f"})
			if info.Status != c.status {
				t.Fatalf("run: %s (%s)", info.Status, info.Error)
			}
			f.checkFinished(t, info, 1)
			if len(c.resp.Writes) > 0 {
				evs := f.of(info.ID)[0].Events
				if evs[len(evs)-2].Type != lunad.EventStageCommitted {
					t.Fatalf("OnFinish was called before the stage's commit: %v", evs[len(evs)-2].Type)
				}
			}
			w.eng.Close()
			w.open()
			if _, err := w.eng.Replay(context.Background(), info.ID, true); err != nil {
				t.Fatal(err)
			}
			if n := len(f.of(info.ID)); n != 1 {
				t.Fatalf("OnFinish called %d times after a restart and a replay, want 1", n)
			}
			if c.status != lunad.RunDeadLettered {
				return
			}
			// Cancelling the dead-lettered run appends another terminal event.
			if _, err := w.eng.Cancel(context.Background(), info.ID); err != nil {
				t.Fatal(err)
			}
			again, err := w.eng.Run(context.Background(), info.ID)
			if err != nil || again.Status != lunad.RunCancelled {
				t.Fatalf("cancelled: %s %v", again.Status, err)
			}
			f.checkFinished(t, again, 2)
		})
	}
}

// TestOnFinishCancel: a running run cancelled gets its OnFinish too.
func TestOnFinishCancel(t *testing.T) {
	f := &finishes{}
	w := newWorkspaceWith(t, map[string]string{"slow": stageWorkflow("slow", `"--sleep-first", "9", "--sleep", "60"`, "")}, f.hook)
	info, err := w.eng.Start(context.Background(), lunad.RunRequest{Workflow: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.eng.Cancel(context.Background(), info.ID)
	if err != nil || got.Status != lunad.RunCancelled {
		t.Fatalf("cancel: %s %v", got.Status, err)
	}
	f.checkFinished(t, got, 1)
}
