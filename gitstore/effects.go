package gitstore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

// Stage effects: the files a workflow stage writes, committed once, as one
// commit. It is a write like the others (a batch of the write queue: the
// workspace lock, a person's unrecorded changes committed first, the
// durable commit, the working tree and the git index following), whose
// commit records several artifacts: the first in Luna-Artifact, Luna-Op
// and Luna-Version, the others in one Luna-Also trailer, so that each one's
// history lists the commit under its own operation and version.

// alsoVersion is one more artifact a commit wrote (record.Also).
type alsoVersion struct {
	ID      string
	Op      lunad.Op
	Version int
}

// formatAlso renders record.Also as a trailer value: "id:op:version" for
// each, space-separated.
func formatAlso(as []alsoVersion) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.ID + ":" + string(a.Op) + ":" + strconv.Itoa(a.Version)
	}
	return strings.Join(parts, " ")
}

// parseAlso reads formatAlso's output, skipping malformed items.
func parseAlso(v string) []alsoVersion {
	var out []alsoVersion
	for _, f := range strings.Fields(v) {
		parts := strings.Split(f, ":")
		if len(parts) != 3 || !validID(parts[0]) {
			continue
		}
		n, err := strconv.Atoi(parts[2])
		if err != nil || n <= 0 {
			continue
		}
		out = append(out, alsoVersion{ID: parts[0], Op: lunad.Op(parts[1]), Version: n})
	}
	return out
}

// also returns the Also item of artifact id, when id is not the record's
// first artifact.
func (r *record) also(id string) (alsoVersion, bool) {
	if id == r.Artifact {
		return alsoVersion{}, false
	}
	for _, a := range r.Also {
		if a.ID == id {
			return a, true
		}
	}
	return alsoVersion{}, false
}

// opApply names ApplyWrites' requests in idempotency digests; the commit's
// operations are create and edit, per artifact.
const opApply lunad.Op = "apply"

// ApplyWrites creates or rewrites the artifacts at the given
// workspace-relative paths in ONE commit on the current branch: an existing
// artifact at a path is rewritten as its next version (operation edit); a
// new path becomes a new artifact (operation create, status active) with
// the write's Title and Type, by default the file's name and the type
// inferred from the path (an existing artifact keeps its own). ch carries Agent, Message,
// IdempotencyKey and Extra trailers (a workflow stage passes Extra {"Run":
// id, "Stage": s, "Attempt": n}); ch.BaseVersion must be 0 and ch.Input is
// ignored (the writes are the input). refs has one entry per write, in
// order: the artifact's version after the call (for a write that changed
// nothing, its current version). commit is the new commit, "" when every
// write equalled the current content (then nothing is committed). A person's
// unrecorded change to one of the files is committed first as a human
// version, as Edit does.
//
// A write that names its Base (the commit of the version it was computed
// from) to an artifact that moved since is merged into the artifact as it
// is now by Options.Merge (mergeWrite): a clean merge is committed, a
// conflict is a *lunad.MergeConflictError (ErrConflict) and nothing is
// written.
//
// A repeat with the same IdempotencyKey and the same request (same writes
// in any order, agent, message and trailers) returns the first call's refs
// and commit with replayed true, and commits nothing. Errors (nothing is
// written on any of them): ErrConflict (*lunad.KeyReusedError) for the key
// used by another request; ErrInvalid for no writes, a bad change (see
// Change), a path that is absolute, not clean, contains "..", points into
// .git or .luna, goes through a symlink, names a directory, or is written
// twice (or nests under another write's path), and for content that is
// not UTF-8 text within Options.MaxContent, and for a title or type that
// Create would refuse; ErrExists for an untracked file
// or a tracked non-artifact file in a new path's way; ErrDirty for an
// artifact's file deleted in the working tree; ErrLocked when the
// workspace stays locked. A working tree that could not follow a commit
// that landed is logged as a warning (the commit stands, like
// Result.Warning).
func (s *Store) ApplyWrites(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) (refs []lunad.ArtifactRef, commit string, replayed bool, err error) {
	return s.applyWritesAs(ctx, writes, ch, false)
}

// ApplyWritesDeferred is ApplyWrites for a commit whose durability may
// wait for the next durable write: the commit is visible at once, its
// objects and the branch's new value are synced, but the rename of the
// branch is left without the fsync of its directory, to the syncfs the
// next durable write of the repository begins with (see
// Store.moveBranch; on a file system without syncfs it is fsynced here as
// by ApplyWrites). A power loss before that write may lose the commit, and
// only it; a killed process loses nothing. The workflow engine commits a
// stage's writes so: the append of STAGE_COMMITTED follows at once, and
// losing the commit with nothing written after it means committing it
// again from the stage's recorded response, under the same idempotency
// key. Errors as ApplyWrites'.
func (s *Store) ApplyWritesDeferred(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change) (refs []lunad.ArtifactRef, commit string, replayed bool, err error) {
	return s.applyWritesAs(ctx, writes, ch, true)
}

func (s *Store) applyWritesAs(ctx context.Context, writes []lunad.StageWrite, ch lunad.Change, deferred bool) (refs []lunad.ArtifactRef, commit string, replayed bool, err error) {
	if err := validateChange(ch); err != nil {
		return nil, "", false, err
	}
	if ch.BaseVersion != 0 {
		return nil, "", false, fmt.Errorf("%w: stage writes take no base version", lunad.ErrInvalid)
	}
	input, err := s.checkWrites(writes)
	if err != nil {
		return nil, "", false, err
	}
	ch.Input = nil
	w := newWrite(opApply, ch, input...)
	res, err := s.submitAs(ctx, func(t *txn) (lunad.Result, error) {
		var r lunad.Result
		refs, commit, r, err = t.applyWrites(writes, w)
		replayed = r.Replayed
		return r, err
	}, deferred)
	if err != nil {
		return nil, "", false, err
	}
	if res.Warning != "" {
		s.opts.Logger.Warn("stage writes committed, working tree behind", "commit", commit, "warning", res.Warning)
	}
	return refs, commit, replayed, nil
}

// checkWrites validates the writes on their own and returns the request's
// input for its idempotency digest: path and content of each, by path.
func (s *Store) checkWrites(writes []lunad.StageWrite) ([][]byte, error) {
	if len(writes) == 0 {
		return nil, fmt.Errorf("%w: no writes to apply", lunad.ErrInvalid)
	}
	sorted := slices.Clone(writes)
	slices.SortFunc(sorted, func(a, b lunad.StageWrite) int { return strings.Compare(a.Path, b.Path) })
	var input [][]byte
	folded := map[string]string{}
	for _, w := range sorted {
		if err := checkPath(w.Path); err != nil {
			return nil, err
		}
		if prev, ok := folded[strings.ToLower(w.Path)]; ok {
			return nil, fmt.Errorf("%w: %s is written twice (as %s)", lunad.ErrInvalid, w.Path, prev)
		}
		folded[strings.ToLower(w.Path)] = w.Path
		if err := s.checkContent([]byte(w.Content)); err != nil {
			return nil, fmt.Errorf("%s: %w", w.Path, err)
		}
		input = append(input, []byte(w.Path), []byte(w.Content))
		if w.Title != "" || w.Type != "" {
			// Only then: the digests of writes without them stay as they were.
			if err := newMetaChecks(w); err != nil {
				return nil, fmt.Errorf("%s: %w", w.Path, err)
			}
			input = append(input, []byte("title="+w.Title), []byte("type="+w.Type))
		}
	}
	// A path written inside another written path: every parent of every
	// path is looked up, since sorting does not put x/a next to x/a/b
	// (x/a-b sorts between them).
	for _, w := range sorted {
		for dir := path.Dir(w.Path); dir != "."; dir = path.Dir(dir) {
			if file, ok := folded[strings.ToLower(dir)]; ok {
				return nil, fmt.Errorf("%w: %s is written as a file and as a directory (%s)", lunad.ErrInvalid, file, w.Path)
			}
		}
	}
	return input, nil
}

// newMetaChecks checks a write's title and type as Create would.
func newMetaChecks(w lunad.StageWrite) error {
	if w.Title != "" {
		if err := checkTitle(w.Title); err != nil {
			return err
		}
	}
	if w.Type != "" {
		return checkType(w.Type)
	}
	return nil
}

// applyTarget is one write as applyWrites resolved it.
type applyTarget struct {
	path    string
	content []byte
	id      string // "" until a new artifact gets its ID
	m       meta
	isNew   bool
	// tracked: a new artifact's path is a file git already tracks that
	// is no artifact (committed with git after lunad init): the write
	// adopts it, as init would have, with the new content.
	tracked bool
	title   string // a new artifact's, "" for the file's name
	typ     string // a new artifact's, "" to infer it from the path
}

// applyWrites is ApplyWrites' operation in the batch.
func (t *txn) applyWrites(writes []lunad.StageWrite, w *write) ([]lunad.ArtifactRef, string, lunad.Result, error) {
	s := t.s
	_, agent := s.author(w.ch.Agent)
	if key := w.ch.IdempotencyKey; key != "" {
		w.digest = requestDigest(w, "", agent)
		if e := s.hist.byKey[key]; e != nil {
			if e.Rec.Request != w.digest || e.Rec.Agent != agent {
				return nil, "", lunad.Result{}, &lunad.KeyReusedError{Key: key,
					Use: fmt.Sprintf("%s of %s by %s at %.12s", e.Rec.Op, e.Rec.Artifact, e.Rec.Agent, e.Commit),
					Why: "this request (stage writes) differs in its writes, agent, message or trailers"}
			}
			refs, err := t.appliedRefs(e, writes)
			return refs, e.Commit, lunad.Result{Replayed: true}, err
		}
	}
	// Every path is checked, and a person's changes to the files recorded,
	// before anything of the stage is written.
	x, err := s.metasAt(t.root)
	if err != nil {
		return nil, "", lunad.Result{}, err
	}
	targets := make([]applyTarget, len(writes))
	for i, wr := range writes {
		targets[i] = applyTarget{path: wr.Path, content: []byte(wr.Content), id: x.byPath[wr.Path], title: wr.Title, typ: wr.Type}
	}
	for i := range targets {
		tg := &targets[i]
		if id := tg.id; id != "" {
			if tg.m, err = t.meta(id); err == nil {
				if err = t.checkWorkPath(tg.path); err == nil {
					err = t.commitHumanChanges(id, tg.m)
				}
			}
		} else {
			tg.isNew = true
			if n, lerr := s.lookup(t.root, tg.path); lerr == nil && (n.mode == modeFile || n.mode == modeExec) {
				tg.tracked = true
				if err = t.checkWorkPath(tg.path); err == nil {
					err = t.checkTrackedClean(tg.path, n)
				}
			} else if err = t.checkNotDir(tg.path); err == nil {
				err = t.checkNewPath(tg.path)
			}
		}
		if err != nil {
			return nil, "", lunad.Result{}, err
		}
	}
	humans := t.mark() // a person's changes recorded: kept whatever follows
	changes := map[string]fileChange{}
	var rec record
	for i := range targets {
		tg := &targets[i]
		op, version := lunad.OpCreate, 1
		if tg.isNew {
			if tg.id, err = t.newArtifactID(changes); err != nil {
				return nil, "", lunad.Result{}, err
			}
			tg.m = meta{ID: tg.id, Path: tg.path, Type: cmp.Or(tg.typ, TypeForPath(tg.path)), Title: cmp.Or(tg.title, path.Base(tg.path)), Status: lunad.StatusActive}
			if err := checkTitle(tg.m.Title); err != nil {
				return nil, "", lunad.Result{}, fmt.Errorf("%s: %w", tg.path, err)
			}
		} else {
			cur, _, err := s.readFile(t.root, tg.path)
			if err != nil {
				return nil, "", lunad.Result{}, err
			}
			if tg.content, err = t.mergeWrite(tg.id, cur, writes[i]); err != nil {
				if mc := (*lunad.MergeConflictError)(nil); errors.As(err, &mc) {
					err = &keptError{err: err, mark: humans}
				}
				return nil, "", lunad.Result{}, err
			}
			if bytes.Equal(cur, tg.content) {
				continue // no change: no new version
			}
			op, version = lunad.OpEdit, s.latestVersion(tg.id)+1
		}
		var old *meta
		if !tg.isNew {
			old = &tg.m
		}
		c, err := t.stage(old, tg.content, tg.m)
		if err != nil {
			return nil, "", lunad.Result{}, err
		}
		for p, fc := range c {
			changes[p] = fc
		}
		if rec.Artifact == "" {
			rec.Artifact, rec.Op, rec.Version = tg.id, op, version
		} else {
			rec.Also = append(rec.Also, alsoVersion{ID: tg.id, Op: op, Version: version})
		}
	}
	var commit string
	var res lunad.Result
	if rec.Artifact != "" {
		sig, _ := s.author(w.ch.Agent)
		var paths []string
		for _, tg := range targets {
			if tg.id == rec.Artifact || slices.ContainsFunc(rec.Also, func(a alsoVersion) bool { return a.ID == tg.id }) {
				paths = append(paths, tg.path)
			}
		}
		what := "write " + strings.Join(paths, ", ")
		if len(paths) > 4 {
			what = fmt.Sprintf("write %s and %d more", strings.Join(paths[:3], ", "), len(paths)-3)
		}
		subj, body := subject(what, w.ch.Message)
		rec.Agent, rec.Key, rec.Request, rec.Extra, rec.Subject = agent, w.ch.IdempotencyKey, w.digest, w.ch.Extra, subj
		e, err := t.commit(changes, rec, body, sig)
		if err != nil {
			return nil, "", lunad.Result{}, err
		}
		commit = e.Commit
		if res, err = t.result(rec.Artifact, e); err != nil {
			return nil, "", lunad.Result{}, err
		}
	}
	refs := make([]lunad.ArtifactRef, len(targets))
	for i, tg := range targets {
		refs[i] = lunad.ArtifactRef{ID: tg.id, Path: tg.path}
		if e := s.latest(tg.id); e != nil {
			refs[i].Version, refs[i].Commit = e.version(tg.id).Number, e.Commit
		}
	}
	return refs, commit, res, nil
}

// checkTrackedClean refuses to adopt tracked file p, a node n of the
// branch, when the working tree holds changes to it that are not
// committed: the write would lose them.
func (t *txn) checkTrackedClean(p string, n node) error {
	want, err := t.s.readBlob(n.hash)
	if err != nil {
		return err
	}
	got, err := os.ReadFile(filepath.Join(t.s.root, filepath.FromSlash(p)))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err == nil && !bytes.Equal(got, want) {
		return fmt.Errorf("%w: %s has uncommitted changes in the working tree; commit them with git (or `lunad init` to make it an artifact) first", lunad.ErrDirty, p)
	}
	return nil
}

// checkNotDir refuses a write to a path that is a directory, in the branch
// or in the working tree.
func (t *txn) checkNotDir(p string) error {
	n, err := t.s.lookup(t.root, p)
	if err == nil && n.mode == modeDir {
		return fmt.Errorf("%w: %s is a directory; stage writes name files", lunad.ErrInvalid, p)
	}
	if fi, err := os.Lstat(filepath.Join(t.s.root, filepath.FromSlash(p))); err == nil && fi.IsDir() {
		return fmt.Errorf("%w: %s is a directory in the working tree; stage writes name files", lunad.ErrInvalid, p)
	}
	return nil
}

// newArtifactID makes an ID no artifact of the tree and no other new
// artifact of this commit has.
func (t *txn) newArtifactID(changes map[string]fileChange) (string, error) {
	id := t.s.opts.NewID()
	if !validID(id) {
		return "", fmt.Errorf("%w: generated ID %q is not lowercase base32", lunad.ErrInvalid, id)
	}
	if _, taken := changes[metaPath(id)]; taken {
		return "", fmt.Errorf("%w: artifact ID %s", lunad.ErrExists, id)
	}
	if _, err := t.s.lookup(t.root, metaPath(id)); err == nil {
		return "", fmt.Errorf("%w: artifact ID %s", lunad.ErrExists, id)
	}
	return id, nil
}

// appliedRefs answers a replayed ApplyWrites: each write's artifact at its
// version as of the commit e that applied the request (a write that
// changed nothing then: the artifact's version before e).
func (t *txn) appliedRefs(e *entry, writes []lunad.StageWrite) ([]lunad.ArtifactRef, error) {
	s := t.s
	root, err := s.treeOf(plumbing.NewHash(e.Commit))
	if err != nil {
		return nil, err
	}
	x, err := s.metasAt(root)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(writes))
	for i, w := range writes {
		ids[i] = x.byPath[w.Path] // now: metasAt's index follows the next tree asked for
	}
	// Entries after e in the branch's history, for the writes e did not change.
	var later map[*entry]bool
	refs := make([]lunad.ArtifactRef, len(writes))
	for i, w := range writes {
		id := ids[i]
		if id == "" {
			return nil, fmt.Errorf("%w: %s is not an artifact at %.12s, which applied this request", lunad.ErrNotFound, w.Path, e.Commit)
		}
		refs[i] = lunad.ArtifactRef{ID: id, Path: w.Path}
		if _, ok := e.Rec.also(id); ok || id == e.Rec.Artifact {
			refs[i].Version, refs[i].Commit = e.version(id).Number, e.Commit
			continue
		}
		if later == nil {
			later = map[*entry]bool{}
			for j := len(s.hist.all) - 1; j >= 0 && s.hist.all[j] != e; j-- {
				later[s.hist.all[j]] = true
			}
		}
		es := s.versionsOf(id)
		for j := len(es) - 1; j >= 0; j-- {
			if !later[es[j]] {
				refs[i].Version, refs[i].Commit = es[j].version(id).Number, es[j].Commit
				break
			}
		}
	}
	return refs, nil
}
