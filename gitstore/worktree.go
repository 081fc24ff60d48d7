package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// The working tree follows the branch. After the ref moves, the files a
// batch changed are written (temp file swapped in, never over a save made
// since lunad looked: see workwrite.go). Before the ref moves, one
// line per changed path is appended to .git/luna/pending:
//
//	<session> <blob before|-> <blob after|-> <path>
//
// where session identifies the Store that wrote it, so that a store can
// tell the lines other processes left.
// The pending list serves twice. After a crash between the ref update and
// the file writes, a file still holding one of the listed states is brought
// to HEAD's state (anything else is a person's change and is left alone).
// And it is the queue of paths whose .git/index entries must be refreshed:
// a store with Options.IndexSyncDelay (the daemon's) patches them before
// the batch answers; what that leaves, and a one-shot store's whole list,
// is synced after the delay, on Close, or when another process finds the
// list left behind.

const pendingName = "pending"

// finish makes the batch durable and visible: objects, pending list, ref,
// working tree, history cache, and (with IndexSyncDelay) the index entries
// of the paths it touched.
func (t *txn) finish() error {
	s := t.s
	var buf bytes.Buffer
	for p, c := range t.files {
		nw := c.hash
		if c.del {
			nw = plumbing.ZeroHash
		}
		s.pendingLine(&buf, t.old[p].hash, nw, p)
		if seen := t.expect(p); seen != t.old[p].hash {
			// The file held a person's change, committed in this batch as
			// a human version: recovery may replace that state too.
			s.pendingLine(&buf, seen, nw, p)
		}
	}
	pendingPath := filepath.Join(s.lunaDir, pendingName)
	var before int64
	if fi, err := os.Stat(pendingPath); err == nil {
		before = fi.Size()
	}
	if err := s.appendPending(buf.Bytes()); err != nil {
		return err
	}
	// If the ref does not move, this batch's lines must go: they would make
	// the next recovery or index sync treat files lunad never wrote (a
	// person's changes, committed first as "human") as lunad's, and put
	// them back to HEAD.
	unpend := func(err error) error {
		if terr := os.Truncate(pendingPath, before); terr != nil {
			return errors.Join(err, fmt.Errorf("pending list: %w", terr))
		}
		return err
	}
	if testHookBeforeRef != nil {
		testHookBeforeRef()
	}
	ref, err := prepareRef(s.commonDir, t.branch, t.start, t.tip)
	if err != nil {
		return unpend(err)
	}
	// One sync makes every object of the batch and the new ref value
	// durable; only then does the ref move.
	if err := s.objs.sync(ref.lock); err != nil {
		ref.abort()
		return unpend(err)
	}
	if err := s.moveBranch(ref, t.deferRef); err != nil {
		if h, rerr := readRef(s.commonDir, t.branch); rerr != nil || h != t.tip {
			return unpend(err)
		}
		return err
	}
	// From here on the batch is committed: a file that cannot be written
	// stays pending (recovery and every later write bring it to HEAD; it is
	// never taken for a person's change) and the writes succeed with a
	// warning, so that no caller retries a write that landed.
	var werr *workTreeError
	for _, p := range slices.Sorted(maps.Keys(t.files)) {
		if _, err := s.writeWorkFile(p, t.files[p], t.expect(p)); err != nil {
			if werr == nil {
				werr = &workTreeError{commit: t.tip.String()}
			}
			werr.paths = append(werr.paths, p)
			werr.errs = append(werr.errs, err)
			s.unwritten[p] = t.expect(p)
		}
	}
	if err := s.cache.append(t.entries); err != nil {
		return err
	}
	s.snap.extend(t.start, t.entries, s.hist)
	if werr != nil {
		s.idx.schedule(s)
		return werr
	}
	if s.opts.IndexSyncDelay > 0 {
		// People run git alongside this store: the index entries of what
		// the batch touched follow before it answers, so that their next
		// `git status` or `git commit -a` sees the write. Only what this
		// cannot do (index.lock held, an index format the patcher does not
		// handle, an I/O error) is left pending for the deferred sync.
		if err := s.syncPending(true); err == nil && !s.pendingLeft() {
			return nil
		}
	}
	s.idx.schedule(s)
	return nil
}

// moveBranch renames the branch's lock over it. The fsync of its
// directory makes the new value durable; deferred, it is left to the next
// syncfs of the file system, which every durable write of a store begins
// with (objectWriter.flush) and which writes out the rename with every
// other metadata change: the move is then durable before any ref a later
// write moves, and is lost by a power loss before that write only, never
// torn (the objects and the lock's content were synced before the
// rename). Without syncfs (perFile) it is fsynced at once. Close fsyncs a
// directory no later write did.
func (s *Store) moveBranch(ref *refUpdate, deferred bool) error {
	if !deferred || s.objs.perFile {
		s.branchDirSyncs++
		if err := ref.commit(); err != nil {
			return err
		}
		if s.unsyncedBranchDir == filepath.Dir(ref.path) {
			s.unsyncedBranchDir = "" // the same fsync made it durable
		}
		return nil
	}
	if err := ref.rename(); err != nil {
		return err
	}
	s.unsyncedBranchDir = filepath.Dir(ref.path)
	return nil
}

// testHookBeforeRef, when set by a test, runs in finish just before the
// branch is locked and moved.
var testHookBeforeRef func()

// pendingLeft reports whether the pending list holds anything.
func (s *Store) pendingLeft() bool {
	fi, err := os.Stat(filepath.Join(s.lunaDir, pendingName))
	return err != nil && !os.IsNotExist(err) || err == nil && fi.Size() > 0
}

// expect returns the blob lunad last saw in the working tree at p (zero:
// absent): what the batch's check found there, else p's state when the
// batch began. writeWorkFile replaces nothing else.
func (t *txn) expect(p string) plumbing.Hash {
	if h, ok := t.seen[p]; ok {
		return h
	}
	return t.old[p].hash
}

func (s *Store) appendPending(b []byte) error {
	f, err := os.OpenFile(filepath.Join(s.lunaDir, pendingName), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("pending list: %w", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("pending list: %w", err)
	}
	return nil
}

// pendingLine formats one line of the pending list.
func (s *Store) pendingLine(w *bytes.Buffer, old, new plumbing.Hash, p string) {
	dash := func(h plumbing.Hash) string {
		if h.IsZero() {
			return "-"
		}
		return h.String()
	}
	fmt.Fprintf(w, "%s %s %s %s\n", s.session, dash(old), dash(new), p)
}

type pendingPath struct {
	states map[plumbing.Hash]bool // blobs lunad wrote or replaced here; zero = absent
}

// readPending parses the pending list; foreign says whether another Store
// wrote any of it.
func (s *Store) readPending() (out map[string]*pendingPath, foreign bool, err error) {
	b, err := os.ReadFile(filepath.Join(s.lunaDir, pendingName))
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("pending list: %w", err)
	}
	out = map[string]*pendingPath{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 4)
		if len(f) != 4 || checkRepoPath(f[3]) != nil {
			continue // a torn line: its batch never moved the ref
		}
		foreign = foreign || f[0] != s.session
		f = f[1:]
		pp := out[f[2]]
		if pp == nil {
			pp = &pendingPath{states: map[plumbing.Hash]bool{}}
			out[f[2]] = pp
		}
		for _, h := range f[:2] {
			if h == "-" {
				pp.states[plumbing.ZeroHash] = true
			} else if plumbing.IsHash(h) {
				pp.states[plumbing.NewHash(h)] = true
			}
		}
	}
	return out, foreign, nil
}

// workHash returns the blob hash of a working-tree file, zero if absent.
func (s *Store) workHash(p string) (plumbing.Hash, []byte, error) {
	b, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(p)))
	if os.IsNotExist(err) {
		return plumbing.ZeroHash, nil, nil
	}
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	return plumbing.ComputeHash(plumbing.BlobObject, b), b, nil
}

// recoverIfForeign runs recovery when another process left pending paths
// (it crashed, or could not sync the index), and removes the ref and index
// locks a lunad process left when it died holding the workspace lock.
// Callers hold s.mu and the workspace lock.
func (s *Store) recoverIfForeign() error {
	if err := s.removeDeadLocks(); err != nil {
		return err
	}
	_, foreign, err := s.readPending()
	if err != nil || !foreign {
		return err
	}
	return s.syncIndexHeld()
}

// removeDeadLocks removes the HEAD branch's ref lock and the index lock
// when the workspace lock was taken over from a lunad process that died
// holding it: that process made them. (A git command running at that very
// moment could own them instead; git itself never breaks a lock, lunad only
// breaks them after a lunad writer died.)
func (s *Store) removeDeadLocks() error {
	if !s.lock.inherited {
		return nil
	}
	s.lock.inherited = false
	names := []string{filepath.Join(s.gitDir, "index.lock")}
	if branch, _, err := s.readHead(); err == nil && branch != "" {
		names = append(names, filepath.Join(s.commonDir, filepath.FromSlash(branch)+".lock"))
	}
	for _, name := range names {
		if err := os.Remove(name); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove %s left by a dead writer: %w", name, err)
		}
	}
	return nil
}

// recover brings every pending path of the working tree to HEAD's state
// where lunad left it behind, then refreshes the git index. Callers hold
// s.mu but not the workspace lock.
func (s *Store) recover() error {
	return s.syncIndexLocked(context.Background())
}

// workTreeError is finish's report of files it could not write after the
// batch was committed: the batch's writes succeed with it as their
// Result.Warning.
type workTreeError struct {
	commit string
	paths  []string
	errs   []error
}

func (e *workTreeError) Error() string {
	why := errors.Join(e.errs...).Error()
	switch {
	case errors.Is(e, syscall.ENOSPC):
		why = "the disk is full"
	case errors.Is(e, syscall.EROFS):
		why = "the file system is read-only"
	case errors.Is(e, syscall.EDQUOT):
		why = "the disk quota is exhausted"
	case errors.Is(e, syscall.EACCES), errors.Is(e, syscall.EPERM):
		why = "permission denied (" + why + ")"
	}
	return fmt.Sprintf("committed as %s, but %s in the working tree could not be updated: %s; the write is done (do not retry it), and lunad brings the file up to date once it can be written (any lunad command, or the daemon)", e.commit, strings.Join(e.paths, ", "), why)
}

func (e *workTreeError) Unwrap() []error { return e.errs }
