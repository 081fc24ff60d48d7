package lunad

import "time"

// Status is an artifact's lifecycle state.
type Status string

const (
	StatusActive   Status = "active"
	StatusDraft    Status = "draft"
	StatusArchived Status = "archived"
	// StatusRemoved marks an artifact whose file was deleted (OpRemove):
	// its metadata stays as a tombstone so that its ID, history and undo
	// keep working, but it is not listed and its path is free.
	StatusRemoved Status = "removed"
)

// Valid reports whether s is one of the statuses an artifact may be
// created with or set to; StatusRemoved is reached only by a removal.
func (s Status) Valid() bool {
	return s == StatusActive || s == StatusDraft || s == StatusArchived
}

// Op names the operation a commit performed on an artifact. It is recorded
// in the Luna-Op trailer.
type Op string

const (
	OpAdopt   Op = "adopt"   // an existing file became an artifact when the repo was adopted
	OpCreate  Op = "create"  // a new artifact
	OpEdit    Op = "edit"    // content changed by an agent or a person through lunad
	OpHuman   Op = "human"   // changes found in the working tree, committed before an agent edit
	OpMove    Op = "move"    // the artifact's path changed
	OpArchive Op = "archive" // status set to archived
	OpRemove  Op = "remove"  // the file was deleted; the metadata stays, status removed
	OpLink    Op = "link"    // an explicit link was added
	OpUndo    Op = "undo"    // the most recent applied change was reverted
	OpRedo    Op = "redo"    // the most recent undo was reverted
	OpRestore Op = "restore" // the state of an earlier version was restored
	OpAck     Op = "ack"     // a reference was acknowledged as still right, without changing content
)

// Link is an explicit, typed reference from one artifact to another.
type Link struct {
	To   string `json:"to"`
	Kind string `json:"kind"`
}

// Artifact is one tracked text file and its metadata. ID is stable across
// renames. Version, Commit and Modified come from history.
type Artifact struct {
	ID       string    `json:"id"`
	Path     string    `json:"path"`
	Type     string    `json:"type"`
	Title    string    `json:"title"`
	Status   Status    `json:"status"`
	Links    []Link    `json:"links,omitempty"`
	Version  int       `json:"version"`
	Commit   string    `json:"commit"`
	Modified time.Time `json:"modified"`
}

// Version is one entry of an artifact's history: the commit that produced
// version Number of artifact Artifact.
type Version struct {
	Artifact       string            `json:"artifact"`
	Number         int               `json:"version"`
	Commit         string            `json:"commit"`
	Op             Op                `json:"op"`
	Agent          string            `json:"agent"`
	Message        string            `json:"message"`
	Time           time.Time         `json:"time"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	Extra          map[string]string `json:"extra,omitempty"` // other Luna-* trailers, e.g. Luna-Match
}

// Branch is a git branch of the workspace.
type Branch struct {
	Name    string `json:"name"`
	Commit  string `json:"commit"`
	Current bool   `json:"current"`
}
