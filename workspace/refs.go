package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/treesitter"
	"github.com/lunad/lunad/workspace/refindex"
)

// cacheFile is where the parse cache lives, in the store's cache directory.
func (s *Service) cacheFile() string { return filepath.Join(s.store.CacheDir(), "refs.cache") }

// removeOldCache removes the parse cache an older lunad kept (refs.gob, in
// a format this one does not read), so that it does not stay behind.
func (s *Service) removeOldCache() {
	if err := os.Remove(filepath.Join(s.store.CacheDir(), "refs.gob")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("old parse cache not removed", "err", err)
	}
}

// closeRefIndex persists the parse cache and the latest Stale answer, and
// frees the index.
func (s *Service) closeRefIndex() error {
	s.removeOldCache()
	s.saveStale()
	return s.refs.Close()
}

// Symbols returns the definitions in an artifact's current content.
// Returns lunad.ErrNotFound for an unknown artifact.
func (s *Service) Symbols(ctx context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error) {
	content, a, err := s.store.Read(ctx, ref, "")
	if err != nil {
		return a, nil, err
	}
	ix, err := s.refIndex(ctx)
	if err != nil {
		return a, nil, err
	}
	f, err := ix.ParseDefinitions(refindex.ParseType(a), content)
	if err != nil {
		return a, nil, err
	}
	if f.Skipped != "" {
		return a, nil, fmt.Errorf("%w: %s is not indexed: %s", lunad.ErrInvalid, a.Path, f.Skipped)
	}
	out := make([]lunad.Symbol, len(f.Symbols))
	for i, sym := range f.Symbols {
		out[i] = lunad.Symbol{Name: sym.Name, Kind: sym.Kind, Container: sym.Container, Span: span(sym.Span), Fingerprint: sym.Fingerprint}
	}
	return a, out, nil
}

// Refs resolves an artifact's outgoing and incoming references and gives
// each its state. Returns lunad.ErrNotFound for an unknown artifact.
func (s *Service) Refs(ctx context.Context, ref string) (lunad.RefReport, error) {
	a, err := s.store.Artifact(ctx, ref)
	if err != nil {
		return lunad.RefReport{}, err
	}
	ix, ev, err := s.evaluate(ctx)
	if err != nil {
		return lunad.RefReport{}, err
	}
	rep := lunad.RefReport{Artifact: a, Outgoing: []lunad.Reference{}, Incoming: []lunad.Reference{}}
	if rep.Outgoing, err = ev.outgoing(a.ID); err != nil {
		return lunad.RefReport{}, err
	}
	var incoming []treesitter.Resolution
	ix.View(func(g *treesitter.Graph) { incoming = g.Incoming(a.ID) })
	for _, res := range incoming {
		r, ok, err := ev.evaluate(res)
		if err != nil {
			return lunad.RefReport{}, err
		}
		if ok {
			rep.Incoming = append(rep.Incoming, r)
		}
	}
	snips, err := ev.incomingSnippets(a.ID)
	if err != nil {
		return lunad.RefReport{}, err
	}
	links, err := ev.incomingLinks(a.ID)
	if err != nil {
		return lunad.RefReport{}, err
	}
	rep.Incoming = append(append(rep.Incoming, snips...), links...)
	return rep, nil
}

// Outgoing evaluates the references written in an artifact (see Refs).
func (s *Service) Outgoing(ctx context.Context, ref string) ([]lunad.Reference, error) {
	a, err := s.store.Artifact(ctx, ref)
	if err != nil {
		return nil, err
	}
	_, ev, err := s.evaluate(ctx)
	if err != nil {
		return nil, err
	}
	return ev.outgoing(a.ID)
}

// Stale lists every stale or broken reference of the workspace, sorted by
// referencing artifact and position. The answer is kept while HEAD, the
// reference index and the slug rule stay the same (stalecache.go); the
// References' pointed-to values are shared between callers and must not
// be changed.
func (s *Service) Stale(ctx context.Context) ([]lunad.Reference, error) { return s.cachedStale(ctx) }

// evaluateStale evaluates every reference of the workspace (Stale).
func (s *Service) evaluateStale(ctx context.Context) ([]lunad.Reference, error) {
	s.stale.evals.Add(1)
	ix, ev, err := s.evaluate(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	ix.View(func(g *treesitter.Graph) { ids = g.IDs() })
	out := []lunad.Reference{}
	for _, id := range ids {
		refs, err := ev.outgoing(id)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			if r.State == lunad.RefStale || r.State == lunad.RefBroken {
				out = append(out, r)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].From.Path < out[j].From.Path })
	return out, nil
}

// Ack records that an artifact's references (or only those to req.Symbol)
// were reviewed and are right as they are: a commit with a Luna-Op: ack
// trailer, which becomes the new baseline for staleness.
func (s *Service) Ack(ctx context.Context, req lunad.AckRequest) (lunad.Result, error) {
	ref := req.Ref
	symbol, err := gitstore.CheckSymbol(req.Symbol)
	if err != nil {
		return lunad.Result{}, err
	}
	if symbol != "" {
		rep, err := s.Refs(ctx, ref)
		if err != nil {
			return lunad.Result{}, err
		}
		if !mentions(rep.Outgoing, symbol) {
			return lunad.Result{}, &lunad.NotFoundError{Kind: "symbol reference", Ref: symbol, Artifact: rep.Artifact.ID}
		}
	}
	res, err := s.store.Ack(ctx, ref, symbol, req.Change)
	return s.published("changed", res, err)
}

// mentions reports whether an ack of symbol covers any of refs.
func mentions(refs []lunad.Reference, symbol string) bool {
	return slices.ContainsFunc(refs, func(r lunad.Reference) bool { return r.Covers(symbol) })
}

func span(s treesitter.Span) lunad.Span {
	return lunad.Span{Start: lunad.Position(s.Start), End: lunad.Position(s.End)}
}
