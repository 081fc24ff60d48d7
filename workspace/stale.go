package workspace

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/treesitter"
	"github.com/lunad/lunad/workspace/refindex"
)

// Staleness is derived from history only (docs/references.md): a
// reference written in artifact A is compared against the state of its
// target at A's baseline — the commit of A's last content change or
// acknowledgement (per symbol for `ack --symbol`). Nothing is stored
// besides the commits, so the answer is right on any branch and after an
// undo, a restore or a checkout of another state.

// contentOps are the operations that set an artifact's content (a
// removal deletes it); moves, links, archives and acks do not.
var contentOps = map[lunad.Op]bool{lunad.OpCreate: true, lunad.OpAdopt: true, lunad.OpEdit: true,
	lunad.OpHuman: true, lunad.OpUndo: true, lunad.OpRedo: true, lunad.OpRestore: true, lunad.OpRemove: true}

// evaluator answers staleness questions for one query, memoising
// histories and parsed earlier versions.
type evaluator struct {
	ctx    context.Context
	s      *Service
	ix     *refindex.Index
	branch []lunad.Version // every lunad commit on the current branch, oldest first
	order  map[string]int  // commit -> position in branch
	hist   map[string][]lunad.Version
	bases  map[string]*baseline
	files  map[[2]string]*fileAt // (artifact, commit) -> its state then; commit "" is now
	then   map[int]map[string][]treesitter.Entry
}

// fileAt is an artifact at a commit: absent, or its content and
// definitions (its entry's File has no references).
type fileAt struct {
	present bool
	content []byte
	entry   treesitter.Entry
}

// evaluate brings the index up to date and returns it with an evaluator
// for one query.
func (s *Service) evaluate(ctx context.Context) (*refindex.Index, *evaluator, error) {
	ix, err := s.refIndex(ctx)
	if err != nil {
		return nil, nil, err
	}
	ev, err := s.newEvaluator(ctx, ix)
	return ix, ev, err
}

func (s *Service) newEvaluator(ctx context.Context, ix *refindex.Index) (*evaluator, error) {
	branch, order, err := s.branchHistory(ctx)
	if err != nil {
		return nil, err
	}
	return &evaluator{ctx: ctx, s: s, ix: ix, branch: branch, order: order,
		hist: map[string][]lunad.Version{}, bases: map[string]*baseline{}, files: map[[2]string]*fileAt{},
		then: map[int]map[string][]treesitter.Entry{}}, nil
}

// branchCache is branchHistory's: the current branch's history at head.
type branchCache struct {
	mu    sync.Mutex
	head  string
	all   []lunad.Version
	order map[string]int
}

// branchHistory is every lunad commit of the current branch, oldest first,
// and each commit's position, kept while HEAD does not move (evaluators
// only read them): a long history is not rebuilt for every request.
func (s *Service) branchHistory(ctx context.Context) ([]lunad.Version, map[string]int, error) {
	_, head, err := s.store.Head()
	if err != nil {
		return nil, nil, err
	}
	r := &s.branch
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.head == head && r.order != nil {
		return r.all, r.order, nil
	}
	all, err := s.store.History(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	order := make(map[string]int, len(all))
	for i, v := range all {
		order[v.Commit] = i
	}
	r.head, r.all, r.order = head, all, order
	return all, order, nil
}

func (ev *evaluator) history(id string) ([]lunad.Version, error) {
	if h, ok := ev.hist[id]; ok {
		return h, nil
	}
	h, err := ev.s.store.History(ev.ctx, id)
	if errors.Is(err, lunad.ErrNotFound) {
		err = nil
	}
	ev.hist[id] = h
	return h, err
}

// baseline is what A's references are compared against.
type baseline struct {
	all  lunad.Version            // last content change or whole-artifact ack
	sym  map[string]lunad.Version // last ack per symbol
	link lunad.Version            // last explicit link added
}

func (ev *evaluator) baseline(id string) (*baseline, error) {
	if b := ev.bases[id]; b != nil {
		return b, nil
	}
	h, err := ev.history(id)
	if err != nil {
		return nil, err
	}
	b := &baseline{sym: map[string]lunad.Version{}}
	for _, v := range h {
		switch {
		case contentOps[v.Op] || v.Op == lunad.OpAck && v.Extra["Symbol"] == "":
			b.all = v
		case v.Op == lunad.OpAck:
			b.sym[v.Extra["Symbol"]] = v
		case v.Op == lunad.OpLink:
			b.link = v
		}
	}
	ev.bases[id] = b
	return b, nil
}

// forSymbol is the baseline for a reference to a symbol: the later of the
// whole-artifact baseline and an ack of that symbol.
func (ev *evaluator) forSymbol(b *baseline, to *lunad.Location, text string) lunad.Version {
	best := b.all
	for sym, v := range b.sym {
		if (sym == text || to.Named(sym)) && ev.pos(v) > ev.pos(best) {
			best = v
		}
	}
	return best
}

func (ev *evaluator) pos(v lunad.Version) int {
	if p, ok := ev.order[v.Commit]; ok {
		return p
	}
	return -1
}

// changedAfter lists the versions of id after position p that set its content.
func (ev *evaluator) changedAfter(id string, p int) ([]lunad.Version, error) {
	h, err := ev.history(id)
	if err != nil {
		return nil, err
	}
	var out []lunad.Version
	for _, v := range h {
		if contentOps[v.Op] && ev.pos(v) > p {
			out = append(out, v)
		}
	}
	return out, nil
}

// at returns artifact id as of commit ("" for now), parsed through the
// index's cache.
func (ev *evaluator) at(id, commit string) (*fileAt, error) {
	key := [2]string{id, commit}
	if f := ev.files[key]; f != nil {
		return f, nil
	}
	content, a, err := ev.s.store.Read(ev.ctx, id, commit)
	f := &fileAt{}
	switch {
	case errors.Is(err, lunad.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		file, err := ev.ix.ParseDefinitions(refindex.ParseType(a), content) // staleness compares definitions, not references
		if err != nil {
			return nil, err
		}
		f = &fileAt{present: true, content: content,
			entry: treesitter.Entry{ID: a.ID, Path: a.Path, Title: a.Title, File: file}}
	}
	ev.files[key] = f
	return f, nil
}

// changedSince walks versions (oldest first) and returns the version
// that started the current difference: the first of the last run of
// versions for which changed is true (a change reverted and redone later
// dates from the later change). nil if the last version is unchanged.
func (ev *evaluator) changedSince(id string, versions []lunad.Version, changed func(*fileAt) bool) (*lunad.Version, error) {
	var since *lunad.Version
	for i := range versions {
		f, err := ev.at(id, versions[i].Commit)
		if err != nil {
			return nil, err
		}
		switch {
		case !changed(f):
			since = nil
		case since == nil:
			v := versions[i]
			since = &v
		}
	}
	return since, nil
}

// definedThen indexes, by name, the code definitions that artifacts
// changed after position p had at the commit of p: the only places a name
// that resolves nowhere now can have pointed to then.
func (ev *evaluator) definedThen(p int) (map[string][]treesitter.Entry, error) {
	if m, ok := ev.then[p]; ok {
		return m, nil
	}
	m := map[string][]treesitter.Entry{}
	if p >= 0 {
		seen := map[string]bool{}
		for _, v := range ev.branch[p+1:] {
			if !contentOps[v.Op] || v.Artifact == "" || seen[v.Artifact] {
				continue
			}
			seen[v.Artifact] = true
			f, err := ev.at(v.Artifact, ev.branch[p].Commit)
			if err != nil {
				return nil, err
			}
			if !f.present {
				continue
			}
			for _, sym := range f.entry.File.Symbols {
				if sym.Kind != "heading" {
					m[sym.Name] = appendEntry(m[sym.Name], f.entry)
				}
			}
		}
	}
	ev.then[p] = m
	return m, nil
}

func appendEntry(es []treesitter.Entry, e treesitter.Entry) []treesitter.Entry {
	for _, o := range es {
		if o.ID == e.ID {
			return es
		}
	}
	return append(es, e)
}

func describe(v *lunad.Version) string {
	c := v.Commit
	if len(c) > 7 {
		c = c[:7]
	}
	return fmt.Sprintf("v%d (commit %s by %s, %s)", v.Number, c, v.Agent, v.Time.Format("2006-01-02 15:04"))
}
