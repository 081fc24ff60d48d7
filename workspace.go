package lunad

import (
	"context"
	"io"
	"time"
)

// Workspace is what every adapter (the CLI, the language server, the MCP
// server) and every agent uses: the workspace service in-process, or a
// client of the workspace's daemon. Both implement it with the same error
// contract: the sentinel errors of this package, wrapped with what to do
// (a client carries them across the socket). It is composed of small
// interfaces so that a user asks only for the part it needs.
type Workspace interface {
	Reader
	Writer
	Brancher
	Referencer
	Subscriber
	WorkflowRuns
	io.Closer
}

// Reader reads artifacts and their history. Errors: ErrNotFound for an
// unknown artifact, version or commit.
type Reader interface {
	// Root is the workspace's root directory.
	Root() string
	List(ctx context.Context) ([]Artifact, error)
	Artifact(ctx context.Context, ref string) (Artifact, error)
	// Read returns content at "" (current), a version number or a commit.
	Read(ctx context.Context, ref, at string) ([]byte, Artifact, error)
	History(ctx context.Context, ref string) ([]Version, error)
	// Diff is the unified diff between two versions (0: the current one).
	Diff(ctx context.Context, id string, from, to int) (string, error)
}

// Writer changes artifacts, each write one commit. Errors: ErrNotFound,
// ErrInvalid (bad input), ErrConflict (a base version moved, or an
// idempotency key used for another request), ErrNotApplied (an edit that
// does not apply), ErrDirty, ErrLocked; a client of a daemon that died
// under a write without an idempotency key answers ErrInterrupted. Each
// write takes one request struct (write.go) carrying its Change.
type Writer interface {
	Create(ctx context.Context, spec CreateSpec) (Result, error)
	Edit(ctx context.Context, req EditRequest) (EditResult, error)
	Undo(ctx context.Context, req RefRequest) (Result, error)
	Redo(ctx context.Context, req RefRequest) (Result, error)
	Restore(ctx context.Context, req RestoreRequest) (Result, error)
	Move(ctx context.Context, req MoveRequest) (Result, error)
	Archive(ctx context.Context, req RefRequest) (Result, error)
	// Remove deletes an artifact's file; its metadata stays, with status
	// removed, so that Undo brings it back (see StatusRemoved).
	Remove(ctx context.Context, req RefRequest) (Result, error)
	Link(ctx context.Context, req LinkRequest) (Result, error)
	Ack(ctx context.Context, req AckRequest) (Result, error)
}

// Brancher creates and switches branches. Errors: ErrInvalid (a name git
// refuses), ErrExists, ErrNotFound, ErrDirty (a switch that would
// overwrite uncommitted changes).
type Brancher interface {
	Branch(ctx context.Context, req BranchRequest) (Branch, error)
	Switch(ctx context.Context, name string) (Branch, error)
	Branches(ctx context.Context) ([]Branch, error)
}

// Referencer answers from the reference graph. Errors: ErrNotFound for an
// unknown artifact; ErrInvalid for one that is not indexed (binary, too
// large), saying why.
type Referencer interface {
	Symbols(ctx context.Context, ref string) (Artifact, []Symbol, error)
	Refs(ctx context.Context, ref string) (RefReport, error)
	// Outgoing is Refs' outgoing half alone: what diagnostics need, without
	// evaluating the rest of the workspace's references to the artifact.
	Outgoing(ctx context.Context, ref string) ([]Reference, error)
	Stale(ctx context.Context) ([]Reference, error)
	// At tells what is at a byte offset of an artifact: the reference
	// written there and what it resolves to, and the definition there with
	// the references to it (see Point).
	At(ctx context.Context, ref string, offset int) (Point, error)
	// SearchSymbols finds definitions across the workspace whose name
	// contains query (case-insensitive), at most limit of them, best first.
	SearchSymbols(ctx context.Context, query string, limit int) ([]SymbolHit, error)
	// IndexReferences returns once the reference index is up to date —
	// what a caller that shows progress does before the calls above, which
	// build the index too but silently. While a build of the cold index
	// runs (one this call starts, or one already under way when it is
	// made), progress, if not nil, is told how far it has come: at once
	// with the current figure, then each time the whole percentage of
	// artifacts parsed rises, with done rising to total, which stays the
	// same (a build begun again, after a failure or a reconnection to a
	// restarted daemon, starts over). The calls are made one at a
	// time and have all been made when IndexReferences returns; an index
	// already built makes none. progress must return quickly and must not
	// call the workspace (through the daemon it runs on the connection's
	// reader). Errors: those of reading the store, and ctx's.
	IndexReferences(ctx context.Context, progress func(done, total int)) error
}

// WorkflowRuns starts and inspects runs of the workspace's workflows (the
// workflow engine the workspace service hosts). Errors: ErrNotFound (as a
// *RunNotFoundError) for an unknown run or workflow; ErrInvalid for a
// workflow that does not check, or a step the run's status forbids (retry
// a completed run, replay a running one); ErrConflict (a *KeyReusedError)
// for a start key used for another request; ErrDirty for an isolated
// workflow started with uncommitted changes in the working tree (the
// message names them).
type WorkflowRuns interface {
	Workflows(ctx context.Context) ([]WorkflowInfo, error)
	Workflow(ctx context.Context, name string) (WorkflowInfo, error)
	// StartRun starts a run and returns it as created; with a key, a
	// second start returns the first run.
	StartRun(ctx context.Context, req RunRequest) (RunInfo, error)
	Runs(ctx context.Context) ([]RunInfo, error)
	// Run returns a run with its events.
	Run(ctx context.Context, id string) (RunInfo, error)
	// WaitRun waits until the run finishes or ctx is done.
	WaitRun(ctx context.Context, id string) (RunInfo, error)
	CancelRun(ctx context.Context, id string) (RunInfo, error)
	RetryRun(ctx context.Context, id string) (RunInfo, error)
	ReplayRun(ctx context.Context, id string, live bool) (ReplayReport, error)
	// PruneRuns replaces the logs of runs finished more than olderThan
	// ago by summaries, and returns their IDs.
	PruneRuns(ctx context.Context, olderThan time.Duration) ([]string, error)
	DeadLetters(ctx context.Context) ([]RunInfo, error)
	// AcceptRun takes a finished isolated run's work: the branch the run
	// was made from (RunInfo.BaseBranch) is fast-forwarded to the run's
	// branch tip — the working tree and index following, as in Switch,
	// when it is checked out — and the run's worktree and branch are
	// removed (RUN_ACCEPTED). Accepting again returns the run. Errors:
	// ErrConflict as a *BranchMovedError when that branch is no longer at
	// RunInfo.Base; ErrInvalid for a run that is not isolated, has not
	// finished, or was discarded; ErrDirty when uncommitted changes would
	// be overwritten.
	AcceptRun(ctx context.Context, id string) (RunInfo, error)
	// DiscardRun removes a finished isolated run's worktree and deletes
	// its branch (RUN_DISCARDED); discarding again returns the run.
	// ErrInvalid for a run that is not isolated or is still running
	// (cancel it first).
	DiscardRun(ctx context.Context, id string) (RunInfo, error)
	// RunFile returns the file name a stage stored beside event seq of
	// run id (StageResponse.Files: a goal's report.md and
	// trace/NNNN.json). Errors: *RunNotFoundError for no such run;
	// ErrNotFound when the run has no event seq or the event no such
	// file; ErrInvalid for a name that is not a stage file's.
	RunFile(ctx context.Context, id string, seq int, name string) ([]byte, error)
}

// Subscriber delivers the workspace's events.
type Subscriber interface {
	// Subscribe delivers an Event for every change of the workspace —
	// writes through any client, and changes made outside lunad (a saved
	// file, git commit/checkout/reset) — until ctx is done. Events of a
	// burst are coalesced; a slow subscriber gets a "resync" event rather
	// than blocking the workspace.
	Subscribe(ctx context.Context) (<-chan Event, error)
}

// Event says what changed in a workspace.
type Event struct {
	// Kind: "changed" (artifacts' content or metadata: IDs lists them),
	// "created", "archived", "moved", "removed", "branch" (HEAD moved to another
	// branch or commit: anything may have changed), or "resync" (events
	// were dropped, or the daemon was reached again: re-read what you show).
	Kind string `json:"kind"`
	// IDs are the artifacts concerned; empty for "branch" and "resync".
	IDs []string `json:"ids,omitempty"`
	// Commit is HEAD after the change, when known.
	Commit string `json:"commit,omitempty"`
}

// EditRequest is one edit of an artifact. Exactly one of Blocks,
// BlocksText, Patch or Content (with Rewrite) is used.
type EditRequest struct {
	ID         string
	Blocks     []Block // structured SEARCH/REPLACE pairs
	BlocksText string  // Aider-style fenced SEARCH/REPLACE text
	Patch      string  // a unified diff
	Content    []byte  // whole new content, with Rewrite
	Rewrite    bool
	Change
}

// Block is one SEARCH/REPLACE pair; Path, when set, names the file it was
// written for (it must be the edited artifact's).
type Block struct {
	Path    string `json:"path,omitempty"`
	Search  string `json:"search"`
	Replace string `json:"replace"`
}

// EditResult is a committed edit and where each block matched.
type EditResult struct {
	Result
	Matches []Match `json:"matches"`
}

// Match says where a block or hunk matched, and how: Tier is exact,
// trailing-whitespace, indentation, blank-lines, elision, fuzzy, patch or
// rewrite.
type Match struct {
	Block     int    `json:"block"` // 0-based index of the block or hunk
	Tier      string `json:"tier"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

// Point is what is at a byte offset of an artifact.
type Point struct {
	Artifact Artifact `json:"artifact"`
	// Ref is the reference written at the offset, resolved and evaluated
	// (nil if there is none).
	Ref *Reference `json:"ref,omitempty"`
	// Symbol is the innermost definition containing the offset, and
	// Dependents the references of other artifacts to it; both are left
	// empty when Ref is set (ask At at Ref.To's span for its dependents).
	Symbol     *Symbol     `json:"symbol,omitempty"`
	Dependents []Reference `json:"dependents,omitempty"`
}

// SymbolHit is a definition found by SearchSymbols.
type SymbolHit struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Symbol Symbol `json:"symbol"`
}

// RefReport is an artifact's references: outgoing (written in it) and
// incoming (written in others and pointing at it).
type RefReport struct {
	Artifact Artifact    `json:"artifact"`
	Outgoing []Reference `json:"outgoing"`
	Incoming []Reference `json:"incoming"`
}
