package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/runs"
)

// Isolated runs (runs.Isolation): each on a branch of its own, checked out
// in one of lunad's linked worktrees (<git common dir>/luna/worktrees/RUN,
// gitstore.AddWorktree), where a Store of its own commits the run's stage
// writes. The Service keeps those stores open while their runs need them;
// the user's checkout, branch and index are the Service's own store's and
// never change for a run — until AcceptRun fast-forwards the branch the
// run was made from. Before each attempt of a stage the engine has that
// store put the worktree back to its branch's tip (Clean).

// worktrees are the stores open on isolated runs' worktrees, by run.
type worktrees struct {
	mu   sync.Mutex
	open map[string]*gitstore.Store
}

// close closes every store open on a worktree.
func (w *worktrees) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for id, st := range w.open {
		errs = append(errs, st.Close())
		delete(w.open, id)
	}
	return errors.Join(errs...)
}

// isolation is the engine's runs.Isolation over the Service's store.
type isolation struct{ s *Service }

// maxNamed bounds the uncommitted paths an error names.
const maxNamed = 10

func (i isolation) Base(ctx context.Context) (string, string, error) {
	paths, err := i.s.store.Uncommitted(ctx)
	if err != nil {
		return "", "", err
	}
	branch, commit, err := i.s.store.Head()
	if err != nil {
		return "", "", err
	}
	if branch == "" {
		return "", "", fmt.Errorf("%w: HEAD is detached at %.12s; switch to a branch (lunad switch BRANCH) first: an isolated run's work is accepted onto the branch it was made from", lunad.ErrInvalid, commit)
	}
	if len(paths) > 0 {
		named := strings.Join(paths[:min(len(paths), maxNamed)], ", ")
		if len(paths) > maxNamed {
			named += fmt.Sprintf(" and %d more (git status lists them)", len(paths)-maxNamed)
		}
		return "", "", fmt.Errorf("%w: %s; commit them or discard them (git stash) first: an isolated run works on a branch made from %s's last commit, which does not have them", lunad.ErrDirty, named, branch)
	}
	return branch, commit, nil
}

func (i isolation) Worktree(ctx context.Context, run, branch, base string) (string, runs.Effects, error) {
	w := &i.s.trees
	w.mu.Lock()
	defer w.mu.Unlock()
	dir, made, err := i.s.store.AddWorktree(ctx, run, branch, base)
	if err != nil {
		return "", nil, err
	}
	st := w.open[run]
	if st != nil && made { // made again: the store open there lost its files
		st.Close()
		st = nil
	}
	if st == nil {
		if st, err = i.s.store.OpenWorktree(run); err != nil {
			return "", nil, err
		}
		if w.open == nil {
			w.open = map[string]*gitstore.Store{}
		}
		w.open[run] = st
	}
	return dir, worktreeEffects{st}, nil
}

// Clean puts run's worktree back to its branch's tip through the store
// open there (gitstore.Store.Clean), which Worktree opened.
func (i isolation) Clean(ctx context.Context, run, branch string) (runs.Cleaned, error) {
	w := &i.s.trees
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.open[run]
	if st == nil {
		return runs.Cleaned{}, fmt.Errorf("%w: run %s has no worktree open for branch %s; the engine opens it (Worktree) before an attempt", lunad.ErrNotFound, run, branch)
	}
	c, err := st.Clean(ctx)
	return runs.Cleaned{Restored: c.Restored, Removed: c.Removed}, err
}

func (i isolation) Dir(run string) string { return i.s.store.WorktreeDir(run) }

func (i isolation) Accept(ctx context.Context, run, branch, into, base string) (string, error) {
	b, err := i.s.store.FastForward(ctx, into, base, branch)
	if err != nil {
		return "", err
	}
	if b.Current {
		i.s.events.Publish(lunad.Event{Kind: "branch", Commit: b.Commit})
	}
	return b.Commit, nil
}

func (i isolation) Discard(ctx context.Context, run, branch string) error {
	w := &i.s.trees
	w.mu.Lock()
	defer w.mu.Unlock()
	if st := w.open[run]; st != nil {
		delete(w.open, run)
		if err := st.Close(); err != nil {
			i.s.log.Warn("closing the store of a discarded worktree", "run", run, "err", err)
		}
	}
	if err := i.s.store.RemoveWorktree(ctx, run); err != nil {
		return err
	}
	return i.s.store.DeleteBranch(ctx, branch)
}

// worktreeEffects commits an isolated run's stage writes and
// acknowledgements on its branch, in its worktree. An acknowledgement of a
// symbol is checked for its form only: the reference index is the user's
// checkout's, not the run's.
type worktreeEffects struct{ st *gitstore.Store }

func (e worktreeEffects) ApplyWrites(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	refs, _, _, err := e.st.ApplyWrites(ctx, writes, ch)
	return refs, err
}

// ApplyWritesDeferred is ApplyWrites leaving the commit's last sync to
// the engine's next append, a syncfs of the same file system (the run
// refs and the run's branch are both in the repository's common dir).
func (e worktreeEffects) ApplyWritesDeferred(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	refs, _, _, err := e.st.ApplyWritesDeferred(ctx, writes, ch)
	return refs, err
}

func (e worktreeEffects) Ack(ctx context.Context, ref, symbol string, ch lunad.Change) (lunad.ArtifactRef, error) {
	symbol, err := gitstore.CheckSymbol(symbol)
	if err != nil {
		return lunad.ArtifactRef{}, err
	}
	res, err := e.st.Ack(ctx, ref, symbol, ch)
	return res.Ref(), err
}

func (e worktreeEffects) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	return e.st.Artifact(ctx, ref)
}

func (e worktreeEffects) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	return e.st.Read(ctx, ref, at)
}

// AcceptRun fast-forwards the branch a finished isolated run was made from
// to the run's work (see lunad.WorkflowRuns).
func (s *Service) AcceptRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return withEngine(s, func(e *runs.Engine) (lunad.RunInfo, error) { return e.Accept(ctx, id) })
}

// DiscardRun removes a finished isolated run's worktree and branch (see
// lunad.WorkflowRuns).
func (s *Service) DiscardRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return withEngine(s, func(e *runs.Engine) (lunad.RunInfo, error) { return e.Discard(ctx, id) })
}
