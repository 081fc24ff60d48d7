package gitstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/atomicfile"
)

// metaIndex holds every artifact's metadata for one .luna/artifacts tree,
// for listing and for finding an artifact by path without reading 10,000
// metadata files. It follows the tree incrementally: only the metadata
// files that differ between the indexed tree and the wanted one (found by
// comparing tree hashes, subtree by subtree) are read. A copy is cached in
// .git/luna/metas so that a new process starts from it; the cache is
// derived data, checked against the tree hash and rebuilt when unreadable.
type metaIndex struct {
	Tree   plumbing.Hash   `json:"tree"`
	Metas  map[string]meta `json:"metas"`
	byPath map[string]string
	// listed is List's answer for Tree with the versions of the history
	// at commit listedAt, sorted by path; nil until List makes it, and
	// dropped whenever the index follows another tree.
	listed   []lunad.Artifact
	listedAt plumbing.Hash
}

// persistAfter is how many metadata files a process must have read before
// it rewrites the cache file.
const persistAfter = 64

// currentMetas is the metadata index of the current branch's tip. Callers
// hold s.mu.
func (s *Store) currentMetas() (*metaIndex, error) {
	_, _, root, err := s.current()
	if err != nil {
		return nil, err
	}
	return s.metasAt(root)
}

// metasAt returns the metadata index for the tree root. Callers hold s.mu.
func (s *Store) metasAt(root plumbing.Hash) (*metaIndex, error) {
	var want plumbing.Hash
	if n, err := s.lookup(root, artifactsDir); err == nil && n.mode == modeDir {
		want = n.hash
	}
	if s.metas == nil {
		s.metas = s.loadMetaCache()
	}
	x := s.metas
	if x.Tree == want {
		return x, nil
	}
	changed := map[string][2]node{}
	if err := s.diffTrees(x.Tree, want, "", changed); err != nil {
		return nil, err
	}
	for p, ab := range changed {
		id, ok := strings.CutSuffix(filepath.Base(p), ".json")
		if !ok {
			continue
		}
		if old, ok := x.Metas[id]; ok {
			if x.byPath[old.Path] == id {
				delete(x.byPath, old.Path)
			}
			delete(x.Metas, id)
		}
		if ab[1].hash.IsZero() {
			continue
		}
		b, err := s.readBlob(ab[1].hash)
		if err != nil {
			return nil, err
		}
		m, err := decodeMeta(b)
		if err != nil {
			continue // a damaged metadata file is not an artifact
		}
		x.Metas[id] = m
		if m.Status != lunad.StatusRemoved {
			x.byPath[m.Path] = id
		}
	}
	x.Tree, x.listed = want, nil
	if len(changed) >= persistAfter {
		s.saveMetaCache(x)
	}
	return x, nil
}

func (s *Store) metaCachePath() string { return filepath.Join(s.lunaDir, "metas") }

func (s *Store) loadMetaCache() *metaIndex {
	x := &metaIndex{}
	if b, err := os.ReadFile(s.metaCachePath()); err == nil {
		json.Unmarshal(b, x)
	}
	// Anything inconsistent (no tree, a tree that is not there, keys that
	// are not their IDs) starts the index from scratch.
	ok := x.Metas != nil && !x.Tree.IsZero()
	if ok {
		_, err := s.readTree(x.Tree)
		ok = err == nil
	}
	for id, m := range x.Metas {
		ok = ok && m.ID == id && validID(id)
	}
	if !ok {
		x = &metaIndex{Metas: map[string]meta{}}
	}
	x.byPath = make(map[string]string, len(x.Metas))
	for id, m := range x.Metas {
		if m.Status != lunad.StatusRemoved {
			x.byPath[m.Path] = id
		}
	}
	return x
}

// saveMetaCache writes the cache through a temp file and rename; it is not
// fsynced (a lost or torn cache is rebuilt).
func (s *Store) saveMetaCache(x *metaIndex) {
	b, err := json.Marshal(x)
	if err != nil {
		return
	}
	atomicfile.Write(s.metaCachePath(), b, atomicfile.Options{TempDir: filepath.Join(s.lunaDir, "tmp")})
}
