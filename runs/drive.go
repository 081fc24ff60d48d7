package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/workflow"
)

// The names of the files stored beside events.
const (
	fileWorkflow = "workflow.toml" // RUN_CREATED: the workflow as the run runs it
	fileConfig   = "config.toml"   // RUN_CREATED: the effective configuration (config_ref)
	fileRequest  = "request.json"  // an attempt's outcome: what the agent got
	fileResponse = "response.json" // STAGE_SUCCEEDED/FAILED: what the agent answered
)

// loop drives r until it finishes, is cancelled, or the engine closes.
// Each pass takes the step the run's log calls for; an attempt runs right
// after the events that start it are durable.
func (e *Engine) loop(ctx context.Context, r *run) {
	full := 0 // steps in a row that failed for want of space
	for ctx.Err() == nil {
		r.mu.Lock()
		st := r.st
		r.mu.Unlock()
		var err error
		switch st.phase {
		case phaseFinished:
			return
		case phaseCreated:
			if err = e.prepare(ctx, r); err == nil && r.phase() == phaseCreated {
				err = e.startAttempt(ctx, r, r.wf.Start, 1, 1, nil)
			}
		case phaseEnqueued:
			ev := st.stageEvent(lunad.EventStageStarted, e.now())
			err = e.startAttempt(ctx, r, "", 0, 0, []lunad.RunRecord{{Event: ev}})
		case phaseStarted:
			if r.attemptDue {
				// Started in the append that created the run: run it.
				r.attemptDue = false
				err = e.attempt(ctx, r)
				break
			}
			// Found on resume: the daemon stopped while the attempt ran.
			ev := st.stageEvent(lunad.EventStageFailed, e.now())
			ev.Error, ev.Interrupted = "interrupted: lunad stopped while the attempt ran; it is run again", true
			err = e.startAttempt(ctx, r, st.stage, st.visit, st.attempt+1, []lunad.RunRecord{{Event: ev}})
		case phaseRetry:
			if !sleep(ctx, st.retryAt.Sub(e.now())) {
				break
			}
			err = e.startAttempt(ctx, r, st.stage, st.visit, st.attempt+1, nil)
		case phaseRetried:
			err = e.startAttempt(ctx, r, st.stage, st.visit, st.attempt+1, nil)
		case phaseSucceeded, phaseCommitted:
			err = e.commitStage(ctx, r)
		}
		if full++; !noSpace(err) {
			full = 0 // nil or another failure: the count starts again
		}
		if err != nil && ctx.Err() == nil {
			if full >= e.opts.SpaceRetries {
				e.failNoSpace(r, full, err)
				return
			}
			e.opts.Logger.Error("run step failed; trying again", "run", r.id, "err", err)
			sleep(ctx, time.Second)
		}
	}
	if context.Cause(ctx) == errCancelled {
		r.mu.Lock()
		if r.st.phase == phaseFinished {
			r.mu.Unlock() // it finished before the cancellation reached it
			return
		}
		ev := r.st.event(lunad.EventRunCancelled, e.now())
		ev.Error = "cancelled by request"
		r.mu.Unlock()
		if err := e.append(r, []lunad.RunRecord{{Event: ev}}); err != nil {
			e.opts.Logger.Error("run cancelled but not recorded", "run", r.id, "err", err)
		}
	}
}

// startAttempt appends pre, then (when stage is set) the events enqueuing
// and starting attempt of visit, and runs the attempt.
func (e *Engine) startAttempt(ctx context.Context, r *run, stage string, visit, attempt int, pre []lunad.RunRecord) error {
	recs := pre
	if stage != "" {
		version := e.agentVersion(r.wf, stage)
		r.mu.Lock()
		for _, ev := range r.st.enqueue(stage, visit, attempt, version, e.now()) {
			recs = append(recs, lunad.RunRecord{Event: ev})
		}
		r.mu.Unlock()
	}
	if err := e.append(r, recs); err != nil {
		return err
	}
	return e.attempt(ctx, r)
}

// attempt runs the current attempt's agent and records its outcome; when
// that outcome also started the next stage's attempt (a stage with no
// writes goes on in the same append), it runs that one too.
func (e *Engine) attempt(ctx context.Context, r *run) error {
	for {
		r.mu.Lock()
		req, visit := request(r.wf, r.st), r.st.visit
		r.mu.Unlock()
		stage := r.wf.Stages[req.Stage]
		var o outcome
		agent, err := e.agent(stage)
		if err == nil && req.Branch != "" {
			// An isolated run's agent works in its worktree, made again
			// here if it went missing, and put back to its branch's tip.
			if req.Dir, err = e.attemptDir(ctx, r, req); err != nil {
				if ctx.Err() != nil {
					return nil // cancelled or closing: not the attempt's failure
				}
				err = &lunad.AgentError{Permanent: refused(err), Err: err}
			}
		}
		if err != nil {
			o.err = err
		} else {
			select {
			case e.slots <- struct{}{}:
			case <-ctx.Done():
				return nil
			}
			actx, cancel := context.WithTimeout(ctx, stage.Timeout)
			o.resp, o.err = agent.Process(actx, req)
			if o.err == nil && actx.Err() == context.DeadlineExceeded {
				o.err = fmt.Errorf("timed out after %v", stage.Timeout)
			}
			cancel()
			<-e.slots
			if ctx.Err() != nil {
				return nil // cancelled or closing: the loop records it, or a restart does
			}
		}
		if err := e.complete(r, req, o, true); err != nil {
			return err
		}
		r.mu.Lock()
		another := r.st.phase == phaseStarted && (r.st.visit != visit || r.st.attempt != req.Attempt)
		r.mu.Unlock()
		if !another {
			return nil
		}
	}
}

// complete records an attempt's outcome: the idempotent receiver. A second
// completion of a stage visit changes nothing but a DUPLICATE_IGNORED
// event; one made for another workflow version is quarantined. own is
// set for the driver's own attempts, whose stage commit follows at once.
func (e *Engine) complete(r *run, req lunad.StageRequest, o outcome, own bool) error {
	for {
		err := e.completeOnce(r, req, o, own)
		if err != errStale {
			return err
		}
		// Another completion was recorded meanwhile: classify again.
	}
}

func (e *Engine) completeOnce(r *run, req lunad.StageRequest, o outcome, own bool) error {
	r.mu.Lock()
	st := r.st
	decidedOn := st.tip
	now := e.now()
	var evs []lunad.RunEvent
	switch {
	case req.WorkflowVersion != st.created.WorkflowVersion:
		ev := st.stageEvent(lunad.EventQuarantined, now)
		ev.Stage, ev.Attempt = req.Stage, req.Attempt
		ev.Error = fmt.Sprintf("an output made for workflow version %s, not the run's %s: quarantined, not applied", req.WorkflowVersion, st.created.WorkflowVersion)
		evs = []lunad.RunEvent{ev}
	case st.phase != phaseStarted || req.Stage != st.stage || req.Attempt != st.attempt:
		// The visit has an outcome already, or this is an attempt that is
		// not the one running (a redelivery, a duplicate worker).
		ev := st.stageEvent(lunad.EventDuplicateIgnored, now)
		ev.Stage, ev.Attempt = req.Stage, req.Attempt
		ev.Error = "a second completion of this stage visit: ignored"
		evs = []lunad.RunEvent{ev}
	default:
		evs = st.onOutcome(r.wf, o, now, e.opts.Jitter())
		if last := evs[len(evs)-1]; last.Type == lunad.EventStageSucceeded && len(o.resp.Writes) == 0 && len(o.resp.Acks) == 0 {
			// Nothing to commit: the next step goes in the same append.
			next := st.clone()
			next.apply(last)
			evs = append(evs, next.afterCommit(nil, e.agentVersion(r.wf, last.Next), now)...)
		}
	}
	r.mu.Unlock()
	files := responseFiles(req, o, evs[0].Type == lunad.EventStageSucceeded)
	recs := make([]lunad.RunRecord, len(evs))
	for i, ev := range evs {
		recs[i].Event = ev
	}
	recs[0].Files = files
	// A stage's success alone, from the driver's own attempt, is followed
	// by the commit of its writes: its append may leave its last sync to
	// that commit (deferringStore). Any other outcome is followed by no
	// durable step of the engine (a retry's wait, the end of the run), or
	// answers a worker.
	deferred := own && len(evs) == 1 && evs[0].Type == lunad.EventStageSucceeded
	if err := e.appendAfterAs(r, decidedOn, recs, deferred); err != nil {
		return err
	}
	if evs[0].Type == lunad.EventStageSucceeded {
		r.mu.Lock()
		r.succeeded, r.succeededSeq = &o.resp, r.st.succeeded[evs[0].Visit]
		r.mu.Unlock()
	}
	return nil
}

// commitStage commits the succeeded stage's writes from its recorded
// response, under the visit's idempotency key, then appends
// STAGE_COMMITTED with the next step, and runs the next attempt.
func (e *Engine) commitStage(ctx context.Context, r *run) error {
	r.mu.Lock()
	st := r.st
	seq := st.succeeded[st.visit]
	var next []lunad.RunEvent
	if st.phase == phaseCommitted {
		// Not written by this engine, which appends a stage's commit and
		// its next step together: take the next step.
		next = st.nextStep(e.agentVersion(r.wf, st.next), e.now())
	}
	r.mu.Unlock()
	if next != nil {
		return e.appendAndGo(ctx, r, next)
	}
	if seq == 0 {
		return fmt.Errorf("run %s: stage %s succeeded but its STAGE_SUCCEEDED event is missing from the log", r.id, st.stage)
	}
	resp, err := e.recordedResponse(ctx, r, seq)
	if err != nil {
		return err
	}
	var refs []lunad.ArtifactRef
	ch := e.stageChange(r, st, resp)
	fx := e.opts.Effects
	if len(resp.Writes) > 0 || len(resp.Acks) > 0 {
		// An isolated run's writes are commits on its branch, in its worktree.
		if _, fx, err = e.worktree(ctx, r); refused(err) {
			ab := st.event(lunad.EventRunAborted, e.now())
			ab.Stage, ab.Visit, ab.Error = st.stage, st.visit, "the stage's writes were not committed: "+err.Error()
			return e.append(r, []lunad.RunRecord{{Event: ab}})
		} else if err != nil {
			return err
		}
	}
	if len(resp.Writes) > 0 {
		refs, err = e.applyWrites(ctx, r, st, fx, withBases(resp.Writes, st.inputs()), ch)
		if mc := (*lunad.MergeConflictError)(nil); errors.As(err, &mc) {
			// A person (or another writer) changed what the stage read:
			// never put over it; the stage tries again on the new content.
			return e.appendAndGo(ctx, r, st.onConflict(r.wf, err.Error(), e.now(), e.opts.Jitter()))
		}
		if refused(err) {
			ab := st.event(lunad.EventRunAborted, e.now())
			ab.Stage, ab.Visit, ab.Error = st.stage, st.visit, "the stage's writes were refused, nothing was written: "+err.Error()
			return e.append(r, []lunad.RunRecord{{Event: ab}})
		}
		if err != nil {
			return err
		}
	}
	if err := e.applyAcks(ctx, r, st, fx, resp.Acks, ch); refused(err) {
		ab := st.event(lunad.EventRunAborted, e.now())
		ab.Stage, ab.Visit, ab.Writes = st.stage, st.visit, refs
		ab.Error = "the stage's acknowledgement was refused: " + err.Error()
		if len(refs) > 0 {
			ab.Error += " (its writes were committed before: the event's writes name them)"
		}
		return e.append(r, []lunad.RunRecord{{Event: ab}})
	} else if err != nil {
		return err
	}
	r.mu.Lock()
	evs := r.st.afterCommit(refs, e.agentVersion(r.wf, st.next), e.now())
	r.mu.Unlock()
	return e.appendAndGo(ctx, r, evs)
}

// recordedResponse is the response stored with event seq of r's log.
func (e *Engine) recordedResponse(ctx context.Context, r *run, seq int) (lunad.StageResponse, error) {
	r.mu.Lock()
	if r.succeeded != nil && r.succeededSeq == seq {
		defer r.mu.Unlock()
		return *r.succeeded, nil
	}
	r.mu.Unlock()
	var resp storedResponse
	data, err := e.opts.Store.RunFile(ctx, r.id, seq, fileResponse)
	if err == nil {
		err = json.Unmarshal(data, &resp)
	}
	return resp.StageResponse, err
}

// appendAndGo appends evs and runs the attempt they started, if any.
func (e *Engine) appendAndGo(ctx context.Context, r *run, evs []lunad.RunEvent) error {
	recs := make([]lunad.RunRecord, len(evs))
	for i, ev := range evs {
		recs[i].Event = ev
	}
	if err := e.append(r, recs); err != nil {
		return err
	}
	if evs[len(evs)-1].Type != lunad.EventStageStarted {
		return nil
	}
	return e.attempt(ctx, r)
}

// refused reports whether the workspace refused a stage's writes for
// good (a bad path, its key used for other writes, a file in the way or
// in conflict): the run aborts, and `lunad run retry` can resume it once
// the cause is gone. Any other error (the workspace busy, the disk) is
// tried again.
func refused(err error) bool {
	return errors.Is(err, lunad.ErrInvalid) || errors.Is(err, lunad.ErrConflict) ||
		errors.Is(err, lunad.ErrExists) || errors.Is(err, lunad.ErrDirty) || errors.Is(err, lunad.ErrNotFound)
}

// stageChange is the change of a stage's commits: authored by resp's
// agent (else the stage's agent name, else the stage's name), with resp's
// trailers besides the engine's, under the visit's idempotency key.
func (e *Engine) stageChange(r *run, st *state, resp lunad.StageResponse) lunad.Change {
	agent := resp.Agent
	if agent == "" {
		agent = r.wf.Stages[st.stage].Agent
	}
	if agent == "" {
		agent = st.stage
	}
	extra := maps.Clone(resp.Trailers)
	if extra == nil {
		extra = map[string]string{}
	}
	extra["Run"], extra["Stage"], extra["Attempt"] = r.id, st.stage, fmt.Sprint(st.attempt)
	return lunad.Change{Agent: agent, Message: fmt.Sprintf("run %s, stage %s", r.id, st.stage),
		IdempotencyKey: visitKey(r.id, st.stage, st.visit, st.created.WorkflowVersion), Extra: extra}
}

// deferringEffects is Effects that can leave a stage commit's last sync
// to the next durable write of the repository (the workspace's, over
// gitstore.Store.ApplyWritesDeferred): the commit is durable before any
// ref that write moves.
type deferringEffects interface {
	ApplyWritesDeferred(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error)
}

// applyWrites commits a stage's writes as one commit with ch, through fx.
// The commit's last sync is deferred when fx can: what follows it is
// always a durable write of the same repository — the append of
// STAGE_COMMITTED (or of the run's abort), or an acknowledgement's
// commit — which makes it durable before the log says it was made. A
// power loss before that loses the commit with nothing that names it;
// the stage's recorded success has it committed again, once, under the
// visit's key.
func (e *Engine) applyWrites(ctx context.Context, r *run, st *state, fx Effects, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	apply := fx.ApplyWrites
	if dfx, ok := fx.(deferringEffects); ok {
		apply = dfx.ApplyWritesDeferred
	}
	return withRetries(ctx, e, r, st, "stage writes", func(ctx context.Context) ([]lunad.ArtifactRef, error) {
		return apply(ctx, writes, ch)
	})
}

// applyAcks records a stage's acknowledgements, in order, one commit
// each, after its writes: ack i under the visit's key with "/ack-i"
// appended, so that committing them again after a crash commits none
// twice.
func (e *Engine) applyAcks(ctx context.Context, r *run, st *state, fx Effects, acks []lunad.StageAck, ch lunad.Change) error {
	key := ch.IdempotencyKey
	for i, a := range acks {
		ch.IdempotencyKey = fmt.Sprintf("%s/ack-%d", key, i+1)
		_, err := withRetries(ctx, e, r, st, "stage acknowledgements", func(ctx context.Context) (lunad.ArtifactRef, error) {
			return fx.Ack(ctx, a.Ref, a.Symbol, ch)
		})
		if err != nil {
			what := a.Ref
			if a.Symbol != "" {
				what += " (symbol " + a.Symbol + ")"
			}
			return fmt.Errorf("acknowledging %s: %w", what, err)
		}
	}
	return nil
}

// withRetries calls f, trying again while the workspace is busy (any
// error but a refusal), at most CommitRetries times.
func withRetries[R any](ctx context.Context, e *Engine, r *run, st *state, what string, f func(context.Context) (R, error)) (R, error) {
	var res R
	var err error
	for try := 1; try <= e.opts.CommitRetries; try++ {
		res, err = f(context.WithoutCancel(ctx))
		if err == nil || refused(err) {
			return res, err
		}
		e.opts.Logger.Warn(what+" not committed yet", "run", r.id, "stage", st.stage, "try", try, "err", err)
		if !sleep(ctx, workflow.Retry{Initial: workflow.DefaultInitial, Max: workflow.DefaultMax}.Delay(try, e.opts.Jitter())) {
			var zero R
			return zero, ctx.Err()
		}
	}
	return res, err
}

// request is the current attempt's stage request. Its params are the
// stage's own (`params` in the workflow) with the run's over them. An
// isolated run's has its branch; its Dir is the caller's to set.
func request(wf *workflow.Workflow, st *state) lunad.StageRequest {
	c := st.created
	params := map[string]string{}
	if stage := wf.Stages[st.stage]; stage != nil {
		maps.Copy(params, stage.Params)
	}
	maps.Copy(params, c.Params)
	outputs := map[string]json.RawMessage{}
	maps.Copy(outputs, st.outputs)
	return lunad.StageRequest{RunID: c.RunID, CorrelationID: c.CorrelationID, Stage: st.stage, Attempt: st.attempt,
		Workflow: c.Workflow, WorkflowVersion: c.WorkflowVersion,
		IdempotencyKey: visitKey(c.RunID, st.stage, st.visit, c.WorkflowVersion),
		Inputs:         st.inputs(), Params: params, Outputs: outputs, Visit: st.visit, Branch: c.Branch}
}

// append appends recs to r's log and folds them into r's state. It is not
// cancelled with the run: an append once begun completes.
func (e *Engine) append(r *run, recs []lunad.RunRecord) error {
	return e.appendAfter(r, "", recs)
}

// errStale: the log moved on since the events to append were decided.
var errStale = errors.New("the run's log moved on")

// appendAfter is append, if the run's log is still at after (the state
// the events were decided on; "" for any): else errStale, nothing written.
func (e *Engine) appendAfter(r *run, after string, recs []lunad.RunRecord) error {
	return e.appendAfterAs(r, after, recs, false)
}

// deferringStore is a Store that can leave an append's last sync to the
// next durable write of the repository (gitstore.Store): the append is
// durable before any ref that write moves, so a stage's success appended
// so is durable before the commit of the stage's writes, which is all
// that committing them once needs.
type deferringStore interface {
	AppendRunDeferred(ctx context.Context, runID, after string, recs []lunad.RunRecord) (string, error)
}

// appendAfterAs is appendAfter, deferring the append's last sync when
// deferred is set and the Store can.
func (e *Engine) appendAfterAs(r *run, after string, recs []lunad.RunRecord, deferred bool) error {
	appendRun := e.opts.Store.AppendRun
	if ds, ok := e.opts.Store.(deferringStore); ok && deferred {
		appendRun = ds.AppendRunDeferred
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if after != "" && r.st.tip != after {
		return errStale
	}
	if err := e.finish(r, recs); err != nil {
		return err
	}
	tip, err := appendRun(context.Background(), r.id, r.st.tip, recs)
	if errors.Is(err, lunad.ErrConflict) {
		// Someone else appended: take the log as it is and decide again.
		if events, t, lerr := e.opts.Store.RunLog(context.Background(), r.id); lerr == nil {
			r.st = fold(events, t)
		}
		return err
	}
	if err != nil {
		return err
	}
	for i := range recs {
		recs[i].Event.Seq = r.st.seq + 1
		r.st.apply(recs[i].Event)
	}
	r.st.tip = tip
	return nil
}

// sleep waits d or until ctx is done, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only lunad's own types, which always encode
	}
	return b
}

// Complete records the outcome of an attempt executed elsewhere (a
// worker): the same idempotent receiver the engine's own attempts go
// through. agentErr is the worker's failure to get a response, if any.
// A completion for a run that is not being driven can only be a
// duplicate or quarantined, and is recorded as such.
func (e *Engine) Complete(ctx context.Context, req lunad.StageRequest, resp lunad.StageResponse, agentErr error) error {
	e.mu.Lock()
	r := e.live[req.RunID]
	e.mu.Unlock()
	if r == nil {
		events, tip, err := e.opts.Store.RunLog(ctx, req.RunID)
		if err != nil {
			return err
		}
		r = &run{id: req.RunID, st: fold(events, tip)}
		if r.st.phase == phaseStarted && req.WorkflowVersion == r.st.created.WorkflowVersion {
			return fmt.Errorf("%w: run %s is not being driven by this engine; its attempt will be run again when it resumes", lunad.ErrConflict, req.RunID)
		}
	}
	return e.complete(r, req, outcome{resp: resp, err: agentErr}, false)
}

// withBases is writes with each write to one of the stage's inputs that
// names no base given the input's commit: the version the stage was
// handed, so that a change made to it since is merged, not overwritten,
// even when the agent did not say what it read.
func withBases(writes []lunad.StageWrite, inputs []lunad.ArtifactRef) []lunad.StageWrite {
	out := slices.Clone(writes)
	for i, w := range out {
		if w.Base != "" {
			continue
		}
		for _, in := range inputs {
			if in.Path == w.Path && in.Commit != "" {
				out[i].Base = in.Commit
			}
		}
	}
	return out
}
