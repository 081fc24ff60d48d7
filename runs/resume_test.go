package runs_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/runs/workflow"
)

// TestResumeFromEveryStep: a log cut after any event the engine writes —
// as a daemon killed right after that append leaves it — resumes to a
// completed run, with the stage's writes committed once.
func TestResumeFromEveryStep(t *testing.T) {
	src := stageWorkflow("w", `"--write", "x.txt"`, `retry = { max_attempts = 3, initial = "10ms", max = "20ms" }`)
	resp := lunad.StageResponse{Status: "ok", Output: json.RawMessage(`{"score":1}`), Writes: []lunad.StageWrite{{Path: "x.txt", Content: "recorded\n"}}}
	for _, c := range []struct {
		name  string
		after []lunad.EventType // the log after RUN_CREATED
		want  []string          // the events the engine appends on resume
	}{
		{"created", nil, []string{"STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_COMMITTED s", "RUN_COMPLETED"}},
		{"enqueued", []lunad.EventType{lunad.EventStageEnqueued}, []string{"STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_COMMITTED s", "RUN_COMPLETED"}},
		{"started", []lunad.EventType{lunad.EventStageEnqueued, lunad.EventStageStarted},
			[]string{"STAGE_FAILED s", "STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_COMMITTED s", "RUN_COMPLETED"}},
		{"retry scheduled", []lunad.EventType{lunad.EventStageEnqueued, lunad.EventStageStarted, lunad.EventStageFailed, lunad.EventRetryScheduled},
			[]string{"STAGE_ENQUEUED s", "STAGE_STARTED s", "STAGE_SUCCEEDED s", "STAGE_COMMITTED s", "RUN_COMPLETED"}},
		{"succeeded", []lunad.EventType{lunad.EventStageEnqueued, lunad.EventStageStarted, lunad.EventStageSucceeded},
			[]string{"STAGE_COMMITTED s", "RUN_COMPLETED"}},
		{"committed without its next step", []lunad.EventType{lunad.EventStageEnqueued, lunad.EventStageStarted, lunad.EventStageSucceeded, lunad.EventStageCommitted},
			[]string{"RUN_COMPLETED"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &finishes{}
			w := newWorkspaceWith(t, map[string]string{"w": src}, f.hook)
			w.eng.Close()
			wf, err := workflow.Parse(".luna/workflows/w.toml", []byte(strings.ReplaceAll(src, "PYTHON", wstest.Python(t))))
			if err != nil {
				t.Fatal(err)
			}
			const id = "cut"
			base := lunad.RunEvent{RunID: id, CorrelationID: id, Workflow: "w", WorkflowVersion: wf.VersionID(), Time: time.Now().UTC()}
			created := base
			created.Type = lunad.EventRunCreated
			recs := []lunad.RunRecord{{Event: created, Files: map[string][]byte{"workflow.toml": []byte(strings.ReplaceAll(src, "PYTHON", wstest.Python(t))), "config.toml": nil}}}
			for _, typ := range c.after {
				ev := base
				ev.Type, ev.Stage, ev.Visit, ev.Attempt = typ, "s", 1, 1
				rec := lunad.RunRecord{Event: ev}
				switch typ {
				case lunad.EventStageSucceeded:
					ev.Next, ev.Output = "end", resp.Output
					b, _ := json.Marshal(resp)
					rec = lunad.RunRecord{Event: ev, Files: map[string][]byte{"response.json": b}}
				case lunad.EventStageCommitted:
					ev.Next = "end"
					rec.Event = ev
				case lunad.EventStageFailed:
					ev.Error = "transient"
					rec.Event = ev
				case lunad.EventRetryScheduled:
					ev.RetryAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // due: before the test clock
					rec.Event = ev
				}
				recs = append(recs, rec)
			}
			if _, err := w.store.AppendRun(context.Background(), id, "", recs); err != nil {
				t.Fatal(err)
			}
			w.open()
			got := w.wait(id)
			if got.Status != lunad.RunCompleted {
				t.Fatalf("resumed: %s (%s)", got.Status, got.Error)
			}
			if appended := wstest.EventTypes(got)[1+len(c.after):]; !slices.Equal(appended, c.want) {
				t.Fatalf("appended on resume:\n%s\nwant:\n%s", strings.Join(appended, "\n"), strings.Join(c.want, "\n"))
			}
			wantCommits := 1
			if c.name == "committed without its next step" {
				wantCommits = 0 // its writes were committed before the cut, by the engine that wrote the event
			}
			f.checkFinished(t, got, 1)
			// A daemon started again finds the run finished: no second call.
			w.eng.Close()
			w.open()
			if n := len(f.of(id)); n != 1 {
				t.Fatalf("OnFinish called %d times after a restart, want 1", n)
			}
			if n := strings.Count(w.git("log", "--format=%H", "--", "x.txt"), "\n"); n != wantCommits {
				t.Fatalf("x.txt in %d commits, want %d", n, wantCommits)
			}
			w.fsck()
		})
	}
}
