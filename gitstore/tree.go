package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/lunad/lunad"
)

const (
	modeDir  = filemode.Dir
	modeFile = filemode.Regular
	modeExec = filemode.Executable
)

// node is a tree entry found by lookup.
type node struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// translate turns go-git's errors into lunad's sentinels at this package's edge.
func translate(err error) error {
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return fmt.Errorf("%w: %s", lunad.ErrNotFound, err.Error())
	}
	return err
}

// maxCachedTrees bounds the decoded-tree cache (trees are immutable, so
// entries never go stale; the cache is simply dropped when full).
const maxCachedTrees = 16384

// readTree returns a tree's entries, decoded once per store. Callers must
// not modify the returned slice.
func (s *Store) readTree(h plumbing.Hash) ([]treeEntry, error) {
	if es, ok := s.trees[h]; ok {
		return es, nil
	}
	b, err := s.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	es, err := decodeTree(b)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	if s.trees == nil || len(s.trees) >= maxCachedTrees {
		s.trees = make(map[plumbing.Hash][]treeEntry, 1024)
	}
	s.trees[h] = es
	return es, nil
}

// readObject reads an object of the expected type, translating "not
// found" to lunad.ErrNotFound.
func (s *Store) readObject(want plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	t, b, err := s.objects.read(h)
	if err != nil {
		return nil, translate(err)
	}
	if t != want {
		return nil, fmt.Errorf("%w: %s is a %s, not a %s", lunad.ErrInvalid, h, t, want)
	}
	return b, nil
}

func (s *Store) readBlob(h plumbing.Hash) ([]byte, error) {
	b, err := s.readObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return b, nil
}

// lookup finds path in the tree root, returning ErrNotFound when absent.
func (s *Store) lookup(root plumbing.Hash, path string) (node, error) {
	cur := node{hash: root, mode: modeDir}
	if root.IsZero() {
		return node{}, fmt.Errorf("%w: %s", lunad.ErrNotFound, path)
	}
	for _, name := range strings.Split(path, "/") {
		if cur.mode != modeDir {
			return node{}, fmt.Errorf("%w: %s", lunad.ErrNotFound, path)
		}
		entries, err := s.readTree(cur.hash)
		if err != nil {
			return node{}, err
		}
		e, found := findEntry(entries, name)
		if found {
			cur = node{hash: e.Hash, mode: e.Mode}
		}
		if !found {
			return node{}, fmt.Errorf("%w: %s", lunad.ErrNotFound, path)
		}
	}
	return cur, nil
}

// findEntry binary-searches a tree's entries, which git sorts as if tree
// names ended in "/": the name is looked for under both keys.
func findEntry(entries []treeEntry, name string) (treeEntry, bool) {
	for _, k := range []string{name, name + "/"} {
		i := sort.Search(len(entries), func(i int) bool { return gitKey(entries[i]) >= k })
		if i < len(entries) && entries[i].Name == name {
			return entries[i], true
		}
	}
	return treeEntry{}, false
}

func gitKey(e treeEntry) string {
	if e.Mode == modeDir {
		return e.Name + "/"
	}
	return e.Name
}

// readFile returns the content of path in the tree root.
func (s *Store) readFile(root plumbing.Hash, path string) ([]byte, node, error) {
	n, err := s.lookup(root, path)
	if err != nil {
		return nil, n, err
	}
	if n.mode == modeDir {
		return nil, n, fmt.Errorf("%w: %s is a directory", lunad.ErrInvalid, path)
	}
	b, err := s.readBlob(n.hash)
	return b, n, err
}

// fileChange sets (or, with del, removes) one file in a tree.
type fileChange struct {
	hash plumbing.Hash
	mode filemode.FileMode
	del  bool
}

// rewriteTree applies changes (keyed by slash path) to the tree root and
// writes the new trees, only those on the changed paths. It returns the new
// root (zero if the tree became empty).
func (s *Store) rewriteTree(base plumbing.Hash, changes map[string]fileChange) (plumbing.Hash, error) {
	var entries []treeEntry
	if !base.IsZero() {
		es, err := s.readTree(base)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, es...)
	}
	// Group the changes by their first component.
	direct := map[string]fileChange{}
	nested := map[string]map[string]fileChange{}
	for p, c := range changes {
		if first, rest, ok := strings.Cut(p, "/"); ok {
			if nested[first] == nil {
				nested[first] = map[string]fileChange{}
			}
			nested[first][rest] = c
		} else {
			direct[p] = c
		}
	}
	index := map[string]int{}
	for i, e := range entries {
		index[e.Name] = i
	}
	set := func(name string, h plumbing.Hash, mode filemode.FileMode) {
		if i, ok := index[name]; ok {
			if h.IsZero() {
				entries[i].Name = "" // removed below
			} else {
				entries[i] = treeEntry{Name: name, Mode: mode, Hash: h}
			}
			return
		}
		if !h.IsZero() {
			index[name] = len(entries)
			entries = append(entries, treeEntry{Name: name, Mode: mode, Hash: h})
		}
	}
	for name, c := range direct {
		if c.del {
			set(name, plumbing.ZeroHash, 0)
		} else {
			set(name, c.hash, c.mode)
		}
	}
	for name, sub := range nested {
		var subBase plumbing.Hash
		if i, ok := index[name]; ok && entries[i].Mode == modeDir {
			subBase = entries[i].Hash
		}
		h, err := s.rewriteTree(subBase, sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		set(name, h, modeDir)
	}
	kept := entries[:0]
	for _, e := range entries {
		if e.Name != "" {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return plumbing.ZeroHash, nil
	}
	h, err := s.objs.write(plumbing.TreeObject, encodeTree(kept))
	if err == nil && s.trees != nil && len(s.trees) < maxCachedTrees {
		s.trees[h] = kept // sorted by encodeTree; owned by no one else
	}
	return h, err
}

// encodeTree sorts entries in git's order (a tree sorts as if its name ended
// in "/") and serialises them.
func encodeTree(entries []treeEntry) []byte {
	sort.Slice(entries, func(i, j int) bool { return gitKey(entries[i]) < gitKey(entries[j]) })
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(strconv.FormatUint(uint64(e.Mode), 8))
		b.WriteByte(' ')
		b.WriteString(e.Name)
		b.WriteByte(0)
		b.Write(e.Hash[:])
	}
	return b.Bytes()
}

// writeCommit encodes and writes a commit object.
func (s *Store) writeCommit(c *commitObject) (plumbing.Hash, error) {
	return s.objs.write(plumbing.CommitObject, c.encode())
}
