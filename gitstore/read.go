package gitstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

// List returns every artifact on the current branch, sorted by path; a
// removed artifact is not listed, nor one whose file a commit made outside
// lunad deleted (a removal not recorded yet).
func (s *Store) List(ctx context.Context) ([]lunad.Artifact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, tip, root, err := s.current()
	if err != nil {
		return nil, err
	}
	x, err := s.metasAt(root)
	if err != nil {
		return nil, err
	}
	// The list of a tree and history seen before is kept, sorted: an
	// agent's loop lists the same workspace before every model call.
	if x.listed == nil || x.listedAt != tip {
		out := make([]lunad.Artifact, 0, len(x.Metas))
		for _, m := range x.Metas {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if s.removed(root, m) {
				continue
			}
			a := s.withVersion(m.artifact())
			a.Links = slices.Clip(a.Links) // an append by a caller must copy
			out = append(out, a)
		}
		slices.SortFunc(out, func(a, b lunad.Artifact) int { return strings.Compare(a.Path, b.Path) })
		x.listed, x.listedAt = out, tip
	}
	return slices.Clone(x.listed), nil
}

// Artifact returns one artifact's current metadata and version. ref is an
// ID or a path. A removed artifact (by its ID) has status removed, and so
// has one whose file a commit made outside lunad deleted. Returns
// ErrNotFound if there is no such artifact.
func (s *Store) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, root, err := s.current()
	if err != nil {
		return lunad.Artifact{}, err
	}
	id, err := s.resolve(root, ref)
	if err != nil {
		return lunad.Artifact{}, err
	}
	a, err := s.artifactAt(root, id)
	if err == nil && a.Status != lunad.StatusRemoved {
		if _, lerr := s.lookup(root, a.Path); errors.Is(lerr, lunad.ErrNotFound) {
			a.Status = lunad.StatusRemoved // deleted outside lunad, not recorded yet
		}
	}
	return s.withVersion(a), err
}

// Read returns an artifact's content and metadata. at selects the state:
// "" for the current one, "N" for version N, or a commit hash (or a prefix
// of at least 4 hex digits of a lunad commit). ref is resolved on the
// current branch, else — with a full commit hash — at that commit, so
// that an artifact only another branch has is read at one of its commits.
// Returns ErrNotFound for an unknown artifact, version or commit, when
// the artifact did not exist at that commit, and when it was removed
// there (saying at which version, and how to bring it back).
func (s *Store) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, tip, root, err := s.current()
	if err != nil {
		return nil, lunad.Artifact{}, err
	}
	id, err := s.resolve(root, ref)
	if err != nil && !plumbing.IsHash(strings.ToLower(at)) {
		return nil, lunad.Artifact{}, err
	}
	commit := tip
	var ver *lunad.Version
	switch {
	case at == "":
	case isNumber(at):
		n, _ := strconv.Atoi(at)
		e := s.versionEntry(id, n)
		if e == nil {
			return nil, lunad.Artifact{}, &lunad.NotFoundError{Kind: "version", Ref: at, Artifact: id, Latest: s.latestVersion(id)}
		}
		commit = plumbing.NewHash(e.Commit)
		v := e.version(id)
		ver = &v
	default:
		if commit, err = s.resolveCommit(at); err != nil {
			return nil, lunad.Artifact{}, err
		}
	}
	if root, err = s.treeOf(commit); err != nil {
		return nil, lunad.Artifact{}, err
	}
	if id == "" {
		// Not on the current branch: an artifact of another branch (an
		// isolated run's) is read at a commit of that branch.
		if id, err = s.resolve(root, ref); err != nil {
			return nil, lunad.Artifact{}, err
		}
	}
	a, err := s.artifactAt(root, id)
	if errors.Is(err, lunad.ErrNotFound) {
		return nil, a, fmt.Errorf("%w: artifact %s did not exist at %s", lunad.ErrNotFound, id, at)
	}
	if err != nil {
		return nil, a, err
	}
	content, _, err := s.readFile(root, a.Path)
	if a.Status == lunad.StatusRemoved || errors.Is(err, lunad.ErrNotFound) {
		m := meta{ID: a.ID, Path: a.Path, Status: a.Status}
		v := 0
		if ver != nil {
			v = ver.Number
		} else if e := s.latest(id); e != nil {
			v = e.version(id).Number
		}
		return nil, a, removedError(m, v)
	}
	if err != nil {
		return nil, a, fmt.Errorf("read %s at %s: %w", a.Path, commit, err)
	}
	if ver != nil {
		a.Version, a.Commit, a.Modified = ver.Number, ver.Commit, ver.Time
	} else {
		a = s.withVersion(a)
	}
	return content, a, nil
}

// History returns the versions of an artifact, oldest first, or with ref ""
// every lunad commit on the current branch. Returns ErrNotFound for an
// unknown artifact.
func (s *Store) History(ctx context.Context, ref string) ([]lunad.Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, root, err := s.current()
	if err != nil {
		return nil, err
	}
	var out []lunad.Version
	if ref == "" {
		for _, e := range s.hist.all {
			if e.Rec.Artifact != "" {
				out = append(out, e.version(e.Rec.Artifact))
				for _, a := range e.Rec.Also {
					out = append(out, e.version(a.ID))
				}
			} else {
				v := e.version("")
				v.Number = 0
				out = append(out, v)
			}
		}
		return out, nil
	}
	id, err := s.resolve(root, ref)
	if err != nil {
		return nil, err
	}
	for _, e := range s.versionsOf(id) {
		out = append(out, e.version(id))
	}
	return out, nil
}

// artifactAt reads an artifact's metadata from a tree.
func (s *Store) artifactAt(root plumbing.Hash, id string) (lunad.Artifact, error) {
	if !validID(id) {
		return lunad.Artifact{}, fmt.Errorf("%w: artifact %q", lunad.ErrNotFound, id)
	}
	b, _, err := s.readFile(root, metaPath(id))
	if errors.Is(err, lunad.ErrNotFound) {
		return lunad.Artifact{}, &lunad.NotFoundError{Kind: "artifact", Ref: id}
	}
	if err != nil {
		return lunad.Artifact{}, err
	}
	m, err := decodeMeta(b)
	if err != nil {
		return lunad.Artifact{}, fmt.Errorf("artifact %s: %w", id, err)
	}
	return m.artifact(), nil
}

func (s *Store) withVersion(a lunad.Artifact) lunad.Artifact {
	if e := s.latest(a.ID); e != nil {
		a.Version, a.Commit, a.Modified = e.version(a.ID).Number, e.Commit, time.Unix(e.Unix, 0).UTC()
	}
	return a
}

func (s *Store) latestVersion(id string) int {
	if e := s.latest(id); e != nil {
		return e.version(id).Number
	}
	return 0
}

func (s *Store) versionEntry(id string, n int) *entry {
	es := s.versionsOf(id)
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].version(id).Number == n {
			return es[i]
		}
	}
	return nil
}

// resolve turns an artifact reference (an ID, or a path) into an ID.
func (s *Store) resolve(root plumbing.Hash, ref string) (string, error) {
	if validID(ref) {
		if _, err := s.lookup(root, metaPath(ref)); err == nil {
			return ref, nil
		}
	}
	if strings.ContainsAny(ref, "./") {
		x, err := s.metasAt(root)
		if err != nil {
			return "", err
		}
		if id, ok := x.byPath[ref]; ok {
			return id, nil
		}
	}
	return "", &lunad.NotFoundError{Kind: "artifact", Ref: ref}
}

// resolveCommit accepts a full hash or a unique prefix of a lunad commit.
func (s *Store) resolveCommit(at string) (plumbing.Hash, error) {
	at = strings.ToLower(at)
	if plumbing.IsHash(at) {
		return plumbing.NewHash(at), nil
	}
	if len(at) >= 4 && isHex(at) {
		var found []string
		for _, e := range s.hist.all {
			if strings.HasPrefix(e.Commit, at) {
				found = append(found, e.Commit)
			}
		}
		if len(found) == 1 {
			return plumbing.NewHash(found[0]), nil
		}
		if len(found) > 1 {
			return plumbing.ZeroHash, fmt.Errorf("%w: commit prefix %s is ambiguous (%d commits); give more digits", lunad.ErrInvalid, at, len(found))
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("%w: no version or commit %q", lunad.ErrNotFound, at)
}

func validID(id string) bool {
	if len(id) < 4 || len(id) > 32 {
		return false
	}
	for _, r := range id {
		if !strings.ContainsRune(idAlphabet, r) {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != "" && s[0] != '-' && s[0] != '+'
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}
