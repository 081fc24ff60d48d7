package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/workflow"
)

// The engine's decisions, as pure functions of a run's state and what just
// happened. The live engine and replay both call them, so a replay follows
// the path the run took unless the engine's rules changed.

// event is a run-level event of s's run, stamped now.
func (s *state) event(t lunad.EventType, now time.Time) lunad.RunEvent {
	c := s.created
	if c.RunID == "" { // a pruned run: only its summary is left
		c = lunad.RunEvent{RunID: s.info.ID, CorrelationID: s.info.ID, Workflow: s.info.Workflow, WorkflowVersion: s.info.WorkflowVersion}
	}
	return lunad.RunEvent{Type: t, RunID: c.RunID, CorrelationID: c.CorrelationID, Workflow: c.Workflow,
		WorkflowVersion: c.WorkflowVersion, ConfigRef: c.ConfigRef, Time: now}
}

// stageEvent is an event of the current stage visit and attempt.
func (s *state) stageEvent(t lunad.EventType, now time.Time) lunad.RunEvent {
	ev := s.event(t, now)
	ev.Stage, ev.Visit, ev.Attempt = s.stage, s.visit, s.attempt
	ev.IdempotencyKey = visitKey(s.created.RunID, s.stage, s.visit, s.created.WorkflowVersion)
	return ev
}

// visitKey is the idempotency key of a stage visit: its writes are
// committed under it, and a process agent gets it to make its own calls
// to the outside world idempotent. It is the same for every attempt.
func visitKey(run, stage string, visit int, version string) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%s", run, stage, visit, version))
	return "run-" + hex.EncodeToString(h[:12])
}

// enqueue is the events that enqueue and start an attempt: a new visit of
// stage, or (stage == s.stage, visit == s.visit) another attempt of the
// current one. They are appended together.
func (s *state) enqueue(stage string, visit, attempt int, agentVersion string, now time.Time) []lunad.RunEvent {
	ev := s.event(lunad.EventStageEnqueued, now)
	ev.Stage, ev.Visit, ev.Attempt = stage, visit, attempt
	ev.IdempotencyKey = visitKey(s.created.RunID, stage, visit, s.created.WorkflowVersion)
	ev.AgentVersion = agentVersion
	ev.Inputs = s.inputs()
	st := ev
	st.Type, st.Inputs = lunad.EventStageStarted, nil
	return []lunad.RunEvent{ev, st}
}

// outcome is how an attempt ended: a response, or an error producing one.
type outcome struct {
	resp lunad.StageResponse
	err  error // the agent could not respond: *lunad.AgentError, or transient
}

// failed reports whether o is a failure, whether it is permanent, and why.
func (o outcome) failed() (bool, bool, string) {
	if o.err != nil {
		var ae *lunad.AgentError
		return true, errors.As(o.err, &ae) && ae.Permanent, o.err.Error()
	}
	if o.resp.Status == "ok" {
		return false, false, ""
	}
	msg := o.resp.Error
	if msg == "" {
		msg = "the agent reported a failure and gave no reason"
	}
	return true, o.resp.Permanent, msg
}

// onOutcome is the events recording an attempt's outcome: success with the
// next stage chosen (or the run aborted, if no transition can be chosen),
// a retry, or a dead letter. jitter, in [0,1), draws the retry's backoff;
// the time it sets is recorded, so a replay needs no jitter.
func (s *state) onOutcome(wf *workflow.Workflow, o outcome, now time.Time, jitter float64) []lunad.RunEvent {
	if failed, permanent, why := o.failed(); failed {
		return s.onFailure(wf, why, permanent, now, jitter)
	}
	if err := checkResponse(o.resp); err != nil {
		return s.onFailure(wf, err.Error(), true, now, jitter)
	}
	ev := s.stageEvent(lunad.EventStageSucceeded, now)
	ev.Output = o.resp.Output
	next, err := s.nextStage(wf, o.resp.Output)
	if err != nil {
		ab := s.event(lunad.EventRunAborted, now)
		ab.Stage, ab.Visit, ab.Error = s.stage, s.visit, err.Error()
		return []lunad.RunEvent{ev, ab}
	}
	ev.Next, ev.Outcome = next.To, next.Status
	return []lunad.RunEvent{ev}
}

func (s *state) onFailure(wf *workflow.Workflow, why string, permanent bool, now time.Time, jitter float64) []lunad.RunEvent {
	return s.failed(wf, lunad.EventStageFailed, why, permanent, now, jitter)
}

// onConflict is the events recording that the succeeded stage's writes
// conflict with a change made since its agent read the artifact: a failed
// attempt (STAGE_CONFLICT), retried on the new content within the stage's
// attempt limit, else a dead letter that names the conflict.
func (s *state) onConflict(wf *workflow.Workflow, why string, now time.Time, jitter float64) []lunad.RunEvent {
	return s.failed(wf, lunad.EventStageConflict, why, false, now, jitter)
}

// failed is the events of a failed attempt, recorded as t: a retry, or a
// dead letter and the run's abort.
func (s *state) failed(wf *workflow.Workflow, t lunad.EventType, why string, permanent bool, now time.Time, jitter float64) []lunad.RunEvent {
	ev := s.stageEvent(t, now)
	ev.Error, ev.Permanent = why, permanent
	st := wf.Stages[s.stage]
	if !permanent && st != nil && s.counted+1 < st.Retry.MaxAttempts {
		r := s.stageEvent(lunad.EventRetryScheduled, now)
		r.RetryAt = now.Add(st.Retry.Delay(s.counted+1, jitter))
		return []lunad.RunEvent{ev, r}
	}
	dl := s.stageEvent(lunad.EventDeadLettered, now)
	if permanent {
		dl.Error = "permanent failure: " + why
	} else {
		dl.Error = fmt.Sprintf("failed %d times, the stage's limit; the last: %s", s.counted+1, why)
	}
	ab := s.event(lunad.EventRunAborted, now)
	ab.Stage, ab.Visit, ab.Error = s.stage, s.visit, dl.Error
	return []lunad.RunEvent{ev, dl, ab}
}

// nextStage evaluates the current stage's transitions over its output,
// earlier outputs and the run's metadata: the engine's only way to choose.
func (s *state) nextStage(wf *workflow.Workflow, output json.RawMessage) (workflow.Transition, error) {
	return wf.Choose(s.stage, workflow.Env{Output: output, Outputs: s.outputs,
		Run: workflow.RunVars{ID: s.created.RunID, Workflow: s.created.Workflow, Attempt: s.attempt, Params: s.created.Params}})
}

// afterCommit is the events that follow a stage's committed writes: the
// commit record, then the next stage's first attempt or the run's end.
func (s *state) afterCommit(refs []lunad.ArtifactRef, agentVersion string, now time.Time) []lunad.RunEvent {
	c := s.stageEvent(lunad.EventStageCommitted, now)
	c.Writes = refs
	c.Next, c.Outcome = s.next, s.outcome
	ns := s.clone()
	ns.apply(c)
	return append([]lunad.RunEvent{c}, ns.nextStep(agentVersion, now)...)
}

// nextStep is the events that follow a committed stage: the next stage's
// first attempt, or the run's end with everything it wrote.
func (s *state) nextStep(agentVersion string, now time.Time) []lunad.RunEvent {
	if s.next == workflow.End {
		done := s.event(lunad.EventRunCompleted, now)
		done.Writes, done.Outcome = s.writes, s.outcome
		return []lunad.RunEvent{done}
	}
	return s.enqueue(s.next, s.visit+1, 1, agentVersion, now)
}
