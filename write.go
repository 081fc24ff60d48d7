package lunad

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
	// {"Review": "manual"}. The names lunad writes itself (Op, Artifact,
	// Version, Agent, Idempotency-Key, Request, Target-Version, Match, in
	// any letter case) are refused with ErrInvalid.
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
