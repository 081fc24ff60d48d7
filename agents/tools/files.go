package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/lunad/lunad"
)

// Files is a Source that can tell whether a path of the workspace holds a
// file that is not an artifact — one git tracks, or an untracked one:
// create_artifact refuses to create over it, which would make someone
// else's file (a workflow, SECURITY.md) the stage's. The error is the
// look-up's, not "no file".
type Files interface {
	FileAt(ctx context.Context, path string) (bool, error)
}

// FileAt tells whether a file is at p in src's workspace: through Files,
// else in the directory of a Source with a Root (lunad.Reader's);
// ErrInvalid for a Source with neither — the overlay cannot tell, and
// refuses to create.
func FileAt(ctx context.Context, src any, p string) (bool, error) {
	switch s := src.(type) {
	case Files:
		return s.FileAt(ctx, p)
	case interface{ Root() string }:
		_, err := os.Lstat(filepath.Join(s.Root(), filepath.FromSlash(p)))
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return false, nil
		}
		return false, err
	}
	return false, fmt.Errorf("%w: the workspace cannot say which files it holds, so no artifact is created", lunad.ErrInvalid)
}

// noFileAt refuses a new artifact at p where a file already is.
func (o *Overlay) noFileAt(ctx context.Context, p string) error {
	exists, err := FileAt(ctx, o.src, p)
	switch {
	case err != nil:
		return err
	case exists:
		return fmt.Errorf("%w: %s is a file of the workspace that is not an artifact: creating over it would replace it; choose another path, or ask the user to make it an artifact", lunad.ErrExists, p)
	}
	return nil
}
