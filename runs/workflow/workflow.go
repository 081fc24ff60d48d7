package workflow

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"time"
)

// End is the pseudo-stage a transition names to finish the run.
const End = "end"

// The defaults of a stage that does not say.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultMaxAttempts = 1 // no retry
	DefaultInitial     = 100 * time.Millisecond
	DefaultMax         = 5 * time.Second
)

// Workflow is one parsed and checked workflow definition.
type Workflow struct {
	Name    string
	Version string // the file's `version` field (may be empty)
	Start   string
	// Stages by name; Order lists their names in the order the file
	// defines them.
	Stages map[string]*Stage
	Order  []string
	// Isolated (`isolated = true`): each run works on a branch of its own,
	// luna/NAME/RUN-ID, made from the current branch's tip when the run
	// is created and checked out in a worktree of its own; the run's
	// writes are commits there, and the branch it was made from changes
	// only when the run is accepted.
	Isolated bool
	// File is the name the definition was parsed under (its path when
	// loaded from disk); Blob is the git blob hash of its bytes.
	File string
	Blob string
}

// Stage is one state of a workflow: the agent that processes it and the
// transitions the engine evaluates once it succeeds.
type Stage struct {
	Name string
	// Exactly one of Command (a process agent: argv) and Agent (a built-in
	// agent by name) is set.
	Command []string
	Agent   string
	Params  map[string]string
	Timeout time.Duration
	Retry   Retry
	Next    []Transition
	// Unsandboxed (`sandbox = false`): a `lunad worker` runs the command
	// as a plain process instead of in the sandbox goals' commands run
	// in. The workflow file says so, never the stage message.
	Unsandboxed bool
}

// Retry is a stage's retry policy for transient failures: up to
// MaxAttempts attempts in all, waiting before attempt n+1 a random time
// between 0 and min(Max, Initial·2^(n-1)) (exponential backoff with full
// jitter).
type Retry struct {
	MaxAttempts int
	Initial     time.Duration
	Max         time.Duration
}

// Delay is the wait before the attempt after attempt (1-based), given u, a
// uniform random number in [0, 1) that the caller draws (and records, so
// a replay waits the same).
func (r Retry) Delay(attempt int, u float64) time.Duration {
	ceiling := r.Max
	if attempt < 1 {
		attempt = 1
	}
	if attempt <= 62 {
		if d := r.Initial << (attempt - 1); d > 0 && d>>(attempt-1) == r.Initial && d < ceiling {
			ceiling = d
		}
	}
	if u < 0 || u >= 1 {
		u = 0
	}
	return time.Duration(u * float64(ceiling))
}

// Transition is one branch out of a stage: to To when When (a CEL
// expression) is true, or always when When is empty (the default branch).
// Status, only on a transition to End, is the outcome the run ends with
// (its status instead of "completed").
type Transition struct {
	To     string
	When   string
	Status string
	prog   program
}

// VersionID is the workflow version recorded on every event of a run:
// "VERSION@BLOB", or just BLOB when the file has no version field.
func (w *Workflow) VersionID() string {
	if w.Version == "" {
		return w.Blob
	}
	return w.Version + "@" + w.Blob
}

// BlobHash is git's object ID for a blob holding data (what `git
// hash-object` prints), so versions need no git at hand.
func BlobHash(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
