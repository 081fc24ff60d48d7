package gitstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

// Group commit. Callers queue operations; the first caller to find no batch
// running leads: it takes the workspace lock, runs every queued operation
// in turn (each one its own commit on top of the previous), makes all their
// objects durable with one round of fsyncs, moves the branch once by
// compare-and-swap, updates the working tree, and answers every caller.
// Operations queued meanwhile form the next batch. No goroutine outlives a
// call.

type request struct {
	op func(*txn) (lunad.Result, error)
	// deferred: the fsync of the branch's directory may wait for the
	// next syncfs (ApplyWritesDeferred).
	deferred bool
	res      lunad.Result
	err      error
	done     chan struct{}
}

type writeQueue struct {
	mu      sync.Mutex
	pending []*request
	leading bool
	idle    sync.Cond
}

// wait blocks until no batch is running or queued.
func (q *writeQueue) wait() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.idle.L == nil {
		q.idle.L = &q.mu
	}
	for q.leading || len(q.pending) > 0 {
		q.idle.Wait()
	}
}

// submit runs op in a batch and returns its result.
func (s *Store) submit(ctx context.Context, op func(*txn) (lunad.Result, error)) (lunad.Result, error) {
	return s.submitAs(ctx, op, false)
}

// submitAs is submit; deferred lets the batch leave the fsync of its
// branch's directory to the next syncfs when every request of the batch
// does (ApplyWritesDeferred).
func (s *Store) submitAs(ctx context.Context, op func(*txn) (lunad.Result, error), deferred bool) (lunad.Result, error) {
	if err := ctx.Err(); err != nil {
		return lunad.Result{}, err
	}
	r := &request{op: op, deferred: deferred, done: make(chan struct{})}
	q := &s.queue
	q.mu.Lock()
	if q.idle.L == nil {
		q.idle.L = &q.mu
	}
	q.pending = append(q.pending, r)
	lead := !q.leading
	q.leading = true
	q.mu.Unlock()
	if lead {
		for {
			q.mu.Lock()
			batch := q.pending
			q.pending = nil
			if len(batch) == 0 {
				q.leading = false
				q.idle.Broadcast()
				q.mu.Unlock()
				break
			}
			q.mu.Unlock()
			s.runBatch(ctx, batch)
		}
	}
	<-r.done
	return r.res, r.err
}

func (s *Store) runBatch(ctx context.Context, batch []*request) {
	defer func() {
		for _, r := range batch {
			close(r.done)
		}
	}()
	fail := func(err error) {
		err = diskHint(err)
		for _, r := range batch {
			if r.err == nil {
				r.res, r.err = lunad.Result{}, err
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		fail(fmt.Errorf("%w: store is closed", lunad.ErrInvalid))
		return
	}
	if err := s.lock.lock(context.WithoutCancel(ctx), s.opts.LockTimeout); err != nil {
		fail(err)
		return
	}
	defer s.lock.unlock()
	if err := s.recoverIfForeign(); err != nil {
		fail(err)
		return
	}
	// A git command run by hand may hold the branch's lock or move the
	// branch while the batch runs (lunad's workspace lock does not stop
	// git): the batch is then run again on the new state, for up to
	// LockTimeout, rather than failing writes that asked for no base.
	deadline := time.Now().Add(s.opts.LockTimeout)
	for attempt := 0; ; attempt++ {
		err := s.runBatchOnce(batch)
		var busy *refBusyError
		if !errors.As(err, &busy) || time.Now().After(deadline) {
			if err != nil {
				s.failCommitted(batch, err)
			} else {
				s.maybeConsolidate()
			}
			return
		}
		s.hist = nil // rebuilt from the repository on next use
		for _, r := range batch {
			r.res, r.err = lunad.Result{}, nil
		}
		time.Sleep(min(time.Duration(attempt+1)*5*time.Millisecond, 50*time.Millisecond))
	}
}

// runBatchOnce runs the batch's operations in one transaction on the
// current state and commits them. It returns finish's error, if any (the
// operations' own errors are in their requests).
func (s *Store) runBatchOnce(batch []*request) error {
	branch, tip, root, err := s.current()
	if err == nil {
		err = onBranch(branch, tip)
	}
	if err != nil {
		for _, r := range batch {
			r.res, r.err = lunad.Result{}, diskHint(err)
		}
		return nil
	}
	t := &txn{s: s, branch: branch, start: tip, tip: tip, root: root, startRoot: root, files: map[string]fileChange{}, old: map[string]node{}, seen: map[string]plumbing.Hash{},
		deferRef: !slices.ContainsFunc(batch, func(r *request) bool { return !r.deferred })}
	for _, r := range batch {
		mark := t.mark()
		r.res, r.err = r.op(t)
		var kept *keptError
		if errors.As(r.err, &kept) {
			r.err, mark = kept.err, kept.mark
		}
		if r.err != nil {
			r.err = diskHint(r.err)
			t.rollback(mark)
		}
	}
	if t.tip == t.start {
		return nil // nothing to commit (all failed, or all replayed)
	}
	err = t.finish()
	if werr, ok := err.(*workTreeError); ok {
		for _, r := range batch {
			if r.err == nil && !r.res.Replayed {
				r.res.Warning = werr.Error()
			}
		}
		return nil
	}
	return err
}

// failCommitted fails the batch's writes that succeeded in its
// transaction, which finish could not commit.
func (s *Store) failCommitted(batch []*request, err error) {
	err = diskHint(err)
	s.hist = nil // rebuilt from the repository on next use
	for _, r := range batch {
		if r.err == nil && !r.res.Replayed {
			r.res, r.err = lunad.Result{}, err
		}
	}
}

// txn is one batch's view of the branch as its operations commit.
type txn struct {
	s          *Store
	branch     string
	start, tip plumbing.Hash // commits
	startRoot  plumbing.Hash // tree of start
	root       plumbing.Hash // tree of tip
	files      map[string]fileChange
	old        map[string]node          // state at start of each touched path (zero hash: absent)
	seen       map[string]plumbing.Hash // working-tree blob found by the batch's check of a path (commitHumanChanges)
	entries    []*entry
	// deferRef: every request of the batch lets the fsync of the
	// branch's directory wait for the next syncfs (ApplyWritesDeferred).
	deferRef bool
}

type txnMark struct {
	tip, root plumbing.Hash
	entries   int
	files     map[string]fileChange
}

func (t *txn) mark() txnMark {
	files := make(map[string]fileChange, len(t.files))
	for k, v := range t.files {
		files[k] = v
	}
	return txnMark{t.tip, t.root, len(t.entries), files}
}

func (t *txn) rollback(m txnMark) {
	for len(t.entries) > m.entries {
		t.s.hist.remove(t.entries[len(t.entries)-1])
		t.entries = t.entries[:len(t.entries)-1]
	}
	t.tip, t.root, t.files = m.tip, m.root, m.files
	t.s.hist.tip = t.tip
}

// commit writes one commit on top of the transaction's tip.
func (t *txn) commit(changes map[string]fileChange, rec record, body string, author Signature) (*entry, error) {
	for p, c := range changes {
		if _, seen := t.old[p]; !seen {
			n, err := t.s.lookup(t.startRoot, p)
			if err != nil {
				n = node{}
			}
			t.old[p] = n
		}
		t.files[p] = c
	}
	root, err := t.s.rewriteTree(t.root, changes)
	if err != nil {
		return nil, err
	}
	now := t.s.opts.Clock()
	c := &commitObject{
		Tree:      root,
		Author:    signature{Name: author.Name, Email: author.Email, When: now},
		Committer: signature{Name: "lunad", Email: "lunad@localhost", When: now},
		Message:   rec.message(body),
	}
	if !t.tip.IsZero() {
		c.Parents = []plumbing.Hash{t.tip}
	}
	h, err := t.s.writeCommit(c)
	if err != nil {
		return nil, err
	}
	e := &entry{Commit: h.String(), Unix: now.Unix(), Author: author.Name, Rec: rec, Lunad: true}
	if !t.tip.IsZero() {
		e.Parents = []string{t.tip.String()}
	}
	t.tip, t.root = h, root
	t.entries = append(t.entries, e)
	t.s.hist.add(e)
	t.s.hist.tip = h
	return e, nil
}

// diskHint says what to do about the filesystem errors users meet.
func diskHint(err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("the disk is full; nothing was committed, free some space and retry: %w", err)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("the workspace is on a read-only filesystem; nothing was committed: %w", err)
	case errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("the disk quota is exhausted; nothing was committed: %w", err)
	}
	return err
}

// keptError is an operation's failure that keeps what it committed up to
// mark: a stage write refused for a conflict with a person's save keeps
// that save recorded, so that the version the conflict names exists.
type keptError struct {
	err  error
	mark txnMark
}

func (e *keptError) Error() string { return e.err.Error() }
func (e *keptError) Unwrap() error { return e.err }
