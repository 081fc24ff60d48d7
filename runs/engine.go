package runs

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/runs/procagent"
	"github.com/lunad/lunad/runs/workflow"
)

// Store is a run's event log (gitstore.Store implements it).
type Store interface {
	// AppendRun appends recs to run runID's log in one atomic step on top
	// of tip after ("": the run must not exist: ErrExists). It returns
	// the new tip; ErrConflict if the log moved past after.
	AppendRun(ctx context.Context, runID, after string, recs []lunad.RunRecord) (string, error)
	// RunLog returns a run's events, oldest first, and its tip;
	// *lunad.RunNotFoundError if there is no such run.
	RunLog(ctx context.Context, runID string) ([]lunad.RunEvent, string, error)
	// RunFile returns a file stored with event seq (ErrNotFound if none).
	RunFile(ctx context.Context, runID string, seq int, name string) ([]byte, error)
	// Runs maps every run's ID to its tip.
	Runs(ctx context.Context) (map[string]string, error)
	// ReplaceRun replaces a run's log by rec alone, on top of tip after.
	ReplaceRun(ctx context.Context, runID, after string, rec lunad.RunRecord) (string, error)
}

// Effects commits a stage's writes and acknowledgements and reads
// artifacts (the workspace service implements it).
type Effects interface {
	// ApplyWrites commits writes as one commit; a repeat of the same
	// writes with the same ch.IdempotencyKey commits nothing and returns
	// the first result. ErrInvalid for a path outside the workspace.
	ApplyWrites(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) ([]lunad.ArtifactRef, error)
	// Ack records that ref's references (or those to symbol) were
	// reviewed, as one commit (lunad.Writer.Ack) and returns the
	// artifact's version after it; a repeat with the same
	// ch.IdempotencyKey commits nothing and returns the first result.
	// ErrNotFound for an unknown artifact or a symbol none of its
	// references names; ErrInvalid for a bad symbol.
	Ack(ctx context.Context, ref, symbol string, ch lunad.Change) (lunad.ArtifactRef, error)
	Artifact(ctx context.Context, ref string) (lunad.Artifact, error)
	Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error)
}

// Options configure an Engine. Store, Effects and Root are required. A
// Store that can defer an append's last sync (AppendRunDeferred, as
// gitstore's) must be the repository Effects commits in: the engine
// defers the append of a stage's success to the commit of its writes.
// Likewise Effects that can defer a commit's last sync
// (ApplyWritesDeferred, as the workspace's) must commit in the Store's
// repository: the engine defers a stage's commit to the append of
// STAGE_COMMITTED.
type Options struct {
	Root    string // the workspace: workflows are read from Root/.luna/workflows
	Store   Store
	Effects Effects
	// Isolation gives isolated runs (a workflow with isolated = true) a
	// branch and a worktree of their own (isolation.go); without it such a
	// workflow cannot be started.
	Isolation Isolation
	// Agents are the built-in agents a stage names with `agent = "NAME"`.
	Agents map[string]lunad.Agent
	// NewProcess makes the agent of a stage with a `command` (default: a
	// process agent, package procagent).
	NewProcess func(root string, argv []string, timeout time.Duration) (lunad.Agent, error)
	// Groups is where the default process agents record the process
	// groups of the commands they run (procagent.Options.Groups). Resume
	// first ends the groups recorded there that still run
	// (procagent.EndLeftovers): the agents of an earlier daemon that was
	// killed, which would otherwise go on writing into a run's worktree
	// after the next attempt's Clean. Empty: nothing is recorded.
	Groups string
	// Config is the effective configuration, stored with every run and
	// referenced by its events (config_ref).
	Config []byte
	Clock  func() time.Time // default time.Now
	NewID  func() string    // run IDs (default: time and 6 random hex digits)
	Jitter func() float64   // backoff jitter in [0,1) (default: crypto/rand)
	Slots  int              // attempts running at once (default 4)
	// Builtin are workflows built into the binary, by name (their TOML).
	// A workspace file .luna/workflows/NAME.toml of the same name takes
	// precedence. New refuses one that does not check.
	Builtin map[string][]byte
	// OnFinish, if set, is called once for each terminal event the engine
	// appends (RUN_COMPLETED, RUN_ABORTED, RUN_CANCELLED), after every
	// stage commit of the run, with the run as it is with that event (its
	// Events included); what it returns is that event's Output. It is not
	// called for a run found finished, nor by Replay.
	OnFinish func(ctx context.Context, info lunad.RunInfo) json.RawMessage
	// Merge is how the workspace merged a stage's write computed from an
	// older version of its artifact (lunad.StageWrite.Base): Replay merges
	// the same way to compute the tree the run wrote. nil: a replay takes
	// each write's content as it is.
	Merge func(base, ours, theirs []byte, edits []lunad.Block) (merged []byte, conflicts []int)
	// CommitRetries bounds the tries to commit a stage's writes when the
	// workspace is busy (default 5).
	CommitRetries int
	// SpaceRetries bounds the tries of a step that fails because the disk
	// is full (ENOSPC) before the run fails with that reason (default 10,
	// one a second).
	SpaceRetries int
	Logger       *slog.Logger
}

// Engine drives runs. It is safe for concurrent use; Close stops it.
type Engine struct {
	opts  Options
	slots chan struct{}

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	live map[string]*run // runs being driven
	// stalled are the runs whose driving stopped because the disk is
	// full before their log could record it, with the reason (space.go).
	stalled map[string]string

	agentsMu  sync.Mutex
	processes map[string]lunad.Agent // stages' process agents, by command and timeout (agents.go)
}

// run is a run being driven by its own goroutine, the only appender to
// its log while it lives.
type run struct {
	id     string
	wf     *workflow.Workflow
	cancel context.CancelCauseFunc
	done   chan struct{}

	mu sync.Mutex
	st *state
	// succeeded is the response recorded by the last STAGE_SUCCEEDED this
	// driver appended (its Seq in succeededSeq): committing its writes
	// needs no read of the log, except after a restart.
	succeeded    *lunad.StageResponse
	succeededSeq int
	// finished is OnFinish's output for the terminal event decided at
	// tip finishedAt, kept in case its append is tried again.
	finished   json.RawMessage
	finishedAt string
	// attemptDue: the attempt the log shows started was started by this
	// driver's Start, in the append that created the run, and has not
	// run yet (a started attempt found otherwise was interrupted).
	attemptDue bool
}

// phase is r's phase, read under its lock.
func (r *run) phase() phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st.phase
}

// errCancelled is the cause of a run's context when the run is cancelled,
// as opposed to the engine closing.
var errCancelled = errors.New("cancelled")

// Open starts an engine and resumes every unfinished run from its log.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	e, err := New(opts)
	if err != nil {
		return nil, err
	}
	return e, e.Resume(ctx)
}

// New makes an engine that drives the runs it starts or retries, and
// answers about every run; Resume takes up the unfinished ones.
func New(opts Options) (*Engine, error) {
	if opts.Store == nil || opts.Effects == nil || opts.Root == "" {
		return nil, fmt.Errorf("%w: runs.New needs a Store, Effects and a Root", lunad.ErrInvalid)
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Builtin)) {
		if _, err := parseBuiltin(name, opts.Builtin[name]); err != nil {
			return nil, fmt.Errorf("built-in workflow %s: %w", name, err)
		}
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = func() string { return newRunID(opts.Clock()) }
	}
	if opts.Jitter == nil {
		opts.Jitter = randomJitter
	}
	if opts.Slots <= 0 {
		opts.Slots = 4
	}
	if opts.CommitRetries <= 0 {
		opts.CommitRetries = 5
	}
	if opts.SpaceRetries <= 0 {
		opts.SpaceRetries = defaultSpaceRetries
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.NewProcess == nil {
		groups := opts.Groups
		opts.NewProcess = func(root string, argv []string, timeout time.Duration) (lunad.Agent, error) {
			return procagent.New(root, argv, procagent.Options{Timeout: timeout, Groups: groups})
		}
	}
	e := &Engine{opts: opts, slots: make(chan struct{}, opts.Slots), live: map[string]*run{}, stalled: map[string]string{}, processes: map[string]lunad.Agent{}}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	return e, nil
}

// Resume drives every unfinished run that is not driven yet, from its
// log: what a daemon does when it starts.
func (e *Engine) Resume(ctx context.Context) error {
	if err := e.endLeftovers(ctx); err != nil {
		return err
	}
	ids, err := e.opts.Store.Runs(ctx)
	if err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		e.mu.Lock()
		_, live := e.live[id]
		e.mu.Unlock()
		if live {
			continue
		}
		events, tip, err := e.opts.Store.RunLog(ctx, id)
		if err != nil {
			// One damaged log must not keep the others from going on.
			e.opts.Logger.Error("run cannot be resumed: its log cannot be read", "run", id, "err", err)
			continue
		}
		st := fold(events, tip)
		if st.phase == phaseFinished {
			continue
		}
		if err := e.resume(ctx, st); err != nil {
			e.opts.Logger.Error("run cannot be resumed", "run", id, "err", err)
		}
	}
	return nil
}

// endLeftovers ends the process agents an earlier engine left running
// (Options.Groups), before any attempt is retried; one that cannot be
// ended keeps the runs from resuming.
func (e *Engine) endLeftovers(ctx context.Context) error {
	if e.opts.Groups == "" {
		return nil
	}
	ended, err := procagent.EndLeftovers(ctx, e.opts.Groups)
	for _, l := range ended {
		e.opts.Logger.Warn("ended a process agent an earlier lunad left running", "run", l.Run, "stage", l.Stage, "attempt", l.Attempt,
			"command", l.Command, "pgid", l.PGID, "processes", l.Processes)
	}
	if err != nil {
		return fmt.Errorf("ending the process agents an earlier lunad left running (%s): %w; end them by hand (kill -KILL -PGID), then start lunad again", e.opts.Groups, err)
	}
	return nil
}

// Running reports how many runs the engine is driving.
func (e *Engine) Running() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.live)
}

// Close stops every run's driver and waits for them. An attempt in flight
// is stopped and recorded as interrupted when the engine opens again.
func (e *Engine) Close() error {
	e.cancel()
	e.wg.Wait()
	return nil
}

// resume starts driving st's run with the workflow version it was
// created with (stored beside RUN_CREATED).
func (e *Engine) resume(ctx context.Context, st *state) error {
	data, err := e.opts.Store.RunFile(ctx, st.info.ID, st.created.Seq, fileWorkflow)
	if err != nil {
		return err
	}
	wf, err := workflow.Parse(st.info.Workflow+".toml", data)
	if err != nil {
		return err
	}
	e.drive(&run{id: st.info.ID, wf: wf, st: st})
	return nil
}

// drive starts r's goroutine.
func (e *Engine) drive(r *run) {
	ctx, cancel := context.WithCancelCause(e.ctx)
	r.cancel, r.done = cancel, make(chan struct{})
	e.mu.Lock()
	e.live[r.id] = r
	delete(e.stalled, r.id)
	e.mu.Unlock()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer close(r.done)
		defer func() {
			e.mu.Lock()
			delete(e.live, r.id)
			e.mu.Unlock()
		}()
		e.loop(ctx, r)
	}()
}

func (e *Engine) now() time.Time { return e.opts.Clock().UTC() }

func newRunID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func randomJitter() float64 {
	var b [8]byte
	rand.Read(b[:])
	return float64(binary.LittleEndian.Uint64(b[:])>>11) / (1 << 53)
}
