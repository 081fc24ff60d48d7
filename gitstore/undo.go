package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

// Undo reverts the most recent change to an artifact that is not undone
// yet, as a new commit; repeated undos walk further back. Acks (see Ack)
// change nothing and are no changes here: an undo after an ack undoes the
// change before it, an ack itself cannot be undone, and an ack does not
// clear what can be redone. Returns ErrInvalid when there is nothing to
// undo.
func (s *Store) Undo(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, error) {
	return s.revert(ctx, ref, ch, lunad.OpUndo)
}

// Redo reverts the most recent undo (an undo of an undo), across sessions:
// the stack is derived from history. Returns ErrInvalid when there is
// nothing to redo.
func (s *Store) Redo(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, error) {
	return s.revert(ctx, ref, ch, lunad.OpRedo)
}

// Restore brings back the state (content and metadata) of version n as a
// new version. Returns ErrNotFound for an unknown version.
func (s *Store) Restore(ctx context.Context, ref string, n int, ch lunad.Change) (lunad.Result, error) {
	if err := validateChange(ch); err != nil {
		return lunad.Result{}, err
	}
	return s.submit(ctx, func(t *txn) (lunad.Result, error) {
		return t.restoreTo(ref, newWrite(lunad.OpRestore, ch, []byte(strconv.Itoa(n))), func(id string) (int, error) {
			if t.s.versionEntry(id, n) == nil {
				return 0, fmt.Errorf("%w: artifact %s has no version %d", lunad.ErrNotFound, id, n)
			}
			return n, nil
		})
	})
}

func (s *Store) revert(ctx context.Context, ref string, ch lunad.Change, op lunad.Op) (lunad.Result, error) {
	if err := validateChange(ch); err != nil {
		return lunad.Result{}, err
	}
	return s.submit(ctx, func(t *txn) (lunad.Result, error) {
		return t.restoreTo(ref, newWrite(op, ch), func(id string) (int, error) {
			applied, redo := t.s.undoStacks(id)
			if op == lunad.OpUndo {
				if len(applied) < 2 {
					return 0, fmt.Errorf("%w: nothing to undo for %s: it is at its first state (archive it to retire it; acknowledgements are not undone)", lunad.ErrInvalid, id)
				}
				return applied[len(applied)-1] - 1, nil
			}
			if len(redo) == 0 {
				return 0, fmt.Errorf("%w: nothing to redo for %s", lunad.ErrInvalid, id)
			}
			return redo[len(redo)-1], nil
		})
	})
}

// undoStacks replays an artifact's history: versions applied (whose undo
// is possible) and versions undone (whose redo is possible). Acks leave
// both stacks as they are: they change no content.
func (s *Store) undoStacks(id string) (applied, redo []int) {
	for _, e := range s.versionsOf(id) {
		v := e.version(id)
		switch v.Op {
		case lunad.OpAck:
			// Not a change: neither undoable nor a reason to drop the redos.
		case lunad.OpUndo:
			if len(applied) > 0 {
				redo = append(redo, applied[len(applied)-1])
				applied = applied[:len(applied)-1]
			}
		case lunad.OpRedo:
			if len(redo) > 0 {
				applied = append(applied, redo[len(redo)-1])
				redo = redo[:len(redo)-1]
			}
		default:
			applied = append(applied, v.Number)
			redo = nil
		}
	}
	return applied, redo
}

// restoreTo commits the state of the version pick returns.
func (t *txn) restoreTo(ref string, w *write, pick func(id string) (int, error)) (lunad.Result, error) {
	op := w.op
	id, m, replayed, err := t.begin(ref, w)
	if err != nil || replayed != nil {
		return deref(replayed), err
	}
	n, err := pick(id)
	if err != nil {
		return lunad.Result{}, err
	}
	e := t.s.versionEntry(id, n)
	if e == nil {
		return lunad.Result{}, fmt.Errorf("%w: artifact %s has no version %d in this branch's history", lunad.ErrNotFound, id, n)
	}
	root, err := t.s.treeOf(plumbing.NewHash(e.Commit))
	if err != nil {
		return lunad.Result{}, err
	}
	b, _, err := t.s.readFile(root, metaPath(id))
	if err != nil {
		return lunad.Result{}, err
	}
	want, err := decodeMeta(b)
	if err != nil {
		return lunad.Result{}, err
	}
	if want.Status == lunad.StatusRemoved {
		// The state to bring back is a removal: remove the artifact again.
		if m.Status == lunad.StatusRemoved {
			return lunad.Result{}, fmt.Errorf("%w: artifact %s is already removed, as at version %d", lunad.ErrNotApplied, id, n)
		}
		changes, err := t.removal(m)
		if err != nil {
			return lunad.Result{}, err
		}
		what := strings.Join([]string{string(op), m.Path, "to version", strconv.Itoa(n), "(removed)"}, " ")
		return t.commitOp(id, w, what, w.ch.Extra, n, changes)
	}
	content, _, err := t.s.readFile(root, want.Path)
	if err != nil {
		return lunad.Result{}, err
	}
	// A removed artifact's path is free: another artifact, or a file, may
	// have taken it since.
	if want.Path != m.Path || m.Status == lunad.StatusRemoved {
		if err := t.checkNewPath(want.Path); err != nil {
			return lunad.Result{}, fmt.Errorf("cannot restore path %s: %w", want.Path, err)
		}
	}
	cur, _, _ := t.s.readFile(t.root, m.Path)
	if op == lunad.OpRestore && want.Path == m.Path && bytes.Equal(cur, content) && bytes.Equal(want.encode(), m.encode()) {
		return lunad.Result{}, fmt.Errorf("%w: artifact %s already has the state of version %d", lunad.ErrNotApplied, id, n)
	}
	changes, err := t.stage(&m, content, want)
	if err != nil {
		return lunad.Result{}, err
	}
	what := strings.Join([]string{string(op), m.Path, "to version", strconv.Itoa(n)}, " ")
	return t.commitOp(id, w, what, w.ch.Extra, n, changes)
}
