package window_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lunad/lunad"
)

// fakeSource is a window.Source over an in-memory workspace. Its symbols
// are the lines starting with "def ", "class " or "#" (headings), as the
// real index would find them in Python and Markdown.
type fakeSource struct {
	arts    []lunad.Artifact
	content map[string]string
	refs    map[string][]string // from ID -> target IDs, one per reference
	// reversed lists artifacts in reverse path order, to show that
	// Compile does not depend on the order List returns.
	reversed bool
	reads    int
	byRef    map[string]int // ID and path -> index in arts, made on first use
}

func newFake() *fakeSource {
	return &fakeSource{content: map[string]string{}, refs: map[string][]string{}}
}

func (f *fakeSource) add(id, path, typ, title, content string, links ...string) {
	a := lunad.Artifact{ID: id, Path: path, Type: typ, Title: title, Status: lunad.StatusActive, Version: 1}
	for _, l := range links {
		a.Links = append(a.Links, lunad.Link{To: l, Kind: "about"})
	}
	f.arts = append(f.arts, a)
	f.byRef = nil
	f.content[id] = content
}

func (f *fakeSource) find(ref string) (lunad.Artifact, error) {
	if f.byRef == nil {
		f.byRef = map[string]int{}
		for i, a := range f.arts {
			f.byRef[a.ID], f.byRef[a.Path] = i, i
		}
	}
	if i, ok := f.byRef[ref]; ok {
		return f.arts[i], nil
	}
	return lunad.Artifact{}, fmt.Errorf("%w: artifact %q", lunad.ErrNotFound, ref)
}

func (f *fakeSource) List(ctx context.Context) ([]lunad.Artifact, error) {
	if !slices.IsSortedFunc(f.arts, byPath) {
		slices.SortStableFunc(f.arts, byPath)
		f.byRef = nil
	}
	out := slices.Clone(f.arts)
	if f.reversed {
		slices.Reverse(out)
	}
	return out, nil
}

func byPath(a, b lunad.Artifact) int { return strings.Compare(a.Path, b.Path) }

func (f *fakeSource) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	a, err := f.find(ref)
	if err != nil {
		return nil, a, err
	}
	f.reads++
	return []byte(f.content[a.ID]), a, nil
}

func (f *fakeSource) Outgoing(ctx context.Context, ref string) ([]lunad.Reference, error) {
	a, err := f.find(ref)
	if err != nil {
		return nil, err
	}
	var out []lunad.Reference
	for _, to := range f.refs[a.ID] {
		t, err := f.find(to)
		if err != nil {
			return nil, err
		}
		out = append(out, lunad.Reference{From: lunad.Location{ID: a.ID, Path: a.Path}, Kind: "call", To: &lunad.Location{ID: t.ID, Path: t.Path}, State: lunad.RefOK})
	}
	return out, nil
}

func (f *fakeSource) Symbols(ctx context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error) {
	a, err := f.find(ref)
	if err != nil {
		return a, nil, err
	}
	var syms []lunad.Symbol
	for i, l := range strings.Split(f.content[a.ID], "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "def ") || strings.HasPrefix(l, "class ") || strings.HasPrefix(l, "#") {
			syms = append(syms, lunad.Symbol{Name: l, Kind: "function", Span: lunad.Span{Start: lunad.Position{Line: i}}})
		}
	}
	return a, syms, nil
}
