package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/lazyregexp"
)

var extraKey = lazyregexp.New(`^[A-Z][A-Za-z0-9-]{0,62}$`)

func validateChange(c lunad.Change) error {
	if strings.ContainsAny(c.Agent, "<>") {
		return fmt.Errorf("%w: agent name %q contains < or >", lunad.ErrInvalid, c.Agent)
	}
	if err := checkTrailerValue("agent name", c.Agent); err != nil {
		return err
	}
	if err := checkTrailerValue("idempotency key", c.IdempotencyKey); err != nil {
		return err
	}
	if c.BaseVersion < 0 {
		return fmt.Errorf("%w: base version %d is negative", lunad.ErrInvalid, c.BaseVersion)
	}
	for k, v := range c.Extra {
		if !extraKey().MatchString(k) {
			return fmt.Errorf("%w: trailer name %q", lunad.ErrInvalid, k)
		}
		if name, what, ok := lunad.ReservedTrailer(k); ok {
			return fmt.Errorf("%w: trailer name %q is lunad's own (Luna-%s: %s); choose another name", lunad.ErrInvalid, k, name, what)
		}
		if err := checkTrailerValue("trailer "+k, v); err != nil {
			return err
		}
	}
	return checkMessage(c.Message)
}

func (s *Store) author(agent string) (Signature, string) {
	if agent == "" {
		return s.opts.Human, s.opts.Human.Name
	}
	local := strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '-'
	}, agent)
	return Signature{Name: agent, Email: local + "@agents.lunad"}, agent
}

// checkContent enforces what every artifact's content must be.
func (s *Store) checkContent(b []byte) error {
	if len(b) > s.opts.MaxContent {
		return fmt.Errorf("%w: content is %d bytes; the limit is %d", lunad.ErrInvalid, len(b), s.opts.MaxContent)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return fmt.Errorf("%w: content is binary (NUL byte at offset %d); artifacts are text", lunad.ErrInvalid, i)
	}
	if !utf8.Valid(b) {
		off := 0
		for off < len(b) {
			r, n := utf8.DecodeRune(b[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		line := bytes.Count(b[:off], []byte("\n")) + 1
		return fmt.Errorf("%w: content is not valid UTF-8 (byte %d, line %d); convert it to UTF-8", lunad.ErrInvalid, off, line)
	}
	return nil
}

// resolve finds an artifact in the transaction's tree.
func (t *txn) resolve(ref string) (string, meta, error) {
	id, err := t.s.resolve(t.root, ref)
	if err != nil {
		return "", meta{}, err
	}
	m, err := t.meta(id)
	return id, m, err
}

func (t *txn) meta(id string) (meta, error) {
	b, _, err := t.s.readFile(t.root, metaPath(id))
	if err != nil {
		return meta{}, err
	}
	return decodeMeta(b)
}

// begin opens an operation on an artifact: it resolves ref, answers a
// replayed idempotency key (replayed non-nil) or refuses a reused one
// (ErrConflict), refuses a removed artifact (but for an undo, a redo or
// a restore, which may bring it back), refuses to write through a symlink,
// commits a person's unrecorded changes first, and checks the base
// version.
func (t *txn) begin(ref string, w *write) (id string, m meta, replayed *lunad.Result, err error) {
	if id, m, err = t.resolve(ref); err != nil {
		return "", m, nil, err
	}
	if r, ok, err := t.replay(w, id); ok || err != nil {
		if err != nil {
			return "", m, nil, err
		}
		return id, m, &r, nil
	}
	if m.Status == lunad.StatusRemoved {
		if w.op != lunad.OpUndo && w.op != lunad.OpRedo && w.op != lunad.OpRestore {
			return "", m, nil, removedError(m, t.s.latestVersion(id))
		}
		return id, m, nil, t.checkBase(id, w.ch.BaseVersion)
	}
	if err := t.checkWorkPath(m.Path); err != nil {
		return "", m, nil, err
	}
	if err := t.commitHumanChanges(id, m); err != nil {
		return "", m, nil, err
	}
	return id, m, nil, t.checkBase(id, w.ch.BaseVersion)
}

// deref returns *r, or the zero Result for nil.
func deref(r *lunad.Result) lunad.Result {
	if r == nil {
		return lunad.Result{}
	}
	return *r
}

func (t *txn) checkBase(id string, base int) error {
	if cur := t.s.latestVersion(id); base > 0 && base != cur {
		return fmt.Errorf("%w: artifact %s is at version %d but the edit was made against version %d; read version %d and redo the edit", lunad.ErrConflict, id, cur, base, cur)
	}
	return nil
}

// commitHumanChanges commits, as the human's edit, changes a person made
// to the artifact's file in the working tree that lunad has not recorded.
// Agent edits then apply on top of them: nothing a person typed is lost.
func (t *txn) commitHumanChanges(id string, m meta) error {
	if _, touched := t.files[m.Path]; touched {
		return nil // this batch already wrote the file
	}
	head, err := t.s.lookup(t.root, m.Path)
	if errors.Is(err, lunad.ErrNotFound) {
		return &goneError{fmt.Errorf("%w: the file %s of artifact %s is not in HEAD (a commit made outside lunad deleted it); `lunad rm %s` records the removal, then `lunad undo %s` brings it back", lunad.ErrNotFound, m.Path, id, id, id)}
	}
	if err != nil {
		return err
	}
	work, content, err := t.s.workHash(m.Path)
	if err != nil {
		return fmt.Errorf("read %s: %w", m.Path, err)
	}
	t.seen[m.Path] = work
	if work == head.hash {
		return nil
	}
	if stale, ok := t.s.unwritten[m.Path]; ok && stale == work {
		// The state a committed write of lunad's failed to replace (a full
		// disk, a directory made read-only): not a person's change. The
		// file is brought to HEAD now; if it still cannot be written, the
		// write waits rather than committing the old content back.
		if _, err := t.s.writeWorkFile(m.Path, fileChange{hash: head.hash, mode: head.mode}, work); err != nil {
			return fmt.Errorf("%s still holds an older version lunad could not replace (%w); make it writable or free disk space, then try again", m.Path, err)
		}
		t.seen[m.Path] = head.hash
		return nil
	}
	if work.IsZero() {
		return &goneError{fmt.Errorf("%w: %s was deleted in the working tree; bring it back with `git checkout -- %s`, or record the removal with `lunad rm %s`", lunad.ErrDirty, m.Path, m.Path, id)}
	}
	if conflict, err := t.s.unmerged(m.Path); err != nil {
		return err
	} else if conflict {
		return fmt.Errorf("%w: %s is unmerged in git's index (a merge, rebase or stash pop stopped on it); resolve the conflict and `git add %s`, then try again", ErrUnmerged, m.Path, m.Path)
	}
	if err := t.s.checkContent(content); err != nil {
		return fmt.Errorf("%w: %s was changed in the working tree and lunad cannot record it: %w", lunad.ErrDirty, m.Path, err)
	}
	blob, err := t.s.objs.write(plumbing.BlobObject, content)
	if err != nil {
		return err
	}
	sig, name := t.s.author("")
	rec := record{Op: lunad.OpHuman, Artifact: id, Version: t.s.latestVersion(id) + 1, Agent: name,
		Subject: "human edit " + m.Path + " (found in the working tree)"}
	_, err = t.commit(map[string]fileChange{m.Path: {hash: blob, mode: head.mode}}, rec, "", sig)
	return err
}

// checkNewPath validates a path an artifact is about to take.
func (t *txn) checkNewPath(p string) error {
	if err := checkPath(p); err != nil {
		return err
	}
	// No artifact claiming the path whose file a commit made outside lunad
	// deleted: two artifacts never share a path.
	x, err := t.s.metasAt(t.root)
	if err != nil {
		return err
	}
	if id, ok := x.byPath[p]; ok && t.s.removed(t.root, x.Metas[id]) {
		return fmt.Errorf("%w: %s belongs to artifact %s, whose file was deleted outside lunad; record the removal with `lunad rm %s` first", lunad.ErrExists, p, id, id)
	}
	// No file, directory, or case-folded twin in the tree.
	cur := t.root
	parts := strings.Split(p, "/")
	for i, name := range parts {
		if cur.IsZero() {
			break
		}
		entries, err := t.s.readTree(cur)
		if err != nil {
			return err
		}
		next := plumbing.ZeroHash
		for _, e := range entries {
			if e.Name == name {
				if i == len(parts)-1 || e.Mode != modeDir {
					return fmt.Errorf("%w: %s is already tracked (by %s); choose another path", lunad.ErrExists, p, strings.Join(parts[:i+1], "/"))
				}
				next = e.Hash
			} else if strings.EqualFold(e.Name, name) {
				return fmt.Errorf("%w: %s collides with %s on case-insensitive filesystems; choose another name", lunad.ErrExists, p, strings.Join(append(parts[:i:i], e.Name), "/"))
			}
		}
		cur = next
	}
	// Nothing in the working tree in the way, and no symlink on the way.
	full := t.s.root
	for i, name := range parts {
		full = filepath.Join(full, name)
		fi, err := os.Lstat(full)
		if os.IsNotExist(err) {
			break
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s goes through the symlink %s; lunad does not write through links", lunad.ErrInvalid, p, strings.Join(parts[:i+1], "/"))
		}
		if i == len(parts)-1 {
			return fmt.Errorf("%w: an untracked file %s is in the way; move it or track it with `lunad init` after `git add`", lunad.ErrExists, p)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%w: %s is a file, not a directory", lunad.ErrExists, strings.Join(parts[:i+1], "/"))
		}
	}
	return nil
}

// checkWorkPath refuses to write an existing artifact path that a symlink
// in the working tree redirects (for instance out of the workspace).
func (t *txn) checkWorkPath(p string) error {
	full := t.s.root
	parts := strings.Split(p, "/")
	for i, name := range parts {
		full = filepath.Join(full, name)
		fi, err := os.Lstat(full)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s is a symlink in the working tree; lunad does not write through links", lunad.ErrInvalid, strings.Join(parts[:i+1], "/"))
		}
	}
	return nil
}

func (t *txn) result(id string, e *entry) (lunad.Result, error) {
	m, err := t.meta(id)
	if err != nil {
		return lunad.Result{}, err
	}
	return lunad.Result{Artifact: t.s.withVersion(m.artifact()), Version: e.version(id)}, nil
}

// subject renders a commit subject: what was done, then the caller's first line.
func subject(what, message string) (string, string) {
	first, rest, _ := strings.Cut(strings.TrimSpace(message), "\n")
	if first == "" {
		return what, ""
	}
	return what + ": " + first, rest
}
