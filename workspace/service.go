package workspace

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/workspace/events"
	"github.com/lunad/lunad/workspace/refindex"
)

// Service serves one workspace.
type Service struct {
	store *gitstore.Store
	refs  *refindex.Live
	// building is how far the cold build of refs has come (indexing.go).
	building buildProgress
	branch   branchCache
	stale    staleCache // Stale's answer kept per state (stalecache.go)
	events   *events.Hub
	log      *slog.Logger // the store's (gitstore.Options.Logger)
	runs     runsEngine   // the workflow engine (runs.go)
	trees    worktrees    // the stores of isolated runs' worktrees (isolation.go)
	// looseSlugs: [refs] slugs = "loose" (SetSlugRule).
	looseSlugs atomic.Bool
}

// SetSlugRule sets how a link's #fragment names a heading: lunad.SlugsGitHub
// (the default) or lunad.SlugsLoose (docs/references.md). Returns
// lunad.ErrInvalid for any other rule.
func (s *Service) SetSlugRule(rule string) error {
	switch rule {
	case lunad.SlugsGitHub, "":
		s.looseSlugs.Store(false)
	case lunad.SlugsLoose:
		s.looseSlugs.Store(true)
	default:
		return fmt.Errorf("%w: heading slug rule %q: set [refs] slugs in .luna/config.toml to %q or %q", lunad.ErrInvalid, rule, lunad.SlugsGitHub, lunad.SlugsLoose)
	}
	return nil
}

// Open serves the workspace at dir in this process: what runs when no
// daemon serves it, and what the daemon itself serves. Returns
// lunad.ErrNotWorkspace if there is none.
func Open(dir string, opts gitstore.Options) (*Service, error) {
	st, err := gitstore.Open(dir, withMerge(opts))
	if err != nil {
		return nil, err
	}
	return newService(st), nil
}

// newService serves the store st.
func newService(st *gitstore.Store) *Service {
	s := &Service{store: st, events: events.New(), log: st.Logger()}
	s.refs = refindex.NewLive(st, s.cacheFile(), s.log)
	return s
}

// Init makes or adopts the workspace at dir and serves it.
func Init(dir string, opts gitstore.Options) (*Service, gitstore.AdoptReport, error) {
	st, rep, err := gitstore.Init(dir, withMerge(opts))
	if err != nil {
		return nil, rep, err
	}
	return newService(st), rep, nil
}

// Close waits for writes in flight and releases the workspace.
// The parse cache of the reference index is saved for the next process.
func (s *Service) Close() error {
	runsErr := s.closeRuns()
	s.events.Close()
	return errors.Join(runsErr, s.closeRefIndex(), s.store.Close())
}

// Subscribe delivers the workspace's events until ctx is done or the
// Service closes (see Workspace).
func (s *Service) Subscribe(ctx context.Context) (<-chan lunad.Event, error) {
	return s.events.Subscribe(ctx), nil
}

// published announces a successful write of one artifact.
func (s *Service) published(kind string, res lunad.Result, err error) (lunad.Result, error) {
	if err == nil && !res.Replayed {
		s.events.Publish(lunad.Event{Kind: kind, IDs: []string{res.Artifact.ID}, Commit: res.Version.Commit})
	}
	return res, err
}

// Root is the workspace's root directory.
func (s *Service) Root() string { return s.store.Root() }

// matchTrailer records the tiers in a commit trailer (Luna-Match), so an
// idempotent replay can report them.
const matchTrailer = "Match"

// Edit applies an edit to an artifact's current content and commits it.
// Errors: lunad.ErrNotFound, lunad.ErrConflict (base version moved),
// lunad.ErrNotApplied wrapping the editor's error (no match, ambiguous,
// already applied), lunad.ErrInvalid (bad blocks, patch or content).
func (s *Service) Edit(ctx context.Context, req lunad.EditRequest) (lunad.EditResult, error) {
	apply, input, named, err := applier(req)
	if err != nil {
		return lunad.EditResult{}, err
	}
	if err := s.checkNamed(ctx, req.ID, named); err != nil {
		return lunad.EditResult{}, err
	}
	req.Change.Input = input
	var matches []lunad.Match
	res, err := s.store.Edit(ctx, req.ID, req.Change, func(cur []byte) ([]byte, map[string]string, error) {
		r, err := apply(cur)
		if err != nil {
			return nil, nil, classify(err)
		}
		matches = toMatches(r.Matches)
		return r.Content, map[string]string{matchTrailer: tiers(r.Matches)}, nil
	})
	if _, err := s.published("changed", res, err); err != nil {
		return lunad.EditResult{}, err
	}
	if res.Replayed {
		matches = nil
		for i, t := range strings.Split(res.Version.Extra[matchTrailer], ",") {
			if t != "" {
				matches = append(matches, lunad.Match{Block: i, Tier: t})
			}
		}
	}
	return lunad.EditResult{Result: res, Matches: matches}, nil
}

// applier returns the function that applies the request to an artifact's
// content, the request's input in a canonical encoding
// (lunad.Change.Input): the blocks as parsed (so blocks given as text and
// as pairs are the same input), the patch, or the new content — and the
// file paths the blocks or the patch headers name.
func applier(r lunad.EditRequest) (apply func([]byte) (editor.Result, error), input []byte, named []namedPath, err error) {
	n := 0
	for _, set := range []bool{len(r.Blocks) > 0, r.BlocksText != "", r.Patch != "", r.Rewrite} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, nil, nil, fmt.Errorf("%w: give exactly one of SEARCH/REPLACE blocks, a patch, or new content", lunad.ErrInvalid)
	}
	switch {
	case r.BlocksText != "" || len(r.Blocks) > 0:
		blocks := make([]editor.Block, len(r.Blocks))
		for i, b := range r.Blocks {
			blocks[i] = editor.Block(b)
		}
		if r.BlocksText != "" {
			if blocks, err = editor.ParseBlocks(r.BlocksText); err != nil {
				return nil, nil, nil, classify(err)
			}
		}
		for i, b := range blocks {
			if b.Path != "" {
				named = append(named, namedPath{fmt.Sprintf("block %d", i+1), b.Path})
			}
		}
		return func(c []byte) (editor.Result, error) { return editor.ApplyBlocks(c, blocks) }, blocksInput(blocks), named, nil
	case r.Patch != "":
		for _, p := range editor.PatchPaths(r.Patch) {
			named = append(named, namedPath{"the patch's header", p})
		}
		return func(c []byte) (editor.Result, error) { return editor.ApplyPatch(c, r.Patch) }, canonical("patch", []byte(r.Patch)), named, nil
	default:
		return func(c []byte) (editor.Result, error) { return editor.Rewrite(c, r.Content) }, canonical("rewrite", r.Content), nil, nil
	}
}

// namedPath is a file path an edit's text names: where, and the path.
type namedPath struct{ where, path string }

// checkNamed refuses an edit whose blocks or patch headers name another
// file than the artifact it is applied to: the caller meant another
// artifact (or, with ../../etc/passwd, meant harm), and applying it here
// would change the wrong one.
func (s *Service) checkNamed(ctx context.Context, ref string, named []namedPath) error {
	if len(named) == 0 {
		return nil
	}
	a, err := s.store.Artifact(ctx, ref)
	if err != nil {
		return err
	}
	for _, n := range named {
		if !editor.SamePath(n.path, a.Path) {
			return fmt.Errorf("%w: %s names %s, but the artifact being edited is %s (%s); edit the artifact it was written for, or drop the file name", lunad.ErrInvalid, n.where, n.path, a.Path, a.ID)
		}
	}
	return nil
}

// blocksInput encodes SEARCH/REPLACE pairs for canonical.
func blocksInput(blocks []editor.Block) []byte {
	fields := make([][]byte, 0, 2*len(blocks))
	for _, b := range blocks {
		fields = append(fields, []byte(b.Search), []byte(b.Replace))
	}
	return canonical("blocks", fields...)
}

// canonical encodes an edit's kind and fields, each length-prefixed, so
// that different inputs never encode alike.
func canonical(kind string, fields ...[]byte) []byte {
	var b []byte
	for _, f := range append([][]byte{[]byte(kind)}, fields...) {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// classify marks the editor's input errors as invalid input; match
// failures stay "not applied".
func classify(err error) error {
	for _, e := range []error{editor.ErrBinary, editor.ErrInvalidUTF8, editor.ErrBadBlocks, editor.ErrBadPatch, editor.ErrEmptySearch} {
		if errors.Is(err, e) {
			return fmt.Errorf("%w: %w", lunad.ErrInvalid, err)
		}
	}
	return err
}

// toMatches is the editor's matches in the Workspace vocabulary.
func toMatches(ms []editor.Match) []lunad.Match {
	if ms == nil {
		return nil
	}
	out := make([]lunad.Match, len(ms))
	for i, m := range ms {
		out[i] = lunad.Match{Block: m.Block, Tier: string(m.Tier), StartLine: m.StartLine, EndLine: m.EndLine}
	}
	return out
}

func tiers(ms []editor.Match) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m.Tier)
	}
	return strings.Join(out, ",")
}

// Diff returns a unified diff of an artifact between versions from and to.
// to 0 means the current version; from 0 means the version before to.
func (s *Service) Diff(ctx context.Context, id string, from, to int) (string, error) {
	if to == 0 {
		a, err := s.store.Artifact(ctx, id)
		if err != nil {
			return "", err
		}
		to = a.Version
	}
	if from == 0 {
		from = to - 1
	}
	if from < 1 {
		return "", fmt.Errorf("%w: artifact %s has no version before %d", lunad.ErrNotFound, id, to)
	}
	a, aa, err := s.store.Read(ctx, id, strconv.Itoa(from))
	if err != nil {
		return "", err
	}
	b, ba, err := s.store.Read(ctx, id, strconv.Itoa(to))
	if err != nil {
		return "", err
	}
	return editor.Diff(aa.Path, ba.Path, a, b), nil
}

// Create adds an artifact.
func (s *Service) Create(ctx context.Context, spec lunad.CreateSpec) (lunad.Result, error) {
	res, err := s.store.Create(ctx, spec)
	return s.published("created", res, err)
}

// List returns every artifact on the current branch.
func (s *Service) List(ctx context.Context) ([]lunad.Artifact, error) { return s.store.List(ctx) }

// Artifact returns one artifact by ID or path.
func (s *Service) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	return s.store.Artifact(ctx, ref)
}

// Read returns content at "" (current), a version number or a commit.
func (s *Service) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	return s.store.Read(ctx, ref, at)
}

// History returns an artifact's versions, or all lunad commits for ref "".
func (s *Service) History(ctx context.Context, ref string) ([]lunad.Version, error) {
	return s.store.History(ctx, ref)
}

// Undo reverts the latest change not yet undone.
func (s *Service) Undo(ctx context.Context, req lunad.RefRequest) (lunad.Result, error) {
	res, err := s.store.Undo(ctx, req.Ref, req.Change)
	return s.published("changed", res, err)
}

// Redo reverts the latest undo.
func (s *Service) Redo(ctx context.Context, req lunad.RefRequest) (lunad.Result, error) {
	res, err := s.store.Redo(ctx, req.Ref, req.Change)
	return s.published("changed", res, err)
}

// Restore brings back the state of a version.
func (s *Service) Restore(ctx context.Context, req lunad.RestoreRequest) (lunad.Result, error) {
	res, err := s.store.Restore(ctx, req.Ref, req.Version, req.Change)
	return s.published("changed", res, err)
}

// Move renames an artifact's file.
func (s *Service) Move(ctx context.Context, req lunad.MoveRequest) (lunad.Result, error) {
	res, err := s.store.Move(ctx, req.Ref, req.Path, req.Change)
	return s.published("moved", res, err)
}

// Archive marks an artifact archived.
func (s *Service) Archive(ctx context.Context, req lunad.RefRequest) (lunad.Result, error) {
	res, err := s.store.Archive(ctx, req.Ref, req.Change)
	return s.published("archived", res, err)
}

// Remove deletes an artifact's file, keeping its metadata as removed.
func (s *Service) Remove(ctx context.Context, req lunad.RefRequest) (lunad.Result, error) {
	res, err := s.store.Remove(ctx, req.Ref, req.Change)
	return s.published("removed", res, err)
}

// Link records an explicit link.
func (s *Service) Link(ctx context.Context, req lunad.LinkRequest) (lunad.Result, error) {
	res, err := s.store.Link(ctx, req.Src, req.Dst, req.Kind, req.Change)
	return s.published("changed", res, err)
}

// Branch creates a branch at req.From ("" = HEAD).
func (s *Service) Branch(ctx context.Context, req lunad.BranchRequest) (lunad.Branch, error) {
	return s.store.Branch(ctx, req.Name, req.From)
}

// Switch checks out a branch.
func (s *Service) Switch(ctx context.Context, name string) (lunad.Branch, error) {
	b, err := s.store.Switch(ctx, name)
	if err == nil {
		s.events.Publish(lunad.Event{Kind: "branch", Commit: b.Commit})
	}
	return b, err
}

// Branches lists the branches.
func (s *Service) Branches(ctx context.Context) ([]lunad.Branch, error) { return s.store.Branches(ctx) }
