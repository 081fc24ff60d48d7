package daemon

import (
	"context"

	"github.com/lunad/lunad"
)

// Workspace is what every adapter (the CLI, the language server, the MCP
// server) uses: the Service in-process, or a Client of the workspace's
// daemon. Both implement it with the same error contract: lunad's sentinel
// errors, wrapped with what to do (a Client carries them across the socket).
type Workspace interface {
	// Root is the workspace's root directory.
	Root() string

	List(ctx context.Context) ([]lunad.Artifact, error)
	Artifact(ctx context.Context, ref string) (lunad.Artifact, error)
	Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error)
	History(ctx context.Context, ref string) ([]lunad.Version, error)
	Diff(ctx context.Context, id string, from, to int) (string, error)

	Create(ctx context.Context, spec lunad.CreateSpec) (lunad.Result, error)
	Edit(ctx context.Context, req EditRequest) (EditResult, error)
	Undo(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, error)
	Redo(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, error)
	Restore(ctx context.Context, ref string, n int, ch lunad.Change) (lunad.Result, error)
	Move(ctx context.Context, ref, path string, ch lunad.Change) (lunad.Result, error)
	Archive(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, error)
	Link(ctx context.Context, src, dst, kind string, ch lunad.Change) (lunad.Result, error)
	Ack(ctx context.Context, ref, symbol string, ch lunad.Change) (lunad.Result, error)

	Branch(ctx context.Context, name, from string) (lunad.Branch, error)
	Switch(ctx context.Context, name string) (lunad.Branch, error)
	Branches(ctx context.Context) ([]lunad.Branch, error)

	Symbols(ctx context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error)
	Refs(ctx context.Context, ref string) (RefReport, error)
	// Outgoing is Refs' outgoing half alone: what diagnostics need, without
	// evaluating the rest of the workspace's references to the artifact.
	Outgoing(ctx context.Context, ref string) ([]lunad.Reference, error)
	Stale(ctx context.Context) ([]lunad.Reference, error)
	// At tells what is at a byte offset of an artifact: the reference
	// written there and what it resolves to, and the definition there with
	// the references to it (see Point).
	At(ctx context.Context, ref string, offset int) (Point, error)
	// SearchSymbols finds definitions across the workspace whose name
	// contains query (case-insensitive), at most limit of them, best first.
	SearchSymbols(ctx context.Context, query string, limit int) ([]SymbolHit, error)

	// Subscribe delivers an Event for every change of the workspace —
	// writes through any client, and changes made outside lunad (a saved
	// file, git commit/checkout/reset) — until ctx is done. Events of a
	// burst are coalesced; a slow subscriber gets a "resync" event rather
	// than blocking the workspace.
	Subscribe(ctx context.Context) (<-chan Event, error)

	Close() error
}

// Event says what changed in a workspace.
type Event struct {
	// Kind: "changed" (artifacts' content or metadata: IDs lists them),
	// "created", "archived", "moved", "branch" (HEAD moved to another
	// branch or commit: anything may have changed), or "resync" (events
	// were dropped for a slow subscriber: re-read what you show).
	Kind string `json:"kind"`
	// IDs are the artifacts concerned; empty for "branch" and "resync".
	IDs []string `json:"ids,omitempty"`
	// Commit is HEAD after the change, when known.
	Commit string `json:"commit,omitempty"`
}

// Point is what is at one place of an artifact.
type Point struct {
	Artifact lunad.Artifact `json:"artifact"`
	// Ref is the reference written at the offset, resolved and evaluated
	// (nil if there is none).
	Ref *lunad.Reference `json:"ref,omitempty"`
	// Symbol is the innermost definition containing the offset, and
	// Dependents the references of other artifacts to it; both are left
	// empty when Ref is set (ask At at Ref.To's span for its dependents).
	Symbol     *lunad.Symbol     `json:"symbol,omitempty"`
	Dependents []lunad.Reference `json:"dependents,omitempty"`
}

// SymbolHit is a definition found by SearchSymbols.
type SymbolHit struct {
	ID     string       `json:"id"`
	Path   string       `json:"path"`
	Symbol lunad.Symbol `json:"symbol"`
}

var _ Workspace = (*Service)(nil)
