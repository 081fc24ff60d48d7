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
	// IdempotencyKey: a write whose key was already used returns that
	// write's result and commits nothing.
	IdempotencyKey string
	// BaseVersion, when > 0, is the version the change was computed
	// against; if the artifact moved on, the write fails with ErrConflict.
	BaseVersion int
	// Extra trailers (Luna-<key>: value), e.g. {"Match": "exact"}.
	Extra map[string]string
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
	// Replayed is true when an idempotency key matched an earlier edit: the
	// result is that edit's and nothing was committed.
	Replayed bool `json:"replayed,omitempty"`
}
