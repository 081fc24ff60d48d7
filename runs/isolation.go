package runs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lunad/lunad"
)

// Isolated runs. A workflow with `isolated = true` runs each run on a
// branch of its own, luna/<workflow>/<run-id>, made from the tip of the
// branch checked out when the run is created (RUN_CREATED records the
// branch, that tip as its base and the branch it was the tip of), and
// checked out in a worktree of its own. Stage agents get the branch and
// the worktree's path (StageRequest.Branch, Dir); the stages' writes and
// acknowledgements are committed there, through the Effects the
// Isolation gives for the run; the branch the run was made from changes
// only when the run is accepted (Accept: a fast-forward, RUN_ACCEPTED), or
// never (Discard, RUN_DISCARDED). The worktree is made before the first
// stage and made again from the branch whenever it is found missing, so a
// run resumed after a crash goes on where its branch is. Before every
// attempt of a stage — the first, a retry, one resumed after the daemon
// died mid-attempt — the worktree is made exactly its branch's tip
// (Isolation.Clean), so that no attempt starts from, or commits as its
// own, what an earlier one left half-done.

// Isolation gives isolated runs a branch and a worktree of their own (the
// workspace service implements it). An engine without one refuses to
// start an isolated workflow.
type Isolation interface {
	// Base is where an isolated run starts now: the branch checked out
	// and its tip. ErrDirty, naming the uncommitted paths and what to do,
	// when the working tree has changes that tip has not; ErrInvalid when
	// HEAD is detached.
	Base(ctx context.Context) (branch, commit string, err error)
	// Worktree makes sure run's worktree exists with branch checked out —
	// made again from the branch's tip if it is missing; the branch made
	// at base first if it does not exist and base is set (with base ""
	// it must exist) — and returns the worktree's absolute path and the
	// Effects that commit there, on branch. ErrNotFound when the branch
	// is gone; ErrConflict when it is checked out elsewhere.
	Worktree(ctx context.Context, run, branch, base string) (string, Effects, error)
	// Clean makes run's worktree, which Worktree made sure of, exactly
	// the tip of branch before an attempt of one of the run's stages
	// runs there: tracked files that differ from the tip restored, files
	// the tip does not have removed unless its .gitignore files ignore
	// them, the worktree's index the tip's. The branch and its commits
	// stay, whoever made them. It returns what it changed. ErrNotFound
	// when run has no worktree.
	Clean(ctx context.Context, run, branch string) (Cleaned, error)
	// Dir is the absolute path run's worktree has (or had, or will have).
	Dir(run string) string
	// Accept fast-forwards branch into from base to the tip of branch
	// (the working tree and index following where into is checked out)
	// and returns that tip; into already there is no error. ErrConflict
	// as a *lunad.BranchMovedError when into is no longer at base; ErrDirty
	// when uncommitted changes would be overwritten.
	Accept(ctx context.Context, run, branch, into, base string) (string, error)
	// Discard removes run's worktree and deletes branch; what is gone
	// already is no error.
	Discard(ctx context.Context, run, branch string) error
}

// Cleaned is what Isolation.Clean changed in a run's worktree.
type Cleaned struct {
	Restored []string // tracked paths put back to the branch's tip, sorted
	Removed  []string // untracked paths removed, sorted; a directory removed whole ends in "/"
}

// branchOf is the branch of run id of an isolated workflow.
func branchOf(workflow, id string) string { return "luna/" + workflow + "/" + id }

// isolate fills an isolated run's RUN_CREATED with its branch and base.
func (e *Engine) isolate(ctx context.Context, ev *lunad.RunEvent) error {
	if e.opts.Isolation == nil {
		return fmt.Errorf("%w: workflow %s is isolated (isolated = true) and this engine cannot give a run a branch of its own; run it from the workspace's daemon", lunad.ErrInvalid, ev.Workflow)
	}
	from, base, err := e.opts.Isolation.Base(ctx)
	if err != nil {
		return err
	}
	ev.Branch, ev.Base, ev.BaseBranch = branchOf(ev.Workflow, ev.RunID), base, from
	return nil
}

// worktree makes sure isolated run r's worktree is there and returns its
// path and the Effects that commit on its branch; for a run that is not
// isolated, "" and the engine's Effects. The branch is made only before
// the run's first stage: later a missing branch is an error, never a
// fresh branch without the commits of the stages before.
func (e *Engine) worktree(ctx context.Context, r *run) (string, Effects, error) {
	r.mu.Lock()
	info, first := r.st.info, r.st.phase == phaseCreated
	r.mu.Unlock()
	if info.Branch == "" {
		return "", e.opts.Effects, nil
	}
	if e.opts.Isolation == nil {
		return "", nil, fmt.Errorf("%w: run %s is isolated (branch %s) and this engine cannot give it its worktree", lunad.ErrInvalid, r.id, info.Branch)
	}
	base := ""
	if first {
		base = info.Base
	}
	dir, fx, err := e.opts.Isolation.Worktree(ctx, r.id, info.Branch, base)
	if err != nil {
		return "", nil, fmt.Errorf("the worktree of run %s (branch %s): %w", r.id, info.Branch, err)
	}
	return dir, fx, nil
}

// maxLogged bounds the paths a log line names.
const maxLogged = 20

// attemptDir makes sure isolated run r's worktree is there and exactly
// its branch's tip for the attempt req, and returns its path: what an
// earlier attempt — above all one the daemon died in the middle of — left
// there is restored or removed, and logged.
func (e *Engine) attemptDir(ctx context.Context, r *run, req lunad.StageRequest) (string, error) {
	dir, _, err := e.worktree(ctx, r)
	if err != nil {
		return "", err
	}
	c, err := e.opts.Isolation.Clean(ctx, r.id, req.Branch)
	if err != nil {
		return "", fmt.Errorf("putting the worktree of run %s back to the tip of %s before stage %s (attempt %d): %w", r.id, req.Branch, req.Stage, req.Attempt, err)
	}
	if len(c.Restored)+len(c.Removed) > 0 {
		e.opts.Logger.Info("the run's worktree held what an earlier attempt left; put back to its branch's tip",
			"run", r.id, "stage", req.Stage, "attempt", req.Attempt, "branch", req.Branch,
			"restored", named(c.Restored), "removed", named(c.Removed))
	}
	return dir, nil
}

// named is paths for a log line: the first maxLogged, and how many more.
func named(paths []string) string {
	if len(paths) <= maxLogged {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:maxLogged], ", "), len(paths)-maxLogged)
}

// prepare makes an isolated run's branch and worktree before its first
// stage; the run aborts when the workspace refuses them.
func (e *Engine) prepare(ctx context.Context, r *run) error {
	_, _, err := e.worktree(ctx, r)
	if refused(err) {
		r.mu.Lock()
		ab := r.st.event(lunad.EventRunAborted, e.now())
		r.mu.Unlock()
		ab.Error = "the run's branch and worktree could not be made: " + err.Error()
		return e.append(r, []lunad.RunRecord{{Event: ab}})
	}
	return err
}

// Accept takes a finished isolated run's work onto the branch it was made
// from (Isolation.Accept), records RUN_ACCEPTED with the commit that
// branch is at now, then removes the run's worktree and branch. Accepting
// again removes what is left of them and returns the run. Errors:
// ErrInvalid for a run that is not isolated, has not finished, or was
// discarded; ErrConflict (*lunad.BranchMovedError, its Run set) when the
// branch moved since the run started; ErrDirty.
func (e *Engine) Accept(ctx context.Context, id string) (lunad.RunInfo, error) {
	st, err := e.settled(ctx, id, "accept")
	if err != nil {
		return lunad.RunInfo{}, err
	}
	info := st.info
	if info.Discarded {
		return lunad.RunInfo{}, fmt.Errorf("%w: run %s was discarded: its branch %s is gone, so there is nothing to accept; start the workflow again", lunad.ErrInvalid, id, info.Branch)
	}
	if info.Accepted == "" {
		tip, err := e.opts.Isolation.Accept(ctx, id, info.Branch, info.BaseBranch, info.Base)
		var moved *lunad.BranchMovedError
		if errors.As(err, &moved) {
			moved.Run = id
		}
		if err != nil {
			return lunad.RunInfo{}, err
		}
		ev := st.event(lunad.EventRunAccepted, e.now())
		ev.Branch, ev.BaseBranch, ev.Base, ev.Tip = info.Branch, info.BaseBranch, info.Base, tip
		if err := e.appendAfter(&run{id: id, st: st}, st.tip, []lunad.RunRecord{{Event: ev}}); err != nil {
			return lunad.RunInfo{}, err
		}
	}
	if err := e.opts.Isolation.Discard(ctx, id, info.Branch); err != nil {
		return lunad.RunInfo{}, fmt.Errorf("run %s is accepted (%s has its work), but its worktree and branch %s are left: %w; accept it again to remove them", id, info.BaseBranch, info.Branch, err)
	}
	return e.Run(ctx, id)
}

// Discard removes a finished isolated run's worktree and deletes its
// branch, then records RUN_DISCARDED; discarding again returns the run.
// ErrInvalid for a run that is not isolated, is running, or was accepted.
func (e *Engine) Discard(ctx context.Context, id string) (lunad.RunInfo, error) {
	st, err := e.settled(ctx, id, "discard")
	if err != nil {
		return lunad.RunInfo{}, err
	}
	info := st.info
	if info.Accepted != "" {
		return lunad.RunInfo{}, fmt.Errorf("%w: run %s was accepted: its work is on %s (at %.12s), where git can revert it; there is nothing to discard", lunad.ErrInvalid, id, info.BaseBranch, info.Accepted)
	}
	if err := e.opts.Isolation.Discard(ctx, id, info.Branch); err != nil {
		return lunad.RunInfo{}, fmt.Errorf("discard run %s: %w", id, err)
	}
	if !info.Discarded {
		ev := st.event(lunad.EventRunDiscarded, e.now())
		ev.Branch = info.Branch
		if err := e.appendAfter(&run{id: id, st: st}, st.tip, []lunad.RunRecord{{Event: ev}}); err != nil {
			return lunad.RunInfo{}, err
		}
	}
	return e.Run(ctx, id)
}

// settled reads run id for Accept or Discard (verb): it must be isolated
// and finished.
func (e *Engine) settled(ctx context.Context, id, verb string) (*state, error) {
	st, _, err := e.read(ctx, id)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	_, live := e.live[id]
	e.mu.Unlock()
	switch {
	case st.info.Branch == "":
		return nil, fmt.Errorf("%w: run %s is not isolated: its writes are commits on the branch already, so there is nothing to %s (workflow %s has no isolated = true)", lunad.ErrInvalid, id, verb, st.info.Workflow)
	case live || !st.info.Status.Finished():
		return nil, fmt.Errorf("%w: run %s is still running; wait for it to finish (lunad run show %s), or cancel it (lunad run cancel %s), then %s it", lunad.ErrInvalid, id, id, id, verb)
	case e.opts.Isolation == nil:
		return nil, fmt.Errorf("%w: run %s is isolated and this engine cannot %s it; do it through the workspace's daemon", lunad.ErrInvalid, id, verb)
	}
	return st, nil
}
