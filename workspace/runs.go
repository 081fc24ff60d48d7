package workspace

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/gitdir"
	"github.com/lunad/lunad/runs"
)

// The Service hosts the workflow engine (package runs): it gives the
// engine the store's run logs and commits stage writes for it as one
// commit each, published like any other write. The engine is made on
// first use; the daemon calls DriveRuns, which also takes up the runs an
// earlier daemon left unfinished.

// runsEngine is the Service's engine, made once.
type runsEngine struct {
	mu   sync.Mutex
	opts runs.Options
	eng  *runs.Engine
}

// ConfigureRuns sets the engine's options (its configuration snapshot,
// built-in agents, queue, slots); Root, Store and Effects are the
// Service's. It must be called before the first run method.
func (s *Service) ConfigureRuns(opts runs.Options) {
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	s.runs.opts = opts
}

// engine is the Service's workflow engine.
func (s *Service) engine() (*runs.Engine, error) {
	r := &s.runs
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.eng == nil {
		o := r.opts
		o.Root, o.Store, o.Effects = s.store.Root(), s.store, effects{s}
		if o.Isolation == nil {
			o.Isolation = isolation{s}
		}
		if o.Logger == nil {
			o.Logger = s.log
		}
		if o.Merge == nil {
			o.Merge = mergeStageWrite // as the store merges stage writes
		}
		if o.Groups == "" {
			// The repository's, as the run logs and worktrees are: one
			// engine drives a repository's runs at a time (the runs lock).
			co, err := gitdir.Find(s.store.Root())
			if err != nil {
				return nil, err
			}
			o.Groups = filepath.Join(co.CommonDir, "luna", "agents")
		}
		e, err := runs.New(o)
		if err != nil {
			return nil, err
		}
		r.eng = e
	}
	return r.eng, nil
}

// started is the engine if it was made.
func (s *Service) started() *runs.Engine {
	s.runs.mu.Lock()
	defer s.runs.mu.Unlock()
	return s.runs.eng
}

// DriveRuns takes up every unfinished run (what the daemon does when it
// starts).
func (s *Service) DriveRuns(ctx context.Context) error {
	e, err := s.engine()
	if err != nil {
		return err
	}
	return e.Resume(ctx)
}

// RunsInFlight is how many runs this process drives: a daemon does not
// exit for being idle while it has any.
func (s *Service) RunsInFlight() int {
	if e := s.started(); e != nil {
		return e.Running()
	}
	return 0
}

func (s *Service) closeRuns() error {
	var err error
	if e := s.started(); e != nil {
		err = e.Close()
	}
	return errors.Join(err, s.trees.close())
}

// effects is what the engine needs of the Service.
type effects struct{ s *Service }

func (e effects) ApplyWrites(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	return e.apply(e.s.store.ApplyWrites(ctx, writes, ch))
}

// ApplyWritesDeferred is ApplyWrites leaving the commit's last sync to
// the engine's next append (gitstore.Store.ApplyWritesDeferred).
func (e effects) ApplyWritesDeferred(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error) {
	return e.apply(e.s.store.ApplyWritesDeferred(ctx, writes, ch))
}

// apply publishes what a stage commit changed.
func (e effects) apply(refs []lunad.ArtifactRef, commit string, replayed bool, err error) ([]lunad.ArtifactRef, error) {
	if err == nil && !replayed && len(refs) > 0 {
		ids := make([]string, len(refs))
		for i, r := range refs {
			ids[i] = r.ID
		}
		e.s.events.Publish(lunad.Event{Kind: "changed", IDs: ids, Commit: commit})
	}
	return refs, err
}

func (e effects) Ack(ctx context.Context, ref, symbol string, ch lunad.Change) (lunad.ArtifactRef, error) {
	res, err := e.s.Ack(ctx, lunad.AckRequest{Ref: ref, Symbol: symbol, Change: ch})
	return res.Ref(), err
}

func (e effects) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	return e.s.Artifact(ctx, ref)
}

func (e effects) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	return e.s.Read(ctx, ref, at)
}

// withEngine runs f with the engine.
func withEngine[R any](s *Service, f func(*runs.Engine) (R, error)) (R, error) {
	e, err := s.engine()
	if err != nil {
		var zero R
		return zero, fmt.Errorf("the workflow engine: %w", err)
	}
	return f(e)
}

func (s *Service) Workflows(ctx context.Context) ([]lunad.WorkflowInfo, error) {
	return withEngine(s, func(e *runs.Engine) ([]lunad.WorkflowInfo, error) { return e.Workflows(ctx) })
}

func (s *Service) Workflow(ctx context.Context, name string) (lunad.WorkflowInfo, error) {
	return withEngine(s, func(e *runs.Engine) (lunad.WorkflowInfo, error) { return e.Workflow(ctx, name) })
}

func (s *Service) StartRun(ctx context.Context, req lunad.RunRequest) (lunad.RunInfo, error) {
	return withEngine(s, func(e *runs.Engine) (lunad.RunInfo, error) { return e.Start(ctx, req) })
}

func (s *Service) Runs(ctx context.Context) ([]lunad.RunInfo, error) {
	return withEngine(s, func(e *runs.Engine) ([]lunad.RunInfo, error) { return e.Runs(ctx) })
}

func (s *Service) Run(ctx context.Context, id string) (lunad.RunInfo, error) {
	return withEngine(s, func(e *runs.Engine) (lunad.RunInfo, error) { return e.Run(ctx, id) })
}

// RunFile returns the file name a stage stored beside event seq of run
// id (lunad.WorkflowRuns): the run log's files/NAME.
func (s *Service) RunFile(ctx context.Context, id string, seq int, name string) ([]byte, error) {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || strings.HasPrefix(name, "../") || name == ".." {
		return nil, fmt.Errorf("%w: %q is not a stage file's name (a relative path such as report.md)", lunad.ErrInvalid, name)
	}
	return s.store.RunFile(ctx, id, seq, "files/"+name)
}

func (s *Service) WaitRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return withEngine(s, func(e *runs.Engine) (lunad.RunInfo, error) { return e.Wait(ctx, id) })
}

func (s *Service) CancelRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return withEngine(s, func(e *runs.Engine) (lunad.RunInfo, error) { return e.Cancel(ctx, id) })
}

func (s *Service) RetryRun(ctx context.Context, id string) (lunad.RunInfo, error) {
	return withEngine(s, func(e *runs.Engine) (lunad.RunInfo, error) { return e.Retry(ctx, id) })
}

func (s *Service) ReplayRun(ctx context.Context, id string, live bool) (lunad.ReplayReport, error) {
	return withEngine(s, func(e *runs.Engine) (lunad.ReplayReport, error) { return e.Replay(ctx, id, live) })
}

func (s *Service) PruneRuns(ctx context.Context, olderThan time.Duration) ([]string, error) {
	return withEngine(s, func(e *runs.Engine) ([]string, error) { return e.Prune(ctx, olderThan) })
}

func (s *Service) DeadLetters(ctx context.Context) ([]lunad.RunInfo, error) {
	return withEngine(s, func(e *runs.Engine) ([]lunad.RunInfo, error) { return e.DeadLetters(ctx) })
}
