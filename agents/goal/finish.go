package goal

import (
	"context"
	"encoding/json"

	"github.com/lunad/lunad"
)

// OnFinish builds the GoalResult a goal run's terminal event carries
// (for runs.Options.OnFinish; nil for a run of another workflow).
func (a *Agents) OnFinish(_ context.Context, info lunad.RunInfo) json.RawMessage {
	if info.Workflow != lunad.GoalWorkflow {
		return nil
	}
	b, err := json.Marshal(a.result(info))
	if err != nil {
		a.o.Logger.Error("goal: the result does not encode", "run", info.ID, "err", err)
		return nil
	}
	return b
}

// result is the run's GoalResult, from the state of its latest stage
// visit and the engine's events (the commits, the branch).
func (a *Agents) result(info lunad.RunInfo) lunad.GoalResult {
	res := lunad.GoalResult{Run: info.ID, Goal: info.Params[lunad.GoalParamGoal], Branch: info.Branch, Base: info.Base, Commits: []string{},
		Duration: info.Updated.Sub(info.Created)}
	var st *state
	report := false
	for _, s := range info.Stages {
		if len(s.Output) == 0 || string(s.Output) == "null" {
			continue
		}
		o, err := decodeState(s.Output)
		if err != nil {
			res.Outcome, res.Reason = lunad.GoalFailed, err.Error()
			return res
		}
		if st == nil || o.Visit > st.Visit {
			st = &o
		}
		report = report || s.Stage == "report"
	}
	for _, ev := range info.Events {
		if ev.Type != lunad.EventStageCommitted {
			continue
		}
		for _, w := range ev.Writes {
			if n := len(res.Commits); w.Commit != "" && (n == 0 || res.Commits[n-1] != w.Commit) {
				res.Commits = append(res.Commits, w.Commit)
			}
		}
	}
	res.Head = res.Base
	if n := len(res.Commits); n > 0 {
		res.Head = res.Commits[n-1]
	}
	switch {
	case info.Status.Ended() && info.Status != lunad.RunCompleted:
		res.Outcome = lunad.GoalStatus(info.Status)
	case st != nil && st.Outcome != "" && info.Status == lunad.RunCompleted:
		res.Outcome = lunad.GoalStatus(st.Outcome)
	default:
		res.Outcome, res.Reason = lunad.GoalFailed, info.Error
		if res.Reason == "" {
			res.Reason = "the run " + string(info.Status) + " before the goal ended"
		}
	}
	if st == nil {
		return res
	}
	if res.Reason == "" {
		res.Reason = st.Reason
	}
	if res.Branch == "" {
		res.Branch = st.Branch
	}
	res.Summary, res.Plan, res.Steps = st.Summary, st.Plan, st.Steps
	res.Commands, res.Denials = st.Commands, st.Denials
	res.TestsBefore = st.TestsBefore
	if st.Tested && st.Tests != nil {
		res.TestsAfter = st.Tests
	}
	res.Tokens, res.Calls = st.Memory.Total.Tokens, st.Memory.Total.Calls
	res.Sandbox = st.Sandbox
	if report {
		res.Report = ReportFile
	}
	return res
}
