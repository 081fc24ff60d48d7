package refindex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/treesitter"
)

// Store is what Live reads of a workspace's store (gitstore.Store has it).
type Store interface {
	// Head is the current branch and commit.
	Head() (branch, commit string, err error)
	List(ctx context.Context) ([]lunad.Artifact, error)
	Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error)
	// Changed is the IDs of the artifacts whose file or metadata differ
	// between two commits, content committed with plain git included.
	Changed(ctx context.Context, from, to string) ([]string, error)
}

// Live is the reference index of a store's current branch and what it
// was built from: each artifact's latest commit and path, so that Sync
// re-parses only the artifacts that changed (an edit, an undo, a branch
// switch) since. Live is safe for concurrent use.
type Live struct {
	store     Store
	cacheFile string // the persisted parse cache; "" for none
	log       *slog.Logger

	mu      sync.Mutex // serialises Sync; the Index has its own lock
	ix      *Index
	indexed map[string]indexedAt
	head    string // the HEAD commit the index was last synced with
	gen     uint64 // counts the index's changes (Generation)
}

type indexedAt struct{ commit, path, typ, title string }

// NewLive returns the index of store, built on the first Sync. cacheFile
// is where the parse cache is loaded from then and saved at Close.
func NewLive(store Store, cacheFile string, log *slog.Logger) *Live {
	return &Live{store: store, cacheFile: cacheFile, log: log}
}

// Sync brings the index up to date with the current branch and returns
// it. The first call loads the persisted parse cache and indexes every
// artifact; later calls re-parse only what changed.
func (r *Live) Sync(ctx context.Context) (*Index, error) { return r.SyncReporting(ctx, nil) }

// SyncReporting is Sync telling progress of the first build (the cold
// index): (0, total) as it starts, before the parse cache is loaded, then
// one call per artifact parsed, as BuildOptions.Progress does; later syncs
// re-parse a few artifacts and report nothing, and so does a store
// without artifacts.
func (r *Live) SyncReporting(ctx context.Context, progress Progress) (*Index, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// The index follows committed content: while HEAD has not moved there
	// is nothing to compare (listing 10,000 artifacts costs ~15 ms).
	_, head, err := r.store.Head()
	if err != nil {
		return nil, err
	}
	if r.ix != nil && head == r.head && len(r.indexed) > 0 {
		return r.ix, nil
	}
	arts, err := r.store.List(ctx)
	if err != nil {
		return nil, err
	}
	from := r.head
	r.head = head
	if r.ix == nil {
		if progress != nil && len(arts) > 0 {
			progress(0, len(arts)) // loading a large parse cache takes a while
		}
		ix := NewIndexLogging(r.log)
		if r.cacheFile != "" {
			if err := ix.LoadCache(r.cacheFile); err != nil {
				r.log.Warn("reference index cache ignored", "err", err)
			}
		}
		// Contents are read by the parse workers: 10,000 artifacts are
		// tens of MiB the index does not keep.
		source := func(i int) (Source, error) { return r.source(ctx, arts[i]) }
		if err := ix.BuildWith(ctx, len(arts), source, BuildOptions{Progress: progress}); err != nil {
			ix.Close()
			return nil, err
		}
		r.ix, r.indexed = ix, map[string]indexedAt{}
		r.gen++
		for _, a := range arts {
			r.indexed[a.ID] = stamp(a)
		}
		return r.ix, nil
	}
	// An artifact's latest version says what lunad changed; a commit made
	// with plain git changes content without making one, so the trees
	// are compared too: the index is HEAD's whoever moved it.
	changed, all := map[string]bool{}, false
	if from != "" {
		ids, err := r.store.Changed(ctx, from, head)
		if err != nil {
			r.log.Warn("reference index: commits not compared, re-reading every artifact", "from", from, "to", head, "err", err)
			all = true
		}
		for _, id := range ids {
			changed[id] = true
		}
	}
	seen := make(map[string]bool, len(arts))
	for _, a := range arts {
		seen[a.ID] = true
		if !all && !changed[a.ID] && r.indexed[a.ID] == stamp(a) {
			continue
		}
		src, err := r.source(ctx, a)
		if errors.Is(err, ErrNoFile) {
			r.gen++
			r.ix.Remove(a.ID)
			r.indexed[a.ID] = stamp(a)
			continue
		}
		if err != nil {
			return nil, err
		}
		r.gen++ // before Update: a failed update may have changed the index
		if err := r.ix.Update(src); err != nil {
			return nil, err
		}
		r.indexed[a.ID] = stamp(a)
	}
	for id := range r.indexed {
		if !seen[id] {
			r.gen++
			r.ix.Remove(id)
			delete(r.indexed, id)
		}
	}
	return r.ix, nil
}

// Generation counts the changes of the index: it differs after any Sync
// that re-parsed or removed an artifact, and after Close, and is the same
// while the index answers the same. A state derived from the index (with
// the HEAD commit it was synced with) can be kept while it does not move.
func (r *Live) Generation() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gen
}

// Forget makes the next Sync compare every artifact with the store and
// re-parse those in ids even if their latest version is the one indexed:
// a commit made with plain git changes content without making a version.
func (r *Live) Forget(ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		delete(r.indexed, id)
	}
	r.head = ""
}

// ParseType is what the parser is told an artifact is: its type, or its
// file name when the type names no grammar (a .pyi or .mts file is
// text/plain to the store but Python or TypeScript to the parser).
func ParseType(a lunad.Artifact) string {
	if treesitter.LanguageFor(a.Type) == treesitter.LangText {
		return a.Path
	}
	return a.Type
}

func stamp(a lunad.Artifact) indexedAt { return indexedAt{a.Commit, a.Path, a.Type, a.Title} }

func (r *Live) source(ctx context.Context, a lunad.Artifact) (Source, error) {
	content, _, err := r.store.Read(ctx, a.ID, "")
	if errors.Is(err, lunad.ErrNotFound) {
		// Listed, but its file is gone from the commit (git rm): nothing
		// to index, as for an artifact removed.
		return Source{}, fmt.Errorf("%w: %s: %w", ErrNoFile, a.Path, err)
	}
	if err != nil {
		return Source{}, err
	}
	src := Source{ID: a.ID, Path: a.Path, Title: a.Title, Type: ParseType(a), Content: content}
	for _, l := range a.Links {
		src.Links = append(src.Links, l.To)
	}
	return src, nil
}

// Close persists the parse cache and frees the index; a later Sync builds
// it again.
func (r *Live) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ix == nil {
		return nil
	}
	var err error
	if r.cacheFile != "" {
		err = r.ix.SaveCache(r.cacheFile)
	}
	r.ix.Close()
	r.ix = nil
	r.gen++
	return err
}
