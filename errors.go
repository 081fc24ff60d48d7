package lunad

import (
	"errors"
	"fmt"
)

// Sentinel errors shared by every package. Callers test them with errors.Is;
// packages wrap them with %w and add what the user should do. Exit codes and
// protocol error codes are derived from them only at the edges (cmd/lunad).
var (
	// ErrNotWorkspace: the directory is not a lunad workspace (run `lunad init`).
	ErrNotWorkspace = errors.New("not a lunad workspace")
	// ErrNotFound: no such artifact, version, commit or branch.
	ErrNotFound = errors.New("not found")
	// ErrExists: the artifact path, ID or branch already exists.
	ErrExists = errors.New("already exists")
	// ErrInvalid: bad input (a path, a name, content, a flag value).
	ErrInvalid = errors.New("invalid input")
	// ErrConflict: the base version of an edit is not the artifact's current version,
	// or a ref moved underneath a commit.
	ErrConflict = errors.New("conflict")
	// ErrNotApplied: an edit could not be applied (no match, ambiguous match, already applied).
	ErrNotApplied = errors.New("edit did not apply")
	// ErrLocked: another lunad writer holds the workspace lock.
	ErrLocked = errors.New("workspace is locked by another writer")
	// ErrDirty: the working tree has changes that lunad will not overwrite.
	ErrDirty = errors.New("uncommitted changes in the working tree")
	// ErrInterrupted: the connection to the daemon broke while it handled a
	// write without an idempotency key, so whether it was committed is
	// unknown: look at the history before writing again (a write with an
	// idempotency key is retried safely instead).
	ErrInterrupted = errors.New("interrupted")
)

// ErrUnmerged: an artifact's file is in conflict in git's index (a merge,
// rebase, cherry-pick or `git stash pop` stopped on it). lunad never
// records such a file: its content has conflict markers the person has yet
// to resolve. It wraps ErrDirty.
var ErrUnmerged = fmt.Errorf("%w (in conflict)", ErrDirty)
