package gitstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

// The history index answers "which versions does artifact X have on this
// branch" and "was idempotency key K used" without walking and diffing
// commits per query. It is derived from history alone: each commit's
// provenance is parsed once from its trailers and kept in a cache file
// (.git/luna/commits, one JSON line per commit, append-only, rebuilt when
// missing or unreadable); for a given tip the index is the ancestry of the
// tip, assembled from that cache.

// entry is the cached provenance of one commit.
type entry struct {
	Commit  string   `json:"c"`
	Parents []string `json:"p,omitempty"`
	Unix    int64    `json:"t"`
	Author  string   `json:"a"`
	Rec     record   `json:"r"`
	Lunad   bool     `json:"l,omitempty"`
}

func (e *entry) version(id string) lunad.Version {
	n, op := e.Rec.Version, e.Rec.Op
	if a, ok := e.Rec.also(id); ok {
		n, op = a.Version, a.Op
	}
	v := lunad.Version{Artifact: id, Number: n, Commit: e.Commit, Op: op,
		Agent: e.Rec.Agent, Message: e.Rec.Subject, Time: time.Unix(e.Unix, 0).UTC(),
		IdempotencyKey: e.Rec.Key, Extra: e.Rec.Extra}
	if v.Agent == "" {
		v.Agent = e.Author
	}
	if e.Rec.Op == lunad.OpAdopt {
		v.Number = 1
	}
	return v
}

// history is the index for one tip.
type history struct {
	tip        plumbing.Hash
	all        []*entry // lunad commits in the tip's ancestry, parents before children
	byArtifact map[string][]*entry
	byKey      map[string]*entry
	adopts     []*entry          // adopt commits, oldest first
	adoptedAt  map[string]*entry // memo of versionsOf: an adopted artifact's version 1
}

func (h *history) add(e *entry) {
	if !e.Lunad {
		return
	}
	h.all = append(h.all, e)
	if e.Rec.Artifact != "" {
		h.byArtifact[e.Rec.Artifact] = append(h.byArtifact[e.Rec.Artifact], e)
	}
	for _, a := range e.Rec.Also {
		h.byArtifact[a.ID] = append(h.byArtifact[a.ID], e)
	}
	if e.Rec.Op == lunad.OpAdopt {
		h.adopts = append(h.adopts, e)
	}
	if e.Rec.Key != "" {
		h.byKey[e.Rec.Key] = e
	}
}

// remove undoes add for the most recently added entry.
func (h *history) remove(e *entry) {
	if !e.Lunad || len(h.all) == 0 || h.all[len(h.all)-1] != e {
		return
	}
	h.all = h.all[:len(h.all)-1]
	pop := func(id string) {
		if es := h.byArtifact[id]; len(es) > 0 && es[len(es)-1] == e {
			h.byArtifact[id] = es[:len(es)-1]
		}
	}
	pop(e.Rec.Artifact)
	for _, a := range e.Rec.Also {
		pop(a.ID)
	}
	if n := len(h.adopts); n > 0 && h.adopts[n-1] == e {
		h.adopts = h.adopts[:n-1]
		clear(h.adoptedAt)
	}
	if e.Rec.Key != "" && h.byKey[e.Rec.Key] == e {
		delete(h.byKey, e.Rec.Key)
	}
}

// versionsOf returns an artifact's version entries, oldest first. An
// artifact that came in through an adopt commit has no trailer of its own
// for version 1: the adopt commit whose tree first holds its metadata is
// found here (a few tree look-ups, memoised), so that adopting 10,000 files
// does not write 10,000 IDs into one commit message or cache line.
func (s *Store) versionsOf(id string) []*entry {
	h := s.hist
	es := h.byArtifact[id]
	if len(es) > 0 && (es[0].Rec.Op == lunad.OpCreate || es[0].Rec.Op == lunad.OpAdopt) {
		return es
	}
	a, ok := h.adoptedAt[id]
	if !ok {
		for _, e := range h.adopts {
			root, err := s.treeOf(plumbing.NewHash(e.Commit))
			if err != nil {
				continue
			}
			if _, err := s.lookup(root, metaPath(id)); err == nil {
				a = e
				break
			}
		}
		if h.adoptedAt == nil {
			h.adoptedAt = map[string]*entry{}
		}
		h.adoptedAt[id] = a
	}
	if a == nil {
		return es
	}
	return append([]*entry{a}, es...)
}

// latest returns the newest version entry of an artifact, or nil.
func (s *Store) latest(id string) *entry {
	es := s.versionsOf(id)
	if len(es) == 0 {
		return nil
	}
	return es[len(es)-1]
}

// commitCache is the on-disk cache of commit provenance. Its lines are
// entries as JSON; a field added later (record.Request) is absent from the
// lines older versions wrote and is derived on load (record.upgrade), so
// old and new lunad versions share the file. It is read (load) only when
// the history index is assembled from it: the history snapshot
// (histsnap.go) spares that in the common case.
type commitCache struct {
	path    string
	entries map[string]*entry // nil until load
}

// load reads the file, once.
func (c *commitCache) load() {
	if c.entries != nil {
		return
	}
	b, err := os.ReadFile(c.path)
	if err != nil {
		c.entries = map[string]*entry{}
		return
	}
	c.entries = make(map[string]*entry, bytes.Count(b, []byte("\n")))
	in := interner{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if e, err := decodeEntry(sc.Bytes(), in); err == nil && isHash(e.Commit) {
			e.Rec.upgrade()
			c.entries[e.Commit] = e
		}
		// A torn last line (a crash mid-append) is skipped and re-derived.
	}
}

// isHash reports whether s is a commit hash in hex (plumbing.IsHash
// without its allocation: it runs once a line of the cache).
func isHash(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// append adds entries to the file (and to what load read, if it did).
func (c *commitCache) append(es []*entry) error {
	if len(es) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, e := range es {
		if c.entries != nil {
			c.entries[e.Commit] = e
		}
		b, _ := json.Marshal(e)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return appendLines(c.path, buf.Bytes())
}

// appendLines appends b to the file name in one write.
func appendLines(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("history cache: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("history cache: %w", err)
	}
	return f.Close()
}

// buildHistory assembles the index for tip: from the history snapshot
// when it holds tip's, else from the commit cache, parsing (and caching)
// commits the cache does not know yet, and then snapshots it.
func (s *Store) buildHistory(tip plumbing.Hash) (*history, error) {
	if tip.IsZero() {
		return newHistory(tip), nil
	}
	if h, ok := s.fromSnapshot(tip); ok {
		return h, nil
	}
	h := newHistory(tip)
	s.cache.load()
	var fresh []*entry
	// Iterative DFS producing a post-order: parents before children.
	type frame struct {
		e    *entry
		next int
	}
	seen := map[string]bool{}
	get := func(hash string) (*entry, error) {
		if e, ok := s.cache.entries[hash]; ok {
			return e, nil
		}
		e, err := s.parseCommit(plumbing.NewHash(hash))
		if err != nil {
			return nil, err
		}
		s.cache.entries[hash] = e
		fresh = append(fresh, e)
		return e, nil
	}
	root, err := get(tip.String())
	if err != nil {
		return nil, err
	}
	stack := []frame{{e: root}}
	seen[root.Commit] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.e.Parents) {
			p := top.e.Parents[top.next]
			top.next++
			if seen[p] {
				continue
			}
			seen[p] = true
			pe, err := get(p)
			if err != nil {
				return nil, err
			}
			stack = append(stack, frame{e: pe})
			continue
		}
		h.add(top.e)
		stack = stack[:len(stack)-1]
	}
	if err := s.cache.append(fresh); err != nil {
		return nil, err
	}
	if s.lock.held { // see histsnap.go
		s.snap.write(h)
	}
	return h, nil
}

func newHistory(tip plumbing.Hash) *history {
	return &history{tip: tip, byArtifact: map[string][]*entry{}, byKey: map[string]*entry{}}
}

// parseCommit reads one commit's provenance from the object store.
func (s *Store) parseCommit(hash plumbing.Hash) (*entry, error) {
	c, err := s.readCommit(hash)
	if err != nil {
		return nil, err
	}
	e := &entry{Commit: hash.String(), Unix: c.Author.When.Unix(), Author: c.Author.Name}
	for _, p := range c.Parents {
		e.Parents = append(e.Parents, p.String())
	}
	e.Rec, e.Lunad = parseRecord(c.Message)
	return e, nil
}

// listIDs returns the set of artifact IDs whose metadata exists in a tree.
func (s *Store) listIDs(tree plumbing.Hash) (idSet, error) {
	set := idSet{}
	if tree.IsZero() {
		return set, nil
	}
	dir, err := s.lookup(tree, artifactsDir)
	if err != nil || dir.mode != modeDir {
		return set, nil
	}
	fans, err := s.readTree(dir.hash)
	if err != nil {
		return nil, err
	}
	for _, fan := range fans {
		if fan.Mode != modeDir {
			continue
		}
		files, err := s.readTree(fan.Hash)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if id, ok := strings.CutSuffix(f.Name, ".json"); ok {
				set[id] = true
			}
		}
	}
	return set, nil
}

type idSet map[string]bool
