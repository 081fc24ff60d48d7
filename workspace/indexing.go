package workspace

import (
	"context"
	"sync"

	"github.com/lunad/lunad/workspace/refindex"
)

// buildProgress is how far the cold build of the reference index has
// come, for the IndexReferences calls waiting on it. The build reports to
// it from the parse workers (report only records the figure and wakes the
// waiting calls); each call tells its caller from its own goroutine, so
// that a slow caller — a daemon client behind a full socket — never holds
// the build up, and one that falls behind is told the latest figure.
// The calls are woken when a build starts, each time the whole percentage
// parsed rises, and when every artifact is parsed: at most 102 times per
// build, however many artifacts.
type buildProgress struct {
	mu      sync.Mutex
	builds  int  // builds started so far; the current or last one's number
	running bool // build number builds is under way
	done    int
	total   int
	waiting map[chan struct{}]struct{}
	// hook, if set (tests), is called by report after it has recorded
	// the figure, from the parse worker, outside the lock.
	hook func(done, total int)
}

// start says a build of total artifacts begins and returns its number.
func (b *buildProgress) start(total int) (build int) {
	b.mu.Lock()
	b.builds++
	b.running, b.done, b.total = true, 0, total
	b.wakeLocked()
	build, hook := b.builds, b.hook
	b.mu.Unlock()
	if hook != nil {
		hook(0, total)
	}
	return build
}

// report says the build under way has parsed done of its total artifacts.
func (b *buildProgress) report(done, total int) {
	b.mu.Lock()
	if percent(done, total) > percent(b.done, b.total) || done == total {
		b.wakeLocked()
	}
	b.done, b.total = done, total
	hook := b.hook
	b.mu.Unlock()
	if hook != nil {
		hook(done, total)
	}
}

// wakeLocked wakes every waiting call; b.mu is held.
func (b *buildProgress) wakeLocked() {
	for w := range b.waiting {
		select {
		case w <- struct{}{}:
		default: // already woken: it reads the latest figure
		}
	}
}

// end says build number build has returned, built or failed.
func (b *buildProgress) end(build int) {
	b.mu.Lock()
	if b.builds == build {
		b.running = false
	}
	b.mu.Unlock()
}

// percent is the whole percentage of done in total.
func percent(done, total int) int { return 100 * done / max(total, 1) }

// watch registers a waiting call. It returns the channel that wakes it
// (woken already when a build is under way, so that the call tells its
// figure at once), the number of the first build it is told of, and the
// function that unregisters it.
func (b *buildProgress) watch() (wake chan struct{}, first int, stop func()) {
	wake = make(chan struct{}, 1)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.waiting == nil {
		b.waiting = map[chan struct{}]struct{}{}
	}
	b.waiting[wake] = struct{}{}
	first = b.builds + 1
	if b.running {
		first = b.builds
		wake <- struct{}{}
	}
	return wake, first, func() {
		b.mu.Lock()
		delete(b.waiting, wake)
		b.mu.Unlock()
	}
}

// figure is the latest figure and the number of its build.
func (b *buildProgress) figure() (build, done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.builds, b.done, b.total
}

// refIndex brings the reference index up to date with the current branch
// and returns it (see refindex.Live.Sync); a cold build reports to
// s.building, whoever asked for the index.
func (s *Service) refIndex(ctx context.Context) (*refindex.Index, error) {
	build := 0 // set by the first progress call, before SyncReporting returns
	ix, err := s.refs.SyncReporting(ctx, func(done, total int) {
		if build == 0 {
			build = s.building.start(total) // refindex tells (0, total) first
			return
		}
		s.building.report(done, total)
	})
	if build != 0 {
		s.building.end(build)
	}
	return ix, err
}

// IndexReferences brings the reference index up to date, telling progress
// (artifacts parsed of all) while the cold index is built — a build this
// call starts, or one under way, whose current figure it tells at once:
// what `lunad init`, the CLI on a terminal and the language server call so
// that a long build is shown (see lunad.Referencer). progress may be nil;
// it is called from this call's goroutine, one call at a time.
func (s *Service) IndexReferences(ctx context.Context, progress func(done, total int)) error {
	if progress == nil {
		_, err := s.refIndex(ctx)
		return err
	}
	wake, first, stop := s.building.watch()
	defer stop()
	synced := make(chan error, 1)
	go func() { // ends before IndexReferences returns: it waits for synced
		_, err := s.refIndex(ctx)
		synced <- err
	}()
	told := [3]int{first - 1, -1, -1} // the build, done and total told last
	tell := func() {
		build, done, total := s.building.figure()
		if fig := [3]int{build, done, total}; build >= first && fig != told {
			told = fig
			progress(done, total)
		}
	}
	for {
		select {
		case <-wake:
			tell()
		case err := <-synced:
			if err == nil {
				tell() // the last figure, if the build got ahead of this call
			}
			return err
		}
	}
}
