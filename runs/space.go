package runs

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/lunad/lunad"
)

// A full disk: the run's next event, or its stage's commit, cannot be
// written. Retrying once a second for ever would stall the run with no
// end and no word, so a step that keeps failing with ENOSPC fails the run
// after Options.SpaceRetries tries: RUN_ABORTED with the reason when even
// that small event can still be written, else the run stops being driven
// and reports itself aborted from memory (stalled), its log left as it is
// — a restarted daemon, or `lunad run retry`, takes it up again once
// there is space.

// defaultSpaceRetries is Options.SpaceRetries' default.
const defaultSpaceRetries = 10

// noSpace reports whether err is the disk being full.
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// failNoSpace ends r's driving after tries steps failed for want of
// space, the last with err.
func (e *Engine) failNoSpace(r *run, tries int, err error) {
	reason := fmt.Sprintf("the run's log or its stage's commit could not be written %d times: the disk holding the repository is full (%v); free space there, then `lunad run retry %s`", tries, err, r.id)
	r.mu.Lock()
	ab := r.st.event(lunad.EventRunAborted, e.now())
	ab.Stage, ab.Visit, ab.Error = r.st.stage, r.st.visit, reason
	r.mu.Unlock()
	aerr := e.append(r, []lunad.RunRecord{{Event: ab}})
	if aerr == nil {
		e.opts.Logger.Error("run aborted: the disk is full", "run", r.id, "err", err)
		return
	}
	e.opts.Logger.Error("run stopped: the disk is full and not even its abort could be written; it is taken up again when lunad restarts or `lunad run retry` is run", "run", r.id, "err", aerr)
	e.mu.Lock()
	e.stalled[r.id] = reason
	e.mu.Unlock()
}

// isStalled reports whether run id stopped for want of space.
func (e *Engine) isStalled(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.stalled[id]
	return ok
}

// stalledInfo is info as the engine reports it: aborted with the reason,
// if its driving stopped for want of space before its log could say so.
func (e *Engine) stalledInfo(info lunad.RunInfo) lunad.RunInfo {
	e.mu.Lock()
	reason, ok := e.stalled[info.ID]
	e.mu.Unlock()
	if ok && !info.Status.Finished() {
		info.Status, info.Error = lunad.RunAborted, reason
	}
	return info
}
