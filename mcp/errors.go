package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
)

// explain turns a Workspace error into the text of a tool error result
// (the SDK sets isError for an error a tool handler returns): the
// Workspace's message, which already says what to do (the closest lines for
// a SEARCH that does not match, the current version for a conflict),
// prefixed with what a model should do next.
func (s *Server) explain(_ context.Context, err error) error {
	var nm *editor.NoMatchError
	switch {
	case errors.As(err, &nm) && len(nm.Hints) > 0:
		first, last := nm.Hints[0].Line, nm.Hints[len(nm.Hints)-1].Line
		lines := fmt.Sprintf("line %d", first)
		if last != first {
			lines = fmt.Sprintf("lines %d-%d", first, last)
		}
		return fmt.Errorf("edit not applied, nothing was written: did you mean %s? Copy SEARCH exactly from those lines (or call read_artifact) and call edit_artifact again. %w", lines, err)
	case errors.Is(err, editor.ErrAmbiguous):
		return fmt.Errorf("edit not applied, nothing was written: add lines around SEARCH so that it matches one place only. %w", err)
	case errors.Is(err, editor.ErrAlreadyApplied):
		return fmt.Errorf("edit not applied, nothing was written: the change is already in the artifact; read_artifact to check it, there is nothing to redo. %w", err)
	case errors.Is(err, lunad.ErrNotApplied):
		return fmt.Errorf("not applied, nothing was written: %w. If the artifact already is as you want it, there is nothing to do; otherwise call read_artifact and base the change on what it shows", err)
	case errors.Is(err, lunad.ErrConflict):
		return fmt.Errorf("conflict, nothing was written: call read_artifact for the current version, redo the change against it and pass that version as base_version. %w", err)
	case errors.Is(err, lunad.ErrNotFound):
		return fmt.Errorf("%w; call list_artifacts for the ids and paths of the workspace's artifacts (and artifact_history for an artifact's versions)", err)
	case errors.Is(err, lunad.ErrExists):
		return fmt.Errorf("%w; choose another path, or edit the existing artifact with edit_artifact", err)
	case errors.Is(err, lunad.ErrInvalid):
		return fmt.Errorf("invalid arguments, nothing was written: %w", err)
	}
	return err
}
