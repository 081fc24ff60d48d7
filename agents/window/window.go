package window

import (
	"context"

	"github.com/lunad/lunad"
)

// Source is what compilation reads: the workspace service implements it
// (lunad.Reader and lunad.Referencer), and so does the tools' staged
// overlay. Errors: Read returns an error wrapping lunad.ErrNotFound for an
// unknown artifact; Symbols one wrapping lunad.ErrInvalid for an artifact
// that is not indexed (binary, too large) — Compile then leaves its
// outline out rather than failing.
type Source interface {
	List(ctx context.Context) ([]lunad.Artifact, error)
	Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error)
	Outgoing(ctx context.Context, ref string) ([]lunad.Reference, error)
	Symbols(ctx context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error)
}

// Modes of a block.
const (
	ModeWrite = "active_write" // the active artifact, which the worker may edit
	ModeRead  = "read_only"
)

// Forms of a block.
const (
	FormFull    = "full"
	FormOutline = "outline" // the first line of each symbol (definition or heading)
	FormWindow  = "window"  // a range of lines of an active artifact too large for the budget
)

// Input says what to compile.
type Input struct {
	// Active is the artifact being worked on (an ID or a path); "" for none.
	Active string
	// Mode is the active artifact's mode: ModeWrite or ModeRead ("" is
	// ModeRead: the reviewer, or the writer reading code).
	Mode string
	// Deps are extra read-only artifacts (the route's read_deps), shown
	// before the active artifact's links and referenced artifacts.
	Deps []string
	// Budget is the tokens the whole compiled text may take (> 0).
	Budget int
	// Focus is the 1-based line a window of a too-large active artifact is
	// centred on (the line being edited); 0 centres on line 1.
	Focus int
}

// Block is one artifact block of the compiled text.
type Block struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Mode   string `json:"mode"`
	Form   string `json:"form"`
	Tokens int    `json:"tokens"`
	Lines  int    `json:"lines"`          // lines of the artifact
	From   int    `json:"from,omitempty"` // FormWindow: first and last line shown (1-based)
	To     int    `json:"to,omitempty"`
}

// Context is a compiled context.
type Context struct {
	// Text is the preamble, the index, the dependencies, the active
	// artifact and the note on what was left out. Deterministic.
	Text string
	// Tokens is the sum of the counts of Text's pieces (see the package
	// doc); it never exceeds Budget.
	Tokens    int
	Budget    int
	Tokenizer string
	// Included are the artifact blocks, in text order.
	Included []Block
	// Indexed is how many index lines Text holds, of IndexTotal candidates.
	Indexed, IndexTotal int
	// Omitted are the IDs of the artifacts that appear neither as a block
	// nor as an index line: dependencies that did not fit first, then the
	// index lines cut, in index order. The note in Text says so.
	Omitted []string
}
