package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/lunad/lunad"
)

// syncIndexLocked reconciles the pending paths (see worktree.go) with HEAD:
// working-tree files lunad left behind are rewritten, and their .git/index
// entries are set to HEAD's blobs with fresh stat data, so that `git status`
// is clean. With a non-nil ctx it takes the workspace lock itself (and
// gives up quietly if another writer holds it: that writer will do the
// work); callers hold s.mu.
func (s *Store) syncIndexLocked(ctx context.Context) error {
	if ctx != nil {
		if err := s.lock.lock(ctx, s.opts.LockTimeout); err != nil {
			if errors.Is(err, lunad.ErrLocked) {
				return nil
			}
			return err
		}
		defer s.lock.unlock()
	}
	pend, err := s.readPending()
	if err != nil || len(pend) == 0 {
		return err
	}
	_, tip, err := readHead(s.gitDir)
	if err != nil {
		return err
	}
	root, err := s.treeOf(tip)
	if err != nil {
		return err
	}
	idx, err := readIndex(s.gitDir)
	if err != nil {
		return err
	}
	byName := map[string]bool{}
	for p := range pend {
		byName[p] = true
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if !byName[e.Name] {
			kept = append(kept, e)
		}
	}
	idx.Entries = kept
	for p, pp := range pend {
		head, err := s.lookup(root, p)
		if err != nil {
			head = node{}
		}
		work, _, err := s.workHash(p)
		if err != nil {
			return err
		}
		if work != head.hash && pp.states[work] {
			if err := s.writeWorkFile(p, fileChange{hash: head.hash, mode: head.mode, del: head.hash.IsZero()}); err != nil {
				return fmt.Errorf("repair working tree %s: %w", p, err)
			}
			work = head.hash
		}
		if head.hash.IsZero() || head.mode == modeDir {
			continue
		}
		e := &index.Entry{Name: p, Hash: head.hash, Mode: head.mode}
		if work == head.hash {
			statEntry(e, filepath.Join(s.root, filepath.FromSlash(p)))
		}
		idx.Entries = append(idx.Entries, e)
	}
	sort.SliceStable(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	idx.Cache = nil // the cached tree hashes no longer hold; git recomputes them
	if err := writeIndex(s.gitDir, idx); err != nil {
		return err
	}
	if err := os.Truncate(filepath.Join(s.lunaDir, pendingName), 0); err != nil {
		return fmt.Errorf("pending list: %w", err)
	}
	s.pendingSize = 0
	return nil
}

func readIndex(gitDir string) (*index.Index, error) {
	idx := &index.Index{Version: 2}
	f, err := os.Open(filepath.Join(gitDir, "index"))
	if os.IsNotExist(err) {
		return idx, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	defer f.Close()
	if err := index.NewDecoder(f).Decode(idx); err != nil {
		return nil, fmt.Errorf("read git index (%v); run `git reset` to rebuild it", err)
	}
	return idx, nil
}

// writeIndex replaces .git/index through git's index.lock. The index is a
// cache of HEAD and the working tree, so it is not fsynced.
func writeIndex(gitDir string, idx *index.Index) error {
	name := filepath.Join(gitDir, "index")
	f, err := os.OpenFile(name+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%w: %s.lock exists (a git command is running)", lunad.ErrLocked, name)
		}
		return fmt.Errorf("write git index: %w", err)
	}
	if err := index.NewEncoder(f).Encode(idx); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("write git index: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write git index: %w", err)
	}
	return os.Rename(f.Name(), name)
}

func statEntry(e *index.Entry, name string) {
	fi, err := os.Lstat(name)
	if err != nil {
		return
	}
	e.ModifiedAt = fi.ModTime()
	e.Size = uint32(fi.Size())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.CreatedAt = time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
		e.Dev, e.Inode = uint32(st.Dev), uint32(st.Ino)
		e.UID, e.GID = st.Uid, st.Gid
	}
}

// indexSyncer runs the deferred index sync once the store has been idle for
// Options.IndexSyncDelay. Its timer goroutine is owned by the Store: stop
// cancels it and waits for a running sync.
type indexSyncer struct {
	mu      sync.Mutex
	timer   *time.Timer
	running sync.WaitGroup
	err     error
}

func (x *indexSyncer) schedule(s *Store) {
	if s.opts.IndexSyncDelay <= 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.timer != nil {
		x.timer.Stop()
	}
	x.timer = time.AfterFunc(s.opts.IndexSyncDelay, func() {
		x.running.Add(1)
		defer x.running.Done()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			return
		}
		if err := s.syncIndexLocked(context.Background()); err != nil {
			x.mu.Lock()
			x.err = err
			x.mu.Unlock()
		}
	})
}

func (x *indexSyncer) stop() {
	x.mu.Lock()
	if x.timer != nil {
		x.timer.Stop()
	}
	x.mu.Unlock()
	x.running.Wait()
}
