package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/atomicfile"
)

// Appends to run logs are group-committed: the callers that arrive while
// one batch is being made durable queue up, and the next leader writes all
// their event commits, makes them and every run ref's new value durable
// with one filesystem sync, renames each ref, and fsyncs the runs
// directory once. Runs driven at once then share the cost of durability
// instead of waiting for each other's syncs one by one. An append's
// compare-and-swap and its errors are its own: one failing append does
// not fail the others of its batch.

// runAppend is one caller's append (or replacement) and its outcome.
type runAppend struct {
	runID   string
	after   plumbing.Hash
	recs    []lunad.RunRecord
	replace bool
	// deferred: the directory's fsync may wait for the next syncfs
	// (AppendRunDeferred).
	deferred bool

	tip  plumbing.Hash
	err  error
	done chan struct{}
}

// runAppendQueue holds the appends waiting for a leader.
type runAppendQueue struct {
	mu      sync.Mutex
	pending []*runAppend
	leading bool
}

// submit queues a and, if no caller is leading, leads batches until the
// queue is empty; it returns a's new tip.
func (q *runAppendQueue) submit(ctx context.Context, s *Store, a *runAppend) (string, error) {
	a.done = make(chan struct{})
	q.mu.Lock()
	q.pending = append(q.pending, a)
	lead := !q.leading
	q.leading = true
	q.mu.Unlock()
	for lead {
		q.mu.Lock()
		batch := q.pending
		q.pending = nil
		if len(batch) == 0 {
			q.leading = false
			lead = false
		}
		q.mu.Unlock()
		if len(batch) > 0 {
			s.appendRuns(ctx, batch)
		}
	}
	<-a.done
	if a.err != nil {
		return "", a.err
	}
	return a.tip.String(), nil
}

// appendRuns makes one batch of appends durable.
func (s *Store) appendRuns(ctx context.Context, batch []*runAppend) {
	defer func() {
		for _, a := range batch {
			close(a.done)
		}
	}()
	fail := func(err error) {
		for _, a := range batch {
			if a.err == nil {
				a.err = err
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		fail(fmt.Errorf("%w: store is closed", lunad.ErrInvalid))
		return
	}
	if err := s.lockRuns(context.WithoutCancel(ctx)); err != nil {
		fail(err)
		return
	}
	defer s.runs.lock.unlock()

	// Each run's ref moves once, from where it was to its last new tip.
	moves := map[string]*runMove{}
	var order []string
	for _, a := range batch {
		m := moves[a.runID]
		if m == nil {
			cur, err := readRef(s.commonDir, runRefPrefix+a.runID)
			if errors.Is(err, lunad.ErrNotFound) {
				cur, err = plumbing.ZeroHash, nil
			}
			if err != nil {
				a.err = err
				continue
			}
			m = &runMove{from: cur, to: cur}
			moves[a.runID] = m
			order = append(order, a.runID)
		}
		if a.err = runCAS(a.runID, a.after, m.to); a.err != nil {
			continue
		}
		if a.tip, a.err = s.writeRunCommits(a); a.err != nil {
			continue
		}
		m.to = a.tip
		m.appends = append(m.appends, a)
	}

	var updates []*refUpdate
	for _, id := range order {
		m := moves[id]
		if len(m.appends) == 0 {
			continue
		}
		u, err := prepareRef(s.commonDir, runRefPrefix+id, m.from, m.to)
		if err != nil {
			var busy *refBusyError
			if errors.As(err, &busy) {
				err = busy.err
			}
			if m.from.IsZero() && errors.Is(err, lunad.ErrConflict) {
				err = fmt.Errorf("%w: run %q (created by another writer)", lunad.ErrExists, id)
			}
			for _, a := range m.appends {
				a.err = err
			}
			continue
		}
		updates = append(updates, u)
	}
	if len(updates) == 0 {
		return
	}
	locks := make([]*os.File, len(updates))
	for i, u := range updates {
		locks[i] = u.lock
	}
	if err := s.objs.sync(locks...); err != nil {
		for _, u := range updates {
			u.abort()
		}
		fail(diskHint(err))
		return
	}
	var renameErr error
	for _, u := range updates {
		if err := u.rename(); err != nil {
			renameErr = err
		}
	}
	// One fsync of the directory makes every rename of the batch durable,
	// unless each append of the batch lets it wait for the next syncfs,
	// which only a file system with syncfs makes.
	var dirErr error
	if s.objs.perFile || slices.ContainsFunc(updates, func(u *refUpdate) bool { return !moves[strings.TrimPrefix(u.name, runRefPrefix)].deferred() }) {
		dirErr = atomicfile.Sync(filepath.Join(s.commonDir, filepath.FromSlash(runRefPrefix)))
		s.runs.dirSyncs++
		s.runs.unsynced = false
	} else {
		s.runs.unsynced = true
	}
	defer s.maybeConsolidate()
	for _, id := range order {
		m := moves[id]
		if len(m.appends) == 0 || m.appends[0].err != nil {
			continue
		}
		if renameErr == nil && dirErr == nil {
			continue
		}
		// The ref may or may not have moved: say so when it did not.
		if h, err := readRef(s.commonDir, runRefPrefix+id); err != nil || h != m.to {
			for _, a := range m.appends {
				a.err = diskHint(errors.Join(renameErr, dirErr))
			}
		} else if dirErr != nil {
			for _, a := range m.appends {
				a.err = diskHint(dirErr) // moved, but not yet durably: the tip is still returned by RunLog
			}
		}
	}
}

// runMove is one run ref's move in a batch of appends: from where it was
// to its last new tip, for the appends that landed on it.
type runMove struct {
	from, to plumbing.Hash
	appends  []*runAppend
}

// deferred reports whether every append of the move may leave the
// directory's fsync to the next syncfs.
func (m *runMove) deferred() bool {
	return !slices.ContainsFunc(m.appends, func(a *runAppend) bool { return !a.deferred })
}

// writeRunCommits writes a's event commits on top of a.after (none, for a
// replacement) and returns the last one.
func (s *Store) writeRunCommits(a *runAppend) (plumbing.Hash, error) {
	seq := 0
	if !a.after.IsZero() && !a.replace {
		rc, err := s.runCommit(a.after)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		seq = rc.seq
	}
	parent := a.after
	if a.replace {
		parent = plumbing.ZeroHash
	}
	for _, rec := range a.recs {
		seq++
		var err error
		if parent, err = s.writeRunCommit(a.runID, parent, seq, rec); err != nil {
			return plumbing.ZeroHash, diskHint(err)
		}
	}
	return parent, nil
}
