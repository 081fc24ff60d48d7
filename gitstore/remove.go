package gitstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

// Remove deletes an artifact's file in one commit (operation remove). Its
// metadata stays, with status removed, as a tombstone: the ID still
// resolves, History lists the removal, and Undo brings the file and the
// metadata back as a new version (when the path is still free). A removed
// artifact is not listed, and its path is free for a new artifact. Changes
// a person left in the file are committed first as a human version, so
// that an undo brings them back too; a file already deleted in the working
// tree, or by a commit made outside lunad, is recorded as removed.
// Errors: ErrNotFound for an unknown artifact, ErrInvalid for one already
// removed, ErrConflict for a base version that moved on.
func (s *Store) Remove(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, error) {
	if err := validateChange(ch); err != nil {
		return lunad.Result{}, err
	}
	w := newWrite(lunad.OpRemove, ch)
	return s.submit(ctx, func(t *txn) (lunad.Result, error) {
		id, m, err := t.resolve(ref)
		if err != nil {
			return lunad.Result{}, err
		}
		if r, ok, err := t.replay(w, id); ok || err != nil {
			return r, err
		}
		if m.Status == lunad.StatusRemoved {
			return lunad.Result{}, fmt.Errorf("%w: artifact %s (%s) is already removed", lunad.ErrInvalid, id, m.Path)
		}
		if err := t.checkWorkPath(m.Path); err != nil {
			return lunad.Result{}, err
		}
		if err := t.commitHumanChanges(id, m); err != nil && !isGone(err) {
			return lunad.Result{}, err
		}
		if err := t.checkBase(id, w.ch.BaseVersion); err != nil {
			return lunad.Result{}, err
		}
		changes, err := t.removal(m)
		if err != nil {
			return lunad.Result{}, err
		}
		return t.commitOp(id, w, "remove "+m.Path, w.ch.Extra, 0, changes)
	})
}

// removal stages the removal of an artifact whose metadata is m: its
// metadata with status removed, its file deleted (if HEAD has it).
func (t *txn) removal(m meta) (map[string]fileChange, error) {
	next := m
	next.Status = lunad.StatusRemoved
	changes, err := t.stage(&m, nil, next)
	if err != nil {
		return nil, err
	}
	if _, err := t.s.lookup(t.root, m.Path); err == nil {
		changes[m.Path] = fileChange{del: true}
	}
	return changes, nil
}

// goneError is an artifact's file missing from HEAD's tree (deleted by a
// commit made outside lunad) or from the working tree, while its metadata
// says it is there: a removal that lunad has not recorded.
type goneError struct{ err error }

func (e *goneError) Error() string { return e.err.Error() }
func (e *goneError) Unwrap() error { return e.err }

func isGone(err error) bool {
	var g *goneError
	return errors.As(err, &g)
}

// removedError is what reading the content of a removed artifact answers:
// recorded at version (0: deleted outside lunad, not recorded yet).
func removedError(m meta, version int) error {
	if version > 0 && m.Status == lunad.StatusRemoved {
		return fmt.Errorf("%w: artifact %s (%s) was removed at v%d; `lunad undo %s` brings it back", lunad.ErrNotFound, m.ID, m.Path, version, m.ID)
	}
	return fmt.Errorf("%w: the file %s of artifact %s was deleted outside lunad; `lunad rm %s` records the removal, then `lunad undo %s` brings it back", lunad.ErrNotFound, m.Path, m.ID, m.ID, m.ID)
}

// removed reports whether artifact m is removed in the tree root: recorded
// so, or its file deleted by a commit made outside lunad.
func (s *Store) removed(root plumbing.Hash, m meta) bool {
	if m.Status == lunad.StatusRemoved {
		return true
	}
	_, err := s.lookup(root, m.Path)
	return errors.Is(err, lunad.ErrNotFound)
}
