package lunad

import "strings"

// The vocabulary of writes: what a caller says about a write, and what a
// write returns. gitstore performs them; the daemon and the adapters pass
// them on.

// Change carries the provenance of a write.
type Change struct {
	// Agent is the acting agent or person; "" means the workspace's human.
	Agent string
	// Message says why; lunad writes the subject line and trailers itself.
	Message string
	// IdempotencyKey makes a retry safe: a write that repeats the request
	// a key was first used for (same operation, artifact, agent, base
	// version, input, message and extra trailers) returns that write's
	// result, marked Replayed, and commits nothing; any other write with
	// the key fails with ErrConflict.
	IdempotencyKey string
	// BaseVersion, when > 0, is the version the change was computed
	// against; if the artifact moved on, the write fails with ErrConflict.
	BaseVersion int
	// Extra trailers (Luna-<key>: value) of the caller's own, e.g.
	// {"Review": "manual"}. The names lunad writes itself (ReservedTrailer:
	// Op, Artifact, Version, Agent, Idempotency-Key, Request,
	// Target-Version, Match, Also, in any letter case) are refused with
	// ErrInvalid.
	Extra map[string]string
	// Input is what an edit applies, in a canonical encoding (the daemon's
	// Service sets it from the edit's blocks, patch or content), so that an
	// idempotency key replays only the same edit. gitstore's other writes
	// know their input from their arguments and ignore it; its Edit
	// requires it with an idempotency key. It is not a trailer and is not
	// sent over the daemon's socket (the Service sets it there).
	Input []byte
}

// CreateSpec describes a new artifact.
type CreateSpec struct {
	Title   string
	Type    string // "" infers it from Path
	Path    string // "" derives it from Title and Type
	Status  Status // "" means active
	Content []byte
	Change
}

// Result is what a write returns.
type Result struct {
	Artifact Artifact `json:"artifact"`
	Version  Version  `json:"version"`
	// Warning is set when the write was committed but the working tree
	// could not follow (a full disk, a directory made read-only): the write
	// is done — retrying it would make a second change — and lunad brings
	// the file up to date once it can. It says what failed.
	Warning string `json:"warning,omitempty"`
	// Replayed is true when an idempotency key matched an earlier edit: the
	// result is that edit's and nothing was committed.
	Replayed bool `json:"replayed,omitempty"`
}

// Ref names the version the write made (or, replayed, found).
func (r Result) Ref() ArtifactRef {
	return ArtifactRef{ID: r.Artifact.ID, Path: r.Artifact.Path, Version: r.Version.Number, Commit: r.Version.Commit}
}

// The requests of the writes that take more than a Change: one struct per
// operation (CreateSpec and EditRequest above are Create's and Edit's), so
// that an operation is one type that every Workspace and adapter shares.

// RefRequest is an undo, a redo, an archive or a removal of artifact Ref
// (an ID or a path).
type RefRequest struct {
	Ref string
	Change
}

// RestoreRequest brings back the state of artifact Ref's version Version
// as a new version.
type RestoreRequest struct {
	Ref     string
	Version int
	Change
}

// MoveRequest moves artifact Ref's file to Path; its ID stays.
type MoveRequest struct {
	Ref  string
	Path string
	Change
}

// LinkRequest records a link of kind Kind ("" means references) from
// artifact Src to artifact Dst.
type LinkRequest struct {
	Src  string
	Dst  string
	Kind string
	Change
}

// AckRequest records that artifact Ref's references — all of them, or only
// those to Symbol when it is set — were reviewed and are still right.
type AckRequest struct {
	Ref    string
	Symbol string
	Change
}

// BranchRequest creates branch Name at From (a branch name or a commit;
// "" means HEAD) without switching to it.
type BranchRequest struct {
	Name string
	From string
}

// reservedTrailers are the Luna-<name> trailers lunad writes on its
// commits itself, keyed in lower case because git compares trailer names
// case-insensitively: a caller's Change.Extra may not name them, since a
// second Luna-Op or a forged Luna-Agent would make history report false
// provenance. Match is written from the trailers an Edit's function
// returns (the daemon's match tiers), never from Change.Extra; Symbol is
// Ack's own and checked there.
var reservedTrailers = map[string]struct{ name, what string }{
	"artifact":        {"Artifact", "the artifact's ID"},
	"op":              {"Op", "the operation"},
	"version":         {"Version", "the artifact's version number"},
	"agent":           {"Agent", "the acting agent; pass it as the change's agent"},
	"idempotency-key": {"Idempotency-Key", "pass it as the change's idempotency key"},
	"request":         {"Request", "the digest of an idempotency key's request"},
	"target-version":  {"Target-Version", "the version undo, redo or restore brought back"},
	"match":           {"Match", "how an edit's blocks matched"},
	"also":            {"Also", "the other artifacts a commit wrote"},
}

// ReservedTrailer reports whether Luna-<name> is a trailer lunad writes
// itself (in any letter case), with its canonical name and what it holds.
func ReservedTrailer(name string) (canonical, what string, reserved bool) {
	t, ok := reservedTrailers[strings.ToLower(name)]
	return t.name, t.what, ok
}
