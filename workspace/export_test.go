package workspace

import (
	"context"

	"github.com/lunad/lunad"
)

// For the tests of the parse cache's life (package workspace_test).

func (s *Service) CloseIndex() error { return s.closeRefIndex() }
func (s *Service) CacheFile() string { return s.cacheFile() }

// For the tests of Stale's cache: how many whole-workspace evaluations ran,
// and the evaluation without the cache.

func (s *Service) StaleEvaluations() int64 { return s.stale.evals.Load() }
func (s *Service) StaleUncached(ctx context.Context) ([]lunad.Reference, error) {
	return s.evaluateStale(ctx)
}

// For the tests of the index build's progress: hook is called with each
// figure the build reports, from the parse worker, which waits for it.

func SetIndexHook(s *Service, hook func(done, total int)) { s.building.hook = hook }

// MergeStageWrite is the store's merger of stage writes, for its table test.
var MergeStageWrite = mergeStageWrite

// StaleFile is where the Stale answer is saved, for the tests of its life.
func (s *Service) StaleFile() string { return s.staleFile() }
