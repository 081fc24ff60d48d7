package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/lazyregexp"
)

// Create adds an artifact: its file and its metadata, in one commit.
// Returns ErrExists if the path is taken, ErrInvalid for a bad path, type,
// title or content.
func (s *Store) Create(ctx context.Context, spec lunad.CreateSpec) (lunad.Result, error) {
	if err := validateChange(spec.Change); err != nil {
		return lunad.Result{}, err
	}
	if spec.Status == "" {
		spec.Status = lunad.StatusActive
	}
	if spec.Content == nil {
		spec.Content = []byte{} // an empty artifact still has a file
	}
	if !spec.Status.Valid() {
		return lunad.Result{}, fmt.Errorf("%w: status %q (use active, draft or archived)", lunad.ErrInvalid, spec.Status)
	}
	if err := checkTitle(spec.Title); err != nil {
		return lunad.Result{}, err
	}
	if spec.Path == "" {
		if spec.Type == "" {
			spec.Type = "text/markdown"
		}
		spec.Path = slug(spec.Title) + extForType(spec.Type)
	}
	if spec.Type == "" {
		spec.Type = TypeForPath(spec.Path)
	}
	if err := checkType(spec.Type); err != nil {
		return lunad.Result{}, err
	}
	if err := checkPath(spec.Path); err != nil {
		return lunad.Result{}, err
	}
	if err := s.checkContent(spec.Content); err != nil {
		return lunad.Result{}, err
	}
	w := newWrite(lunad.OpCreate, spec.Change, []byte(spec.Title), []byte(spec.Type), []byte(spec.Path), []byte(spec.Status), spec.Content)
	return s.submit(ctx, func(t *txn) (lunad.Result, error) {
		if r, ok, err := t.replay(w, ""); ok || err != nil {
			return r, err
		}
		if err := t.checkNewPath(spec.Path); err != nil {
			return lunad.Result{}, err
		}
		id, err := t.newArtifactID(nil)
		if err != nil {
			return lunad.Result{}, err
		}
		m := meta{ID: id, Path: spec.Path, Type: spec.Type, Title: spec.Title, Status: spec.Status}
		changes, err := t.stage(nil, spec.Content, m)
		if err != nil {
			return lunad.Result{}, err
		}
		sig, agent := s.author(spec.Agent)
		subj, body := subject("create "+spec.Path, spec.Message)
		rec := record{Op: lunad.OpCreate, Artifact: id, Version: 1, Agent: agent, Key: spec.IdempotencyKey, Request: w.digest, Extra: spec.Extra, Subject: subj}
		e, err := t.commit(changes, rec, body, sig)
		if err != nil {
			return lunad.Result{}, err
		}
		return t.result(id, e)
	})
}

// stage writes the blobs for an artifact's new state and returns the tree
// changes: its content at m.Path (old, if it moved away, is deleted) and its
// metadata file. content nil keeps the current content.
func (t *txn) stage(old *meta, content []byte, m meta) (map[string]fileChange, error) {
	changes := map[string]fileChange{}
	mode := modeFile
	if old != nil {
		if n, err := t.s.lookup(t.root, old.Path); err == nil {
			mode = n.mode
			if content == nil {
				changes[m.Path] = fileChange{hash: n.hash, mode: mode}
			}
		}
		if old.Path != m.Path {
			changes[old.Path] = fileChange{del: true}
		}
		if !bytes.Equal(old.encode(), m.encode()) {
			if err := t.putMeta(changes, m); err != nil {
				return nil, err
			}
		}
	} else if err := t.putMeta(changes, m); err != nil {
		return nil, err
	}
	if content != nil {
		h, err := t.s.objs.write(plumbing.BlobObject, content)
		if err != nil {
			return nil, err
		}
		changes[m.Path] = fileChange{hash: h, mode: mode}
	}
	return changes, nil
}

func (t *txn) putMeta(changes map[string]fileChange, m meta) error {
	h, err := t.s.objs.write(plumbing.BlobObject, m.encode())
	if err != nil {
		return err
	}
	changes[metaPath(m.ID)] = fileChange{hash: h, mode: modeFile}
	return nil
}

// Edit changes an artifact's content. apply receives the current content
// and returns the new one, plus trailers to record (e.g. the match tier).
// Changes a person left in the file are committed first as the human's
// edit. Returns ErrNotFound, ErrConflict (base version moved),
// ErrNotApplied (apply failed, wrapped, or changed nothing), ErrInvalid (bad
// content, or an apply error that already wraps ErrInvalid; an idempotency
// key without ch.Input, which identifies what apply does).
func (s *Store) Edit(ctx context.Context, ref string, ch lunad.Change, apply func(current []byte) ([]byte, map[string]string, error)) (lunad.Result, error) {
	if err := validateChange(ch); err != nil {
		return lunad.Result{}, err
	}
	if ch.IdempotencyKey != "" && len(ch.Input) == 0 {
		return lunad.Result{}, fmt.Errorf("%w: an edit with an idempotency key needs its input (lunad.Change.Input) so that the key replays only the same edit", lunad.ErrInvalid)
	}
	w := newWrite(lunad.OpEdit, ch, ch.Input)
	return s.submit(ctx, func(t *txn) (lunad.Result, error) {
		id, m, replayed, err := t.begin(ref, w)
		if err != nil || replayed != nil {
			return deref(replayed), err
		}
		cur, _, err := s.readFile(t.root, m.Path)
		if err != nil {
			return lunad.Result{}, err
		}
		out, extra, err := apply(cur)
		if err != nil && !errors.Is(err, lunad.ErrInvalid) {
			err = fmt.Errorf("%w: %w", lunad.ErrNotApplied, err)
		}
		if err != nil {
			return lunad.Result{}, err
		}
		if bytes.Equal(out, cur) {
			return lunad.Result{}, fmt.Errorf("%w: the edit changes nothing in %s", lunad.ErrNotApplied, m.Path)
		}
		if err := s.checkContent(out); err != nil {
			return lunad.Result{}, err
		}
		changes, err := t.stage(&m, out, m)
		if err != nil {
			return lunad.Result{}, err
		}
		for k, v := range ch.Extra {
			if extra == nil {
				extra = map[string]string{}
			}
			extra[k] = v
		}
		return t.commitOp(id, w, "edit "+m.Path, extra, 0, changes)
	})
}

// commitOp commits one operation on an artifact with its provenance.
func (t *txn) commitOp(id string, w *write, what string, extra map[string]string, target int, changes map[string]fileChange) (lunad.Result, error) {
	sig, agent := t.s.author(w.ch.Agent)
	subj, body := subject(what, w.ch.Message)
	rec := record{Op: w.op, Artifact: id, Version: t.s.latestVersion(id) + 1, Agent: agent,
		Key: w.ch.IdempotencyKey, Request: w.digest, Target: target, Extra: extra, Subject: subj}
	e, err := t.commit(changes, rec, body, sig)
	if err != nil {
		return lunad.Result{}, err
	}
	return t.result(id, e)
}

// update runs a metadata change on an artifact: fn edits the metadata. w
// is the operation with its arguments.
func (s *Store) update(ctx context.Context, ref string, w *write, fn func(t *txn, m *meta) (string, error)) (lunad.Result, error) {
	if err := validateChange(w.ch); err != nil {
		return lunad.Result{}, err
	}
	return s.submit(ctx, func(t *txn) (lunad.Result, error) {
		id, m, replayed, err := t.begin(ref, w)
		if err != nil || replayed != nil {
			return deref(replayed), err
		}
		next := m
		next.Links = append([]lunad.Link(nil), m.Links...)
		what, err := fn(t, &next)
		if err != nil {
			return lunad.Result{}, err
		}
		changes, err := t.stage(&m, nil, next)
		if err != nil {
			return lunad.Result{}, err
		}
		return t.commitOp(id, w, what, w.ch.Extra, 0, changes)
	})
}

// Move renames an artifact's file; its ID stays. Returns ErrExists if the
// new path is taken, ErrInvalid for a bad path.
func (s *Store) Move(ctx context.Context, ref, newPath string, ch lunad.Change) (lunad.Result, error) {
	if err := checkPath(newPath); err != nil {
		return lunad.Result{}, err
	}
	return s.update(ctx, ref, newWrite(lunad.OpMove, ch, []byte(newPath)), func(t *txn, m *meta) (string, error) {
		if m.Path == newPath {
			return "", fmt.Errorf("%w: artifact %s is already at %s", lunad.ErrInvalid, m.ID, newPath)
		}
		if err := t.checkNewPath(newPath); err != nil {
			return "", err
		}
		what := "move " + m.Path + " to " + newPath
		m.Path = newPath
		return what, nil
	})
}

// Archive sets an artifact's status to archived; its file stays readable.
func (s *Store) Archive(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, error) {
	return s.update(ctx, ref, newWrite(lunad.OpArchive, ch), func(t *txn, m *meta) (string, error) {
		if m.Status == lunad.StatusArchived {
			return "", fmt.Errorf("%w: artifact %s is already archived", lunad.ErrInvalid, m.ID)
		}
		m.Status = lunad.StatusArchived
		return "archive " + m.Path, nil
	})
}

var linkKind = lazyregexp.New(`^[a-z][a-z0-9_-]{0,63}$`)

// Link records an explicit link from src to dst. Returns ErrNotFound if
// either is unknown, ErrExists if the link exists.
func (s *Store) Link(ctx context.Context, src, dst, kind string, ch lunad.Change) (lunad.Result, error) {
	if kind == "" {
		kind = "references"
	}
	if !linkKind().MatchString(kind) {
		return lunad.Result{}, fmt.Errorf("%w: link kind %q (use lowercase words like depends_on)", lunad.ErrInvalid, kind)
	}
	return s.update(ctx, src, newWrite(lunad.OpLink, ch, []byte(dst), []byte(kind)), func(t *txn, m *meta) (string, error) {
		to, _, err := t.resolve(dst)
		if err != nil {
			return "", err
		}
		if to == m.ID {
			return "", fmt.Errorf("%w: an artifact cannot link to itself", lunad.ErrInvalid)
		}
		for _, l := range m.Links {
			if l.To == to && l.Kind == kind {
				return "", &lunad.LinkExistsError{Src: m.ID, Dst: to, Kind: kind}
			}
		}
		m.Links = append(m.Links, lunad.Link{To: to, Kind: kind})
		return "link " + m.Path + " " + kind + " " + to, nil
	})
}
