package runs

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/lunad/lunad"
)

// phase is what a run waits for, as its log tells it.
type phase int

const (
	phaseCreated   phase = iota // RUN_CREATED: enqueue the start stage
	phaseEnqueued               // STAGE_ENQUEUED: start the attempt
	phaseStarted                // STAGE_STARTED: the attempt is running (or was, before a crash)
	phaseRetry                  // RETRY_SCHEDULED: wait for RetryAt, then the next attempt
	phaseSucceeded              // STAGE_SUCCEEDED: commit the stage's writes, then go on
	phaseCommitted              // STAGE_COMMITTED without its next step (not written by this engine)
	phaseRetried                // RUN_RETRIED: a new attempt of the current visit
	phaseFinished               // completed, aborted, cancelled, dead-lettered or pruned
)

// state is a run as its log tells it: a fold of its events, nothing else.
type state struct {
	info    lunad.RunInfo // without Events
	created lunad.RunEvent
	tip     string
	phase   phase
	seq     int // the last event's Seq

	// The current stage visit.
	stage   string
	visit   int
	attempt int       // the last attempt enqueued
	counted int       // its attempts that count against the limit
	retryAt time.Time // when phase is phaseRetry
	next    string    // when phase is phaseSucceeded: the stage chosen next
	outcome string    // and, when next is end, the outcome it ends with

	outputs   map[string]json.RawMessage // each stage's latest output
	writes    []lunad.ArtifactRef        // the run's writes, latest version per path, in order of first write
	succeeded map[int]int                // visit → seq of its STAGE_SUCCEEDED
}

// fold replays events into a state. It never fails: an event it does not
// know changes nothing.
func fold(events []lunad.RunEvent, tip string) *state {
	s := &state{outputs: map[string]json.RawMessage{}, succeeded: map[int]int{}, tip: tip}
	for _, ev := range events {
		s.apply(ev)
	}
	return s
}

// clone is a copy of s that apply can change without changing s.
func (s *state) clone() *state {
	c := *s
	c.info.Path = slices.Clone(s.info.Path)
	c.info.Stages = slices.Clone(s.info.Stages)
	c.writes = slices.Clone(s.writes)
	c.outputs = maps.Clone(s.outputs)
	c.succeeded = maps.Clone(s.succeeded)
	return &c
}

func (s *state) apply(ev lunad.RunEvent) {
	s.seq = ev.Seq
	in := &s.info
	if !ev.Time.IsZero() {
		in.Updated = ev.Time
	}
	switch ev.Type {
	case lunad.EventRunCreated:
		s.created = ev
		*in = lunad.RunInfo{ID: ev.RunID, Workflow: ev.Workflow, WorkflowVersion: ev.WorkflowVersion,
			Status: lunad.RunRunning, Key: ev.Key, Params: ev.Params, Inputs: ev.Inputs,
			Branch: ev.Branch, Base: ev.Base, BaseBranch: ev.BaseBranch,
			Path: []string{}, Stages: []lunad.StageInfo{}, Created: ev.Time, Updated: ev.Time}
		s.phase = phaseCreated
	case lunad.EventStageEnqueued:
		if ev.Visit != s.visit {
			s.stage, s.visit, s.counted = ev.Stage, ev.Visit, 0
			in.Path = append(in.Path, ev.Stage)
			in.Stages = append(in.Stages, lunad.StageInfo{Stage: ev.Stage, Visit: ev.Visit})
		}
		s.attempt = ev.Attempt
		s.cur().Status = "enqueued"
		s.phase = phaseEnqueued
	case lunad.EventStageStarted:
		s.cur().Attempts++
		s.cur().Status = "running"
		s.phase = phaseStarted
	case lunad.EventStageFailed, lunad.EventStageConflict:
		if !ev.Interrupted {
			s.counted++
		}
		s.cur().Status, s.cur().Error = "failed", ev.Error
	case lunad.EventRetryScheduled:
		s.cur().Status = "retrying"
		s.retryAt = ev.RetryAt
		s.phase = phaseRetry
	case lunad.EventStageSucceeded:
		s.succeeded[ev.Visit] = ev.Seq
		s.outputs[ev.Stage] = ev.Output
		s.cur().Status, s.cur().Output, s.cur().Error = "succeeded", ev.Output, ""
		s.next, s.outcome = ev.Next, ev.Outcome
		s.phase = phaseSucceeded
	case lunad.EventStageCommitted:
		for _, w := range ev.Writes {
			s.addWrite(w)
		}
		s.phase = phaseCommitted
	case lunad.EventDeadLettered:
		in.Status, in.Error = lunad.RunDeadLettered, ev.Error
		s.phase = phaseFinished
	case lunad.EventRunAborted:
		if in.Status != lunad.RunDeadLettered {
			in.Status = lunad.RunAborted
		}
		in.Error = ev.Error
		s.phase = phaseFinished
	case lunad.EventRunCompleted:
		in.Status = lunad.RunCompleted
		if ev.Outcome != "" {
			in.Status = lunad.RunStatus(ev.Outcome)
		}
		s.phase = phaseFinished
	case lunad.EventRunCancelled:
		in.Status, in.Error = lunad.RunCancelled, ev.Error
		s.phase = phaseFinished
	case lunad.EventRunRetried:
		in.Status, in.Error = lunad.RunRunning, ""
		s.counted = 0
		s.phase = phaseRetried
	case lunad.EventRunAccepted:
		in.Accepted = ev.Tip
	case lunad.EventRunDiscarded:
		in.Discarded = true
	case lunad.EventRunPruned:
		var sum lunad.RunInfo
		if json.Unmarshal(ev.Output, &sum) == nil {
			*in = sum
		}
		s.phase = phaseFinished
	}
}

// cur is the current stage visit's info (a placeholder before the first).
func (s *state) cur() *lunad.StageInfo {
	if n := len(s.info.Stages); n > 0 {
		return &s.info.Stages[n-1]
	}
	return &lunad.StageInfo{}
}

func (s *state) addWrite(w lunad.ArtifactRef) {
	for i := range s.writes {
		if s.writes[i].Path == w.Path {
			s.writes[i] = w
			return
		}
	}
	s.writes = append(s.writes, w)
}

// inputs is what the current stage reads: the run's inputs, each at the
// latest version the run wrote, then the run's other writes.
func (s *state) inputs() []lunad.ArtifactRef {
	out := make([]lunad.ArtifactRef, 0, len(s.info.Inputs)+len(s.writes))
	seen := map[string]bool{}
	for _, in := range s.info.Inputs {
		for _, w := range s.writes {
			if w.Path == in.Path {
				in = w
			}
		}
		seen[in.Path] = true
		out = append(out, in)
	}
	for _, w := range s.writes {
		if !seen[w.Path] {
			out = append(out, w)
		}
	}
	return out
}
