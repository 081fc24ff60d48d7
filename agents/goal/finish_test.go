package goal

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// TestResult: the GoalResult of runs that ended in each way the engine
// ends them.
func TestResult(t *testing.T) {
	a := newAgents(t, &shell{}, allow{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := state{Stage: "report", Visit: 5, Outcome: outFinished, Summary: "done", Steps: 2, Tested: true, Branch: "luna/goal/r",
		Tests: &lunad.TestSummary{OK: true}, TestsBefore: &lunad.TestSummary{}}
	st.Memory.Total.Tokens, st.Memory.Total.Calls = 300, 2
	out, _ := json.Marshal(st)
	early, _ := json.Marshal(state{Stage: "act", Visit: 2, Steps: 1})
	committed := func(seq int, commit string) lunad.RunEvent {
		return lunad.RunEvent{Seq: seq, Type: lunad.EventStageCommitted, Writes: []lunad.ArtifactRef{{Path: "a", Commit: commit}, {Path: "b", Commit: commit}}}
	}
	base := lunad.RunInfo{ID: "r", Workflow: lunad.GoalWorkflow, Params: map[string]string{"goal": "g"}, Branch: "luna/goal/r", Base: "b0", Created: t0, Updated: t0.Add(time.Minute)}
	for _, c := range []struct {
		name    string
		status  lunad.RunStatus
		stages  []lunad.StageInfo
		events  []lunad.RunEvent
		err     string
		outcome lunad.GoalStatus
		reason  string
		head    string
		commits []string
		report  string
	}{
		{name: "finished", status: "finished", stages: []lunad.StageInfo{{Stage: "act", Visit: 2, Output: early}, {Stage: "report", Visit: 5, Output: out}},
			events: []lunad.RunEvent{committed(7, "c1"), committed(12, "c2")}, outcome: lunad.GoalFinished, head: "c2", commits: []string{"c1", "c2"}, report: "report.md"},
		{name: "aborted", status: lunad.RunAborted, stages: []lunad.StageInfo{{Stage: "act", Visit: 2, Output: early}}, err: "stage act: the agent crashed",
			outcome: lunad.GoalFailed, reason: "stage act: the agent crashed", head: "b0", commits: []string{}},
		{name: "cancelled before any stage", status: lunad.RunCancelled, outcome: lunad.GoalFailed, reason: "the run cancelled before the goal ended", head: "b0", commits: []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			info := base
			info.Status, info.Stages, info.Events, info.Error = c.status, c.stages, c.events, c.err
			var res lunad.GoalResult
			if err := json.Unmarshal(a.OnFinish(context.Background(), info), &res); err != nil {
				t.Fatal(err)
			}
			if res.Outcome != c.outcome || res.Reason != c.reason || res.Head != c.head || !slices.Equal(res.Commits, c.commits) || res.Report != c.report || res.Duration != time.Minute || res.Goal != "g" {
				t.Errorf("%+v", res)
			}
			if c.name == "finished" && (res.Tokens != 300 || res.Calls != 2 || res.Steps != 2 || res.Summary != "done" || res.TestsAfter == nil || !res.TestsAfter.OK) {
				t.Errorf("%+v", res)
			}
		})
	}
	if out := a.OnFinish(context.Background(), lunad.RunInfo{Workflow: "ask"}); out != nil {
		t.Errorf("a run of another workflow: %s", out)
	}
}
