package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/atomicfile"
)

// syncIndexLocked takes the workspace lock and runs syncIndexHeld; if
// another writer holds the lock it gives up quietly (that writer will do
// the work). Callers hold s.mu.
func (s *Store) syncIndexLocked(ctx context.Context) error {
	if err := s.lock.lock(ctx, s.opts.LockTimeout); err != nil {
		if errors.Is(err, lunad.ErrLocked) {
			return nil
		}
		return err
	}
	defer s.lock.unlock()
	return s.syncIndexHeld()
}

// syncIndexHeld reconciles the pending paths (see worktree.go) with HEAD:
// working-tree files lunad left behind are rewritten, and their .git/index
// entries are set to HEAD's blobs with fresh stat data, so that `git status`
// is clean. Callers hold s.mu and the workspace lock.
func (s *Store) syncIndexHeld() error {
	return s.syncPending(false)
}

// syncPending is syncIndexHeld; with quick (a batch's own sync, before it
// answers) it leaves the paths pending instead of falling back to go-git's
// codec for an index the byte-level patcher does not handle.
func (s *Store) syncPending(quick bool) error {
	if err := s.removeDeadLocks(); err != nil {
		return err
	}
	pend, _, err := s.readPending()
	if err != nil || len(pend) == 0 {
		return err
	}
	_, tip, err := s.readHead()
	if err != nil {
		return err
	}
	root, err := s.treeOf(tip)
	if err != nil {
		return err
	}
	var updates []indexUpdate
	stuck := map[string]bool{}
	for p, pp := range pend {
		head, err := s.lookup(root, p)
		if err != nil || head.mode == modeDir {
			head = node{}
		}
		work, err := s.readWork(p)
		if err != nil {
			return err
		}
		if work.hash != head.hash && pp.states[work.hash] {
			if _, err := s.writeWorkFile(p, fileChange{hash: head.hash, mode: head.mode, del: head.hash.IsZero()}, work.hash); err != nil {
				// Not writable yet (a full disk, an immutable directory):
				// the path stays pending and its stale state is known as
				// lunad's own, so no write takes it for a person's change.
				s.unwritten[p] = work.hash
				stuck[p] = true
				continue
			}
			if work, err = s.readWork(p); err != nil {
				return err
			}
		}
		u := indexUpdate{path: p, head: head}
		if work.hash == head.hash {
			u.stat = work.stat
		}
		updates = append(updates, u)
	}
	if err := s.updateIndex(updates, quick); err != nil {
		if errors.Is(err, lunad.ErrLocked) || errors.Is(err, errIndexFormat) {
			// A git command holds index.lock, or the index is left to the
			// slow path: the working tree is repaired, the index follows on
			// the next sync.
			return nil
		}
		return err
	}
	if len(stuck) > 0 {
		return s.keepPending(stuck)
	}
	if err := os.Truncate(filepath.Join(s.lunaDir, pendingName), 0); err != nil {
		return fmt.Errorf("pending list: %w", err)
	}
	return nil
}

// keepPending rewrites the pending list with only the lines of the paths
// in keep, as they were (their sessions included).
func (s *Store) keepPending(keep map[string]bool) error {
	name := filepath.Join(s.lunaDir, pendingName)
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("pending list: %w", err)
	}
	var out []byte
	for line := range bytes.Lines(b) {
		if f := strings.SplitN(strings.TrimSuffix(string(line), "\n"), " ", 4); len(f) == 4 && keep[f[3]] {
			out = append(out, line...)
		}
	}
	// Replaced whole (rename), so that a crash leaves the old list or the
	// new one, never a torn one.
	if err := atomicfile.Write(name, out, atomicfile.Options{TempDir: filepath.Join(s.lunaDir, "tmp")}); err != nil {
		return fmt.Errorf("pending list: %w", err)
	}
	return nil
}

// indexUpdate sets one path of the index to HEAD's state (head zero:
// remove it). stat is the stat data of the working-tree file when it holds
// exactly that blob (nil otherwise: zero stat data, which makes git look).
type indexUpdate struct {
	path string
	head node
	stat *syscall.Stat_t
}

// emptyIndex is a version 2 index with no entries.
var emptyIndex = func() []byte {
	b := []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00")
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}()

// updateIndex applies updates to .git/index, through the byte-level fast
// path when it can and go-git otherwise (with quick: errIndexFormat
// instead).
func (s *Store) updateIndex(updates []indexUpdate, quick bool) error {
	// git's index.lock is taken before the index is read: a git command
	// (stash, add, commit) that rewrote the index between lunad's read and
	// its write would otherwise see its update silently undone.
	lock, err := lockIndex(s.gitDir)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			lock.Close()
			os.Remove(lock.Name())
		}
	}()
	b, trusted, err := s.lastIndex.read(s.gitDir)
	if err != nil {
		return err
	}
	if testHookIndexRead != nil {
		testHookIndexRead()
	}
	edits := make([]indexEdit, 0, len(updates))
	for _, u := range updates {
		e := indexEdit{path: u.path}
		if !u.head.hash.IsZero() {
			e.entry = newIndexEntry(u.path, u.head.hash, u.head.mode, u.stat)
		}
		edits = append(edits, e)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].path < edits[j].path })
	chunks, marks, err := patchMapped(b, edits, trusted, s.lastIndex.marks)
	if err == nil && chunks == nil {
		return nil // every entry is as it should be: nothing to write
	}
	if err == nil {
		committed = true
		return s.lastIndex.write(s.gitDir, lock, chunks, marks)
	}
	if quick {
		return err
	}
	committed = true
	return s.updateIndexGoGit(lock, updates)
}

// patchMapped is patchIndexFrom over an index that may be mapped
// (indexCache): the mapped file truncated meanwhile (a fault) is errFault.
func patchMapped(b []byte, edits []indexEdit, trusted bool, marks [][]byte) (chunks, newMarks [][]byte, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer guardFault(&err)
	return patchIndexFrom(b, edits, trusted, marks)
}

func (s *Store) updateIndexGoGit(lock *os.File, updates []indexUpdate) error {
	idx := &index.Index{Version: 2}
	if f, err := os.Open(filepath.Join(s.gitDir, "index")); err == nil {
		err = index.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(idx)
		f.Close()
		if err != nil {
			abortIndex(lock)
			return fmt.Errorf("read git index (%v); run `git reset` to rebuild it", err)
		}
	}
	drop := map[string]bool{}
	for _, u := range updates {
		drop[u.path] = true
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if !drop[e.Name] {
			kept = append(kept, e)
		}
	}
	idx.Entries = kept
	for _, u := range updates {
		if u.head.hash.IsZero() {
			continue
		}
		e := &index.Entry{Name: u.path, Hash: u.head.hash, Mode: u.head.mode}
		if u.stat != nil {
			statEntry(e, u.stat)
		}
		idx.Entries = append(idx.Entries, e)
	}
	sort.SliceStable(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	idx.Cache = nil // the cached tree hashes no longer hold; git recomputes them
	f, err := replaceIndex(s.gitDir, lock, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := index.NewEncoder(bw).Encode(idx); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	return f.Close()
}

// testHookIndexRead, when set by a test, runs after updateIndex has read
// the index and before it writes the new one.
var testHookIndexRead func()

// lockIndex takes git's .git/index.lock, as git does before it reads the
// index to change it; lunad then writes the new index into it
// (replaceIndex) or removes it (abortIndex).
func lockIndex(gitDir string) (*os.File, error) {
	name := filepath.Join(gitDir, "index.lock")
	// Read too: the index written through it stays open for the next
	// read (indexCache), which maps it.
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return nil, fmt.Errorf("%w: %s exists (a git command is running)", lunad.ErrLocked, name)
		}
		return nil, fmt.Errorf("write git index: %w", err)
	}
	return f, nil
}

func abortIndex(lock *os.File) {
	lock.Close()
	os.Remove(lock.Name())
}

// replaceIndex writes the new .git/index into the lock taken by lockIndex
// and renames it into place; it returns the new index file, still open
// (the caller closes it). On error the lock is removed. The index is a
// cache of HEAD and the working tree, so it is not fsynced.
func replaceIndex(gitDir string, lock *os.File, write func(io.Writer) error) (*os.File, error) {
	err := write(lock)
	if err == nil {
		err = os.Rename(lock.Name(), filepath.Join(gitDir, "index"))
	}
	if err != nil {
		abortIndex(lock)
		return nil, fmt.Errorf("write git index: %w", err)
	}
	return lock, nil
}

func statEntry(e *index.Entry, st *syscall.Stat_t) {
	e.ModifiedAt = time.Unix(st.Mtim.Sec, st.Mtim.Nsec)
	e.CreatedAt = time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	e.Size = uint32(st.Size)
	e.Dev, e.Inode = uint32(st.Dev), uint32(st.Ino)
	e.UID, e.GID = st.Uid, st.Gid
}

// indexSyncer runs the deferred index sync Options.IndexSyncDelay after the
// first write it has not followed — not after the last: under a steady
// stream of writes the index still follows, so a person's `git commit -a`
// meanwhile cannot take a new artifact missing from the index for a
// deletion for longer than that. Its timer goroutine is owned by the
// Store: stop cancels it and waits for a running sync.
type indexSyncer struct {
	mu      sync.Mutex
	timer   *time.Timer
	due     bool // a sync is scheduled and has not started
	running sync.WaitGroup
	stopped bool
}

func (x *indexSyncer) schedule(s *Store) {
	if s.opts.IndexSyncDelay <= 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stopped || x.due {
		return // the sync already due will take this write too
	}
	x.due = true
	x.timer = time.AfterFunc(s.opts.IndexSyncDelay, func() {
		x.running.Add(1)
		defer x.running.Done()
		x.mu.Lock()
		x.due = false // writes from now on need a sync of their own
		x.mu.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return
		}
		if err := s.syncIndexLocked(context.Background()); err != nil {
			return // the paths stay pending; Close syncs again and reports
		}
		// A git command holding index.lock (or another writer holding the
		// workspace lock) postpones the sync: try again later.
		if pend, _, _ := s.readPending(); len(pend) > 0 {
			x.schedule(s)
		}
	})
}

func (x *indexSyncer) stop() {
	x.mu.Lock()
	x.stopped = true
	if x.timer != nil {
		x.timer.Stop()
	}
	x.mu.Unlock()
	x.running.Wait()
}
