package main

import (
	"errors"
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
)

// Exit codes. Scripts depend on them; see docs/cli.md.
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitConflict   = 3
	exitNotApplied = 4
	exitNotFound   = 5
	exitStale      = 6 // `stale --check` found stale or broken references
)

// UsageError is a bad command line: an unknown command or flag, a missing
// or extra argument, a malformed value. It exits with code 2.
type UsageError struct {
	msg  string
	hint string // printed on its own line after the message, if set
}

func (e *UsageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) *UsageError {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// errHelpShown reports that a command printed its help on request.
var errHelpShown = errors.New("help shown")

// ExitCode maps an error to the process exit code. It is the only place
// that does: every other layer returns lunad's sentinel errors.
func ExitCode(err error) int {
	var u *UsageError
	var st *staleError
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return exitOK
	case errors.As(err, &u):
		return exitUsage
	case errors.Is(err, lunad.ErrConflict):
		return exitConflict
	case errors.Is(err, lunad.ErrNotApplied):
		return exitNotApplied
	case errors.Is(err, lunad.ErrNotFound):
		return exitNotFound
	case errors.As(err, &st):
		return exitStale
	default:
		// ErrInvalid, ErrLocked, ErrDirty, ErrNotWorkspace, ErrExists and
		// everything else: the message says what to do.
		return exitError
	}
}

// cliHint names the command that shows what a NotFoundError could not
// find.
func cliHint(nf *lunad.NotFoundError) string {
	switch nf.Kind {
	case "version":
		return "see `lunad log " + nf.Artifact + "`"
	case "branch":
		return "see `lunad branches`"
	case "symbol reference":
		return "see `lunad refs " + nf.Artifact + "`"
	}
	return "see `lunad list`"
}

// withHints words err's message for a person at the command line: a typed
// error the core returned gets the command that helps, and a SEARCH that
// was not found loses its closest lines, which reportError shows in its
// own form.
func withHints(err error) string {
	var (
		nf *lunad.NotFoundError
		nm *editor.NoMatchError
	)
	switch {
	case errors.As(err, &nf):
		return lunad.Reword(err, nf, nf.Message(cliHint(nf)))
	case errors.As(err, &nm) && len(nm.Hints) > 0:
		return lunad.Reword(err, nm, nm.Summary())
	}
	return err.Error()
}
