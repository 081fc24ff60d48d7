package mcp

import (
	"errors"
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
)

// explain turns a Workspace error into the text of a tool error result
// (the SDK sets isError for an error a tool handler returns): the
// Workspace's message, which already says what to do (the closest lines for
// a SEARCH that does not match, the current version for a conflict),
// prefixed with what a model should do next, and with the tool that shows
// what a typed error could not find.
func (s *Server) explain(err error) error {
	var (
		nm *editor.NoMatchError
		kr *lunad.KeyReusedError
		le *lunad.LinkExistsError
	)
	switch {
	case errors.As(err, &nm) && len(nm.Hints) > 0:
		first, last := nm.Hints[0].Line, nm.Hints[len(nm.Hints)-1].Line
		lines := fmt.Sprintf("line %d", first)
		if last != first {
			lines = fmt.Sprintf("lines %d-%d", first, last)
		}
		err = fmt.Errorf("edit not applied, nothing was written: did you mean %s? %w", lines, err)
	case errors.Is(err, editor.ErrAmbiguous):
		err = fmt.Errorf("edit not applied, nothing was written: add lines around SEARCH so that it matches one place only. %w", err)
	case errors.Is(err, editor.ErrAlreadyApplied):
		err = fmt.Errorf("edit not applied, nothing was written: the change is already in the artifact; read_artifact to check it, there is nothing to redo. %w", err)
	case errors.Is(err, lunad.ErrNotApplied):
		err = fmt.Errorf("not applied, nothing was written: %w. If the artifact already is as you want it, there is nothing to do; otherwise call read_artifact and base the change on what it shows", err)
	case errors.As(err, &kr):
		err = fmt.Errorf("conflict, nothing was written: the idempotency_key belongs to another write; call again with a new idempotency_key. %w", err)
	case errors.Is(err, lunad.ErrConflict):
		err = fmt.Errorf("conflict, nothing was written: call read_artifact for the current version, redo the change against it and pass that version as base_version. %w", err)
	case errors.Is(err, lunad.ErrNotFound):
		err = fmt.Errorf("%w; call list_artifacts for the ids and paths of the workspace's artifacts (and artifact_history for an artifact's versions)", err)
	case errors.As(err, &le):
		err = fmt.Errorf("nothing was written: %w; the link is there already, there is nothing to do", err)
	case errors.Is(err, lunad.ErrExists):
		err = fmt.Errorf("nothing was written: %w; to change the existing artifact, use edit_artifact", err)
	case errors.Is(err, lunad.ErrInvalid):
		err = fmt.Errorf("nothing was written: %w", err)
	}
	return &toolError{msg: withToolHint(err), err: err}
}

// explainRead is explain for the read-only tools, which write nothing to
// begin with.
func (s *Server) explainRead(err error) error {
	if errors.Is(err, lunad.ErrNotFound) {
		return s.explain(err)
	}
	return &toolError{msg: withToolHint(err), err: err}
}

// plural says n things: "1 line", "12 lines".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// toolError is an error whose message speaks of tools, not commands.
type toolError struct {
	msg string
	err error
}

func (e *toolError) Error() string { return e.msg }
func (e *toolError) Unwrap() error { return e.err }

// withToolHint is err's message with a NotFoundError in it worded with
// the tool that shows what it could not find.
func withToolHint(err error) string {
	var nf *lunad.NotFoundError
	if !errors.As(err, &nf) {
		return err.Error()
	}
	hint := "see list_artifacts"
	switch nf.Kind {
	case "version":
		hint = fmt.Sprintf("see artifact_history {\"id\": %q}", nf.Artifact)
	case "symbol reference":
		hint = fmt.Sprintf("see find_references {\"id\": %q}", nf.Artifact)
	case "branch":
		hint = ""
	}
	return lunad.Reword(err, nf, nf.Message(hint))
}
