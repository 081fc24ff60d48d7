package refindex

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"

	"github.com/lunad/lunad/treesitter"
)

// Source is one artifact handed to the index: identity, type and content.
type Source struct {
	ID, Path, Title, Type string
	Links                 []string // IDs of explicitly linked artifacts
	Content               []byte
}

// Index is the reference index of a workspace: the parsed File of every
// artifact in a treesitter.Graph. Build parses everything in parallel
// (one parser per worker); Update re-parses one artifact incrementally,
// keeping the syntax trees of the most recently updated artifacts.
// Parsed Files are cached by content (see parseCache), so a file seen
// before — in this run, at another version, or in an earlier process when
// the cache is persisted — is not parsed again.
//
// Index is safe for concurrent use.
type Index struct {
	mu     sync.Mutex
	graph  *treesitter.Graph
	parser *treesitter.Parser // for Update and Parse, under mu
	docs   *docCache
	cache  *parseCache
	log    *slog.Logger // files not indexed, or only in part
}

// NewIndex returns an empty index that logs to slog.Default().
func NewIndex() *Index { return NewIndexLogging(slog.Default()) }

// NewIndexLogging returns an empty index that logs to log the artifacts it
// cannot index, or only in part (the workspace service hands its logger).
func NewIndexLogging(log *slog.Logger) *Index {
	return &Index{graph: treesitter.NewGraph(), parser: treesitter.NewParser(), docs: newDocCache(64), cache: newParseCache(), log: log}
}

// LoadCache fills the parse cache from a file written by SaveCache. A
// missing, outdated or damaged file leaves it empty; the error (damage)
// is worth a log line, not a failure.
func (ix *Index) LoadCache(path string) error { return ix.cache.load(path) }

// SaveCache writes the parse cache to path if it changed.
func (ix *Index) SaveCache(path string) error { return ix.cache.save(path) }

// Close frees the parser and the kept trees.
func (ix *Index) Close() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.docs.clear()
	ix.parser.Close()
}

// Build replaces the index with srcs, parsing with workers goroutines
// (0: GOMAXPROCS). It returns ctx's error if cancelled.
func (ix *Index) Build(ctx context.Context, srcs []Source, workers int) error {
	return ix.BuildFrom(ctx, len(srcs), func(i int) (Source, error) { return srcs[i], nil }, workers)
}

// ErrNoFile is what a source returns for an artifact that has no file to
// index (listed by its metadata, its file removed with git rm): the build
// leaves it out.
var ErrNoFile = errors.New("the artifact has no file")

// BuildFrom is Build for n sources read by the workers as they go
// (source(i) is called once for each i, from any worker): only the
// contents being parsed are in memory, not the workspace's. It returns
// the first error of source other than ErrNoFile, or ctx's.
func (ix *Index) BuildFrom(ctx context.Context, n int, source func(i int) (Source, error), workers int) error {
	return ix.BuildWith(ctx, n, source, BuildOptions{Workers: workers})
}

// BuildWith is BuildFrom with options: the workers, and a Progress told
// of every artifact parsed.
//
// Reading, parsing and filing into the graph overlap: each worker reads
// and parses one source at a time (so at most workers contents are in
// memory), and one goroutine files the parsed artifacts into the new
// graph in source order as they come, so that the graph is complete
// shortly after the last parse rather than a serial pass after all of
// them (same graph, built in the same order, as before).
func (ix *Index) BuildWith(ctx context.Context, n int, source func(i int) (Source, error), opts BuildOptions) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	files := make([]*treesitter.PackedFile, n)
	srcs := make([]Source, n) // without their content
	pkgs := make([]string, n) // the package a manifest declares, read before its content is dropped
	work := make(chan int)
	parsed := make(chan int, n) // never blocks a worker
	errs := make(chan error, workers)
	done := &counter{total: n, p: opts.Progress}
	g := treesitter.NewGraph()
	var filer sync.WaitGroup
	filer.Go(func() { ix.file(g, parsed, files, srcs, pkgs) })
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			p := treesitter.NewParser()
			defer p.Close()
			for i := range work {
				s, err := source(i)
				if errors.Is(err, ErrNoFile) {
					parsed <- i // files[i] stays nil: left out
					done.add()
					continue
				}
				if err == nil {
					files[i], err = ix.cache.parse(p, s.Type, s.Content)
				}
				if err != nil {
					errs <- err
					return
				}
				pkgs[i] = packageName(s.Path, s.Content)
				s.Content = nil
				srcs[i] = s
				parsed <- i
				done.add()
			}
		})
	}
	var err error
feed:
	for i := range n {
		select {
		case work <- i:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(parsed)
	filer.Wait()
	if err != nil {
		return err
	}
	select {
	case err = <-errs:
		return err
	default:
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.graph = g
	ix.docs.clear()
	return nil
}

// file puts the artifacts parsed (their indexes arrive on parsed, in any
// order) into g in index order, each as soon as those before it are in;
// it returns when parsed is closed. After an error some never arrive, and
// g is dropped.
func (ix *Index) file(g *treesitter.Graph, parsed <-chan int, files []*treesitter.PackedFile, srcs []Source, pkgs []string) {
	in := interner{} // one copy of each name: most references repeat a few thousand names
	ready := make([]bool, len(files))
	next := 0
	for i := range parsed {
		ready[i] = true
		for ; next < len(files) && ready[next]; next++ {
			s, f := srcs[next], files[next]
			if f == nil {
				continue // ErrNoFile
			}
			f.Intern(in.s)
			e := entry(s, nil)
			e.Package = pkgs[next]
			g.PutPacked(e, f)
			ix.logIndexed(s, f.Skipped, f.Partial)
		}
	}
}

// logIndexed says when an artifact was not indexed, or only in part: the
// process goes on, and the person learns why its references are missing.
func (ix *Index) logIndexed(s Source, skipped, partial string) {
	switch {
	case skipped != "":
		ix.log.Info("artifact not indexed", "path", s.Path, "why", skipped)
	case partial != "":
		ix.log.Warn("artifact indexed in part", "path", s.Path, "why", partial)
	}
}

func entry(s Source, f *treesitter.File) treesitter.Entry {
	return treesitter.Entry{ID: s.ID, Path: s.Path, Title: s.Title, Links: s.Links, File: f, Package: packageName(s.Path, s.Content)}
}

// Update re-indexes one artifact after a change (or adds it). The
// artifact's syntax tree is kept, so the next Update of it re-parses only
// what changed.
func (ix *Index) Update(s Source) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	f, err := ix.docs.update(ix.parser, s)
	if err != nil {
		return err
	}
	pf := treesitter.Pack(f)
	ix.cache.put(s.Type, s.Content, pf)
	ix.graph.PutPacked(entry(s, nil), pf)
	ix.logIndexed(s, f.Skipped, f.Partial)
	return nil
}

// Remove drops an artifact from the index.
func (ix *Index) Remove(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.docs.drop(id)
	ix.graph.Remove(id)
}

// ParseDefinitions parses content of type typ, through the cache, without
// changing the index, and returns its definitions: a File without its
// References (used for earlier versions of artifacts, whose definitions
// staleness compares; references are most of a File, and not read there).
func (ix *Index) ParseDefinitions(typ string, content []byte) (*treesitter.File, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	pf, err := ix.cache.parse(ix.parser, typ, content)
	if err != nil {
		return nil, err
	}
	return pf.Definitions(), nil
}

// View runs fn with the graph under the index's lock; fn must not keep it.
func (ix *Index) View(fn func(g *treesitter.Graph)) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	fn(ix.graph)
}
