package workspace

import (
	"context"
	"path/filepath"

	"github.com/lunad/lunad"
)

// What the file watcher (package watch) and the daemon use of the
// Service beyond lunad.Workspace: the store's view of HEAD and of the
// working tree, recording a person's saves, and announcing changes found
// outside the Service.

// Publish announces a change found outside the Service's own writes (the
// watcher calls it).
func (s *Service) Publish(e lunad.Event) { s.events.Publish(e) }

// StateDir is the directory where the store keeps its lock and caches and
// the daemon its socket and log: <git dir>/luna.
func (s *Service) StateDir() string { return filepath.Dir(s.store.CacheDir()) }

// Head returns the branch HEAD is on ("" when detached) and its commit, as
// they are on disk (see gitstore.Store.Head).
func (s *Service) Head() (branch, commit string, err error) { return s.store.Head() }

// Changed returns the IDs of the artifacts whose file or metadata differ
// between two commits (see gitstore.Store.Changed).
func (s *Service) Changed(ctx context.Context, from, to string) ([]string, error) {
	return s.store.Changed(ctx, from, to)
}

// Dirty returns the IDs of the artifacts whose working-tree file differs
// from HEAD's content (see gitstore.Store.Dirty).
func (s *Service) Dirty(ctx context.Context) ([]string, error) { return s.store.Dirty(ctx) }

// SyncGitIndex brings .git/index up to date with HEAD for the paths lunad
// changed (see gitstore.Store.SyncIndex).
func (s *Service) SyncGitIndex(ctx context.Context) error { return s.store.SyncIndex(ctx) }

// Record commits the changes a person saved in an artifact's file as a
// human version (see gitstore.Store.Record) and announces it with a
// "changed" event ("removed" for a file the person deleted). It reports
// false, committing nothing, when the file is HEAD's.
func (s *Service) Record(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, bool, error) {
	res, ok, err := s.store.Record(ctx, ref, ch)
	if err != nil || !ok {
		return res, ok, err
	}
	kind := "changed"
	if res.Version.Op == lunad.OpRemove {
		kind = "removed"
	}
	res, err = s.published(kind, res, nil)
	return res, true, err
}

// Reindex brings the reference index up to date after HEAD moved. The
// artifacts in ids are re-parsed even if their latest version is the one
// indexed: a commit made with plain git changes content without making a
// version.
func (s *Service) Reindex(ctx context.Context, ids []string) error {
	s.refs.Forget(ids)
	_, err := s.refIndex(ctx)
	return err
}
