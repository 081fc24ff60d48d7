package tools

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/lunad/lunad"
)

// Source is what the tools read: a subset of lunad.Reader and
// lunad.Referencer (a lunad.Workspace implements it). Errors as theirs:
// lunad.ErrNotFound for an unknown artifact.
type Source interface {
	List(ctx context.Context) ([]lunad.Artifact, error)
	Artifact(ctx context.Context, ref string) (lunad.Artifact, error)
	Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error)
	Refs(ctx context.Context, ref string) (lunad.RefReport, error)
	Outgoing(ctx context.Context, ref string) ([]lunad.Reference, error)
	Symbols(ctx context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error)
}

// Overlay is a stage's changes staged over a Source: reads see the staged
// content, nothing reaches the workspace. A new artifact's ID is its path
// until the engine commits it. Safe for concurrent use.
type Overlay struct {
	src    Source
	typeOf func(path string) string

	mu     sync.Mutex
	staged map[string]*staged // by path
	plans  map[string]lunad.NewArtifact
}

type staged struct {
	art      lunad.Artifact
	content  []byte
	original []byte // nil for a new artifact
	created  bool
	// base is the commit of the version original is (the write's Base);
	// edits the SEARCH/REPLACE blocks that took original to content, in
	// order, unless a rewrite made them not the whole story (rewritten).
	base      string
	edits     []lunad.Block
	rewritten bool
}

// Change is one staged artifact and the size of its change.
type Change struct {
	Artifact lunad.Artifact
	Created  bool
	Added    int
	Removed  int
}

// NewOverlay stages changes over src. typeOf infers a new artifact's type
// from its path (nil: TypeForPath).
func NewOverlay(src Source, typeOf func(path string) string) *Overlay {
	if typeOf == nil {
		typeOf = TypeForPath
	}
	return &Overlay{src: src, typeOf: typeOf, staged: map[string]*staged{}, plans: map[string]lunad.NewArtifact{}}
}

// Plan announces an artifact the stage is to create (the route's
// new_artifact): a create_artifact at its path that names no title or no
// type takes the plan's.
func (o *Overlay) Plan(a lunad.NewArtifact) {
	if a.Path == "" {
		return
	}
	o.mu.Lock()
	o.plans[a.Path] = a
	o.mu.Unlock()
}

// newMeta is the title and type of a new artifact at p: the given ones,
// else the plan's for p, else the file's name and the type inferred from p.
func (o *Overlay) newMeta(p, title, typ string) (string, string) {
	o.mu.Lock()
	plan := o.plans[p]
	o.mu.Unlock()
	if title == "" {
		title = cmp.Or(plan.Title, path.Base(p))
	}
	if typ == "" {
		typ = cmp.Or(plan.Type, o.typeOf(p))
	}
	return title, typ
}

// declaredType is the type a model gave a new artifact at p: typ, else
// the plan's ("" when neither did, and the type is inferred).
func (o *Overlay) declaredType(p, typ string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return cmp.Or(typ, o.plans[p].Type)
}

// Source is the Source the overlay stages over.
func (o *Overlay) Source() Source { return o.src }

// lookup finds a staged artifact by ID or path.
func (o *Overlay) lookup(ref string) *staged {
	if s, ok := o.staged[ref]; ok {
		return s
	}
	for _, s := range o.staged {
		if s.art.ID == ref {
			return s
		}
	}
	return nil
}

// Read returns an artifact's content: at "" the staged or current one, at
// a version or commit the Source's.
func (o *Overlay) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	if at != "" {
		return o.src.Read(ctx, ref, at)
	}
	o.mu.Lock()
	s := o.lookup(ref)
	if s != nil {
		c, a := bytes.Clone(s.content), s.art
		o.mu.Unlock()
		return c, a, nil
	}
	o.mu.Unlock()
	return o.src.Read(ctx, ref, "")
}

// Artifact returns an artifact's metadata, staged or current.
func (o *Overlay) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	o.mu.Lock()
	s := o.lookup(ref)
	o.mu.Unlock()
	if s != nil {
		return s.art, nil
	}
	return o.src.Artifact(ctx, ref)
}

// List is the Source's artifacts and the new ones, sorted by path.
func (o *Overlay) List(ctx context.Context) ([]lunad.Artifact, error) {
	arts, err := o.src.List(ctx)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	for _, s := range o.staged {
		if s.created {
			arts = append(arts, s.art)
		}
	}
	o.mu.Unlock()
	slices.SortFunc(arts, func(a, b lunad.Artifact) int { return strings.Compare(a.Path, b.Path) })
	return arts, nil
}

// Outgoing is the Source's: the references of the committed content.
// ErrInvalid for a new artifact, not indexed before it is committed.
func (o *Overlay) Outgoing(ctx context.Context, ref string) ([]lunad.Reference, error) {
	if err := o.unindexed(ref); err != nil {
		return nil, err
	}
	return o.src.Outgoing(ctx, ref)
}

// Symbols is the Source's: the symbols of the committed content.
// ErrInvalid for a new artifact, not indexed before it is committed.
func (o *Overlay) Symbols(ctx context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error) {
	if err := o.unindexed(ref); err != nil {
		return lunad.Artifact{}, nil, err
	}
	return o.src.Symbols(ctx, ref)
}

func (o *Overlay) unindexed(ref string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if s := o.lookup(ref); s != nil && s.created {
		return fmt.Errorf("%w: %s is new in this stage and not indexed before it is committed", lunad.ErrInvalid, s.art.Path)
	}
	return nil
}

// stage sets an existing artifact's new content, made by edits (nil: a
// rewrite).
func (o *Overlay) stage(ctx context.Context, art lunad.Artifact, content []byte, edits []lunad.Block) error {
	o.mu.Lock()
	s := o.lookup(art.Path)
	o.mu.Unlock()
	if s == nil {
		orig, at, err := o.src.Read(ctx, art.ID, "")
		if err != nil {
			return err
		}
		s = &staged{art: art, original: orig, base: at.Commit}
	}
	s.content = bytes.Clone(content)
	if edits == nil {
		s.rewritten, s.edits = true, nil
	} else if !s.rewritten {
		s.edits = append(s.edits, edits...)
	}
	o.mu.Lock()
	o.staged[art.Path] = s
	o.mu.Unlock()
	return nil
}

// create stages a new artifact at p. ErrExists if an artifact is there;
// ErrInvalid for a path that is not a clean relative file path outside
// .git and .luna.
func (o *Overlay) create(ctx context.Context, p, title, typ string, content []byte) (lunad.Artifact, error) {
	if err := checkPath(p); err != nil {
		return lunad.Artifact{}, err
	}
	if a, err := o.Artifact(ctx, p); err == nil {
		return lunad.Artifact{}, fmt.Errorf("%w: artifact %s is already at %s: edit it (edit_artifact) or choose another path", lunad.ErrExists, a.ID, p)
	} else if !errors.Is(err, lunad.ErrNotFound) {
		return lunad.Artifact{}, err
	}
	if err := o.noFileAt(ctx, p); err != nil {
		return lunad.Artifact{}, err
	}
	title, typ = o.newMeta(p, title, typ)
	a := lunad.Artifact{ID: p, Path: p, Type: typ, Title: title, Status: lunad.StatusActive}
	o.mu.Lock()
	o.staged[p] = &staged{art: a, content: bytes.Clone(content), created: true}
	o.mu.Unlock()
	return a, nil
}

// lunadDir reports whether p is in .git or .luna, ignoring case.
func lunadDir(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return strings.EqualFold(first, ".git") || strings.EqualFold(first, ".luna")
}

func checkPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%w: path is empty: give the new artifact's path relative to the workspace (e.g. docs/intro.md)", lunad.ErrInvalid)
	case path.IsAbs(p) || path.Clean(p) != p || strings.HasPrefix(p, "../") || p == "..":
		return fmt.Errorf("%w: path %q must be relative to the workspace and clean (no leading /, no .., no ./)", lunad.ErrInvalid, p)
	case lunadDir(p):
		return fmt.Errorf("%w: path %q is inside %s, which holds lunad's own state: choose a path outside it", lunad.ErrInvalid, p, strings.SplitN(p, "/", 2)[0])
	case strings.ContainsAny(p, "\\\x00"):
		return fmt.Errorf("%w: path %q contains a backslash or a NUL byte", lunad.ErrInvalid, p)
	}
	return nil
}

// created reports whether the artifact at p is new in this stage.
func (o *Overlay) created(p string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.staged[p]
	return s != nil && s.created
}

// Writes are the staged contents, sorted by path: what the stage returns
// for the engine to commit; a new artifact's carries its title and type,
// which the workspace creates it with. A staged artifact whose content
// equals its original is left out.
func (o *Overlay) Writes() []lunad.StageWrite {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []lunad.StageWrite
	for p, s := range o.staged {
		if !s.created && bytes.Equal(s.content, s.original) {
			continue
		}
		w := lunad.StageWrite{Path: p, Content: string(s.content)}
		if s.created {
			w.Title, w.Type = s.art.Title, s.art.Type
		} else {
			// The version it was computed from, and how: the workspace
			// merges it into a version a person saved meanwhile.
			w.Base, w.Edits = s.base, slices.Clone(s.edits)
		}
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b lunad.StageWrite) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Changes are the staged artifacts that differ from their original, with
// the lines added and removed, sorted by path.
func (o *Overlay) Changes() []Change {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []Change
	for _, s := range o.staged {
		if !s.created && bytes.Equal(s.content, s.original) {
			continue
		}
		add, del := LineDelta(s.original, s.content)
		out = append(out, Change{Artifact: s.art, Created: s.created, Added: add, Removed: del})
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Artifact.Path, b.Artifact.Path) })
	return out
}

// LineDelta counts the lines added and removed from a to b (a multiset
// difference of lines: a moved line counts as neither).
func LineDelta(a, b []byte) (added, removed int) {
	count := map[string]int{}
	for _, l := range splitLines(a) {
		count[l]++
	}
	for _, l := range splitLines(b) {
		if count[l] > 0 {
			count[l]--
		} else {
			added++
		}
	}
	for _, n := range count {
		removed += n
	}
	return added, removed
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(b), "\n")
	return strings.Split(s, "\n")
}

// codeExt are the extensions of code and configuration files.
var codeExt = map[string]string{
	".go": "code/go", ".py": "code/python", ".js": "code/javascript", ".ts": "code/typescript",
	".rs": "code/rust", ".java": "code/java", ".c": "code/c", ".h": "code/c", ".cpp": "code/cpp",
	".rb": "code/ruby", ".sh": "code/shell", ".lua": "code/lua", ".sql": "code/sql",
	".toml": "config/toml", ".yaml": "config/yaml", ".yml": "config/yaml", ".json": "config/json",
}

// TypeForPath is the default type of a new artifact: code/… or config/…
// for the usual code and configuration extensions, text/markdown for .md,
// else text/plain. The workspace's own inference (gitstore.TypeForPath)
// can be given to NewOverlay instead; a new artifact is committed with the
// type the overlay gave it.
func TypeForPath(p string) string {
	ext := strings.ToLower(path.Ext(p))
	if t, ok := codeExt[ext]; ok {
		return t
	}
	if ext == ".md" || ext == ".markdown" {
		return "text/markdown"
	}
	return "text/plain"
}

// IsCode reports whether an artifact type is code or configuration (the
// coder's), as opposed to prose (the writer's).
func IsCode(typ string) bool {
	return strings.HasPrefix(typ, "code/") || strings.HasPrefix(typ, "config/")
}
