package ask

import (
	"context"
	"fmt"
	"slices"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/tools"
)

// withheld is the workspace as the agents may see it: the artifacts whose
// content the workspace's policy denies reading (Options.Reads) are left
// out of listings, and reading one — its content, its references, its
// symbols — is refused, so no tool and no compiled context shows them.
// A refusal wraps lunad.ErrInvalid, never ErrNotFound: a create over a
// withheld artifact is refused as well. The recording of a stage's reads
// is made over it, so nothing withheld is recorded either.
type withheld struct {
	Source
	reads func(path string) error
}

// hide is ws with the paths reads refuses withheld; ws itself when reads
// is nil.
func hide(ws Source, reads func(path string) error) Source {
	if reads == nil {
		return ws
	}
	return withheld{ws, reads}
}

// check refuses an artifact whose path is withheld.
func (w withheld) check(a lunad.Artifact) error {
	if err := w.reads(a.Path); err != nil {
		return fmt.Errorf("%w: %s is withheld from the agents: %v", lunad.ErrInvalid, a.Path, err)
	}
	return nil
}

func (w withheld) visible(p string) bool { return p == "" || w.reads(p) == nil }

func (w withheld) List(ctx context.Context) ([]lunad.Artifact, error) {
	arts, err := w.Source.List(ctx)
	return slices.DeleteFunc(arts, func(a lunad.Artifact) bool { return !w.visible(a.Path) }), err
}

func (w withheld) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	a, err := w.Source.Artifact(ctx, ref)
	if err != nil {
		return a, err
	}
	return a, w.check(a)
}

// Read refuses an artifact withheld now or at the version read.
func (w withheld) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	cur, err := w.Artifact(ctx, ref)
	if err != nil {
		return nil, cur, err
	}
	b, a, err := w.Source.Read(ctx, ref, at)
	if err != nil {
		return nil, a, err
	}
	if err := w.check(a); err != nil {
		return nil, lunad.Artifact{}, err
	}
	return b, a, nil
}

// Refs refuses a withheld artifact's, and leaves out the references
// written in withheld artifacts (their text is the artifact's).
func (w withheld) Refs(ctx context.Context, ref string) (lunad.RefReport, error) {
	if _, err := w.Artifact(ctx, ref); err != nil {
		return lunad.RefReport{}, err
	}
	rep, err := w.Source.Refs(ctx, ref)
	rep.Incoming = w.written(rep.Incoming)
	return rep, err
}

func (w withheld) Outgoing(ctx context.Context, ref string) ([]lunad.Reference, error) {
	if _, err := w.Artifact(ctx, ref); err != nil {
		return nil, err
	}
	return w.Source.Outgoing(ctx, ref)
}

func (w withheld) Symbols(ctx context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error) {
	if a, err := w.Artifact(ctx, ref); err != nil {
		return a, nil, err
	}
	return w.Source.Symbols(ctx, ref)
}

func (w withheld) Stale(ctx context.Context) ([]lunad.Reference, error) {
	refs, err := w.Source.Stale(ctx)
	return w.written(refs), err
}

// FileAt is the workspace's (tools.FileAt): a withheld file is a file.
func (w withheld) FileAt(ctx context.Context, path string) (bool, error) {
	return tools.FileAt(ctx, w.Source, path)
}

// written leaves out the references written in withheld artifacts.
func (w withheld) written(refs []lunad.Reference) []lunad.Reference {
	return slices.DeleteFunc(refs, func(r lunad.Reference) bool { return !w.visible(r.From.Path) })
}
