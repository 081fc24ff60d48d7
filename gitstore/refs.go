package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/atomicfile"
)

// refs reads and updates git refs as git itself lays them out: loose files
// under the repository's common dir, overridden entries in its
// packed-refs, and HEAD as a symbolic ref in the worktree's git dir (the
// same directory but in a linked worktree: see lunad.Checkout).

// head returns the ref HEAD points to (e.g. "refs/heads/main") and the
// commit it names; the hash is zero on an unborn branch. A detached HEAD
// returns "" and the commit: it can be read (time travel with git
// checkout), but lunad commits only on branches (onBranch). HEAD is read
// in gitDir, the ref it names in commonDir.
func readHead(gitDir, commonDir string) (string, plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", plumbing.ZeroHash, fmt.Errorf("read HEAD: %w", err)
	}
	s := strings.TrimSpace(string(b))
	name, ok := strings.CutPrefix(s, "ref: ")
	if !ok {
		if h, ok := parseHash(s); ok {
			return "", h, nil // detached: readable, not writable (see onBranch)
		}
		return "", plumbing.ZeroHash, fmt.Errorf("read HEAD: not a ref nor a commit: %.60q", s)
	}
	h, err := readRef(commonDir, name)
	if errors.Is(err, lunad.ErrNotFound) {
		return name, plumbing.ZeroHash, nil
	}
	return name, h, err
}

// readHead reads the store's HEAD (see readHead).
func (s *Store) readHead() (string, plumbing.Hash, error) {
	return readHead(s.gitDir, s.commonDir)
}

// readRef resolves a full ref name, under the repository's common dir, to
// a commit hash, returning ErrNotFound when it does not exist.
func readRef(commonDir, name string) (plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(commonDir, filepath.FromSlash(name)))
	if err == nil {
		s := strings.TrimSpace(string(b))
		if plumbing.IsHash(s) {
			return plumbing.NewHash(s), nil
		}
		if target, ok := strings.CutPrefix(s, "ref: "); ok {
			return readRef(commonDir, target)
		}
		// An empty ref file is what an interrupted go-git update leaves
		// behind; packed-refs may still hold the value.
	} else if !os.IsNotExist(err) && !errors.Is(err, syscall.ENOTDIR) { // ENOTDIR: a ref named as a ref's directory
		return plumbing.ZeroHash, fmt.Errorf("read ref %s: %w", name, err)
	}
	packed, err := readPackedRefs(commonDir)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if h, ok := packed[name]; ok {
		return h, nil
	}
	return plumbing.ZeroHash, fmt.Errorf("%w: ref %s", lunad.ErrNotFound, name)
}

func readPackedRefs(commonDir string) (map[string]plumbing.Hash, error) {
	f, err := os.Open(filepath.Join(commonDir, "packed-refs"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	refs := map[string]plumbing.Hash{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		hash, name, ok := strings.Cut(line, " ")
		if ok && plumbing.IsHash(hash) {
			refs[name] = plumbing.NewHash(hash)
		}
	}
	return refs, sc.Err()
}

// listBranches returns every branch under refs/heads, loose or packed.
func listBranches(commonDir string) (map[string]plumbing.Hash, error) {
	return listRefs(commonDir, "refs/heads/")
}

// listRefs returns every ref whose full name starts with prefix (ending in
// "/"), loose or packed.
func listRefs(commonDir, prefix string) (map[string]plumbing.Hash, error) {
	out := map[string]plumbing.Hash{}
	packed, err := readPackedRefs(commonDir)
	if err != nil {
		return nil, err
	}
	for name, h := range packed {
		if strings.HasPrefix(name, prefix) {
			out[name] = h
		}
	}
	root := filepath.Join(commonDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".lock") {
			return err
		}
		rel, _ := filepath.Rel(commonDir, p)
		name := filepath.ToSlash(rel)
		if h, err := readRef(commonDir, name); err == nil {
			out[name] = h
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	return out, nil
}

// refUpdate moves a ref by compare-and-swap, durably, in two steps so that
// the caller can make the lock file's content durable together with the
// objects it names (one filesystem sync for both):
//
//	u, err := prepareRef(...)  // take "<ref>.lock", check the old value, write the new one
//	... sync objects and the lock file ...
//	err = u.commit()           // rename over the ref, fsync the directory
//
// git and lunad exclude each other through the same lock file.
type refUpdate struct {
	name, path string
	lock       *os.File
}

// prepareRef takes the ref's lock, checks that the ref is at old (zero:
// must not exist) and writes new into the lock file. Returns ErrConflict
// when the ref moved, ErrLocked when another process holds the lock.
// refBusyError is prepareRef's refusal because someone else — a git
// command run by hand — holds the ref's lock or moved the ref since the
// batch read it: nothing of the batch is visible yet, so it can be run
// again on the new state (see Store.runBatch).
type refBusyError struct{ err error }

func (e *refBusyError) Error() string { return e.err.Error() }
func (e *refBusyError) Unwrap() error { return e.err }

func prepareRef(commonDir, name string, old, new plumbing.Hash) (*refUpdate, error) {
	path := filepath.Join(commonDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("update ref %s: %w", name, err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return nil, &refBusyError{fmt.Errorf("%w: %s.lock exists (a git command is running, or one crashed: remove the file if no git process is running)", lunad.ErrLocked, path)}
		}
		return nil, fmt.Errorf("update ref %s: %w", name, err)
	}
	u := &refUpdate{name: name, path: path, lock: lock}
	cur, err := readRef(commonDir, name)
	if errors.Is(err, lunad.ErrNotFound) {
		cur, err = plumbing.ZeroHash, nil
	}
	if err == nil && cur != old {
		err = &refBusyError{fmt.Errorf("%w: %s is at %.12s, expected %.12s", lunad.ErrConflict, name, cur, old)}
	}
	if err == nil {
		if _, err = lock.Write([]byte(new.String() + "\n")); err != nil {
			err = fmt.Errorf("update ref %s: %w", name, err)
		}
	}
	if err != nil {
		u.abort()
		return nil, err
	}
	return u, nil
}

// sync makes the lock file's content durable on its own.
func (u *refUpdate) sync() error { return u.lock.Sync() }

// commit renames the lock over the ref and fsyncs the directory. The
// caller has made the lock's content durable.
func (u *refUpdate) commit() error {
	if err := u.rename(); err != nil {
		return err
	}
	// Makes the rename, the ref's new value, durable: the step is
	// acknowledged after it, and no later flush is sure to come.
	if err := atomicfile.Sync(filepath.Dir(u.path)); err != nil {
		return fmt.Errorf("update ref %s: %w", u.name, err)
	}
	return nil
}

// rename renames the lock over the ref, leaving the directory's fsync to
// the caller (several refs of one directory share it).
func (u *refUpdate) rename() error {
	if err := u.lock.Close(); err != nil {
		os.Remove(u.lock.Name())
		return fmt.Errorf("update ref %s: %w", u.name, err)
	}
	if err := os.Rename(u.lock.Name(), u.path); err != nil {
		os.Remove(u.lock.Name())
		return fmt.Errorf("update ref %s: %w", u.name, err)
	}
	return nil
}

func (u *refUpdate) abort() {
	u.lock.Close()
	os.Remove(u.lock.Name())
}

// updateRef moves ref name from old to new: prepare, sync, commit.
func updateRef(commonDir, name string, old, new plumbing.Hash) error {
	u, err := prepareRef(commonDir, name, old, new)
	if err != nil {
		return err
	}
	if err := u.sync(); err != nil {
		u.abort()
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	return u.commit()
}

// writeHead points the HEAD in gitDir at a branch, durably.
func writeHead(gitDir, branch string) error {
	return atomicfile.Write(filepath.Join(gitDir, "HEAD"), []byte("ref: "+branch+"\n"), atomicfile.Options{Durable: true})
}

// onBranch refuses a write when HEAD is detached (branch ""): lunad
// commits only on branches.
func onBranch(branch string, tip plumbing.Hash) error {
	if branch == "" {
		return fmt.Errorf("%w: HEAD is detached at %.12s (reading works; writing needs a branch): run `lunad switch BRANCH`, or `lunad branch NAME %.12s` then switch to it", lunad.ErrInvalid, tip, tip)
	}
	return nil
}

func parseHash(s string) (plumbing.Hash, bool) {
	if len(s) != 40 || !isHex(s) {
		return plumbing.ZeroHash, false
	}
	return plumbing.NewHash(s), true
}

// deleteRef removes ref name, loose and packed, under its lock as git
// does (packed-refs first, so that the loose file's removal never uncovers
// an old packed value). A ref that does not exist is no error. Returns
// ErrLocked when a lock is held.
func deleteRef(commonDir, name string) error {
	path := filepath.Join(commonDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("delete ref %s: %w", name, err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%w: %s.lock exists (a git command is running, or one crashed: remove the file if no git process is running)", lunad.ErrLocked, path)
		}
		return fmt.Errorf("delete ref %s: %w", name, err)
	}
	defer func() {
		lock.Close()
		os.Remove(lock.Name())
	}()
	if err := unpackRef(commonDir, name); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("delete ref %s: %w", name, err)
	}
	if err := atomicfile.Sync(filepath.Dir(path)); err != nil {
		return fmt.Errorf("delete ref %s: %w", name, err)
	}
	// Its reflog, if git kept one.
	if err := os.Remove(filepath.Join(commonDir, "logs", filepath.FromSlash(name))); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("delete the reflog of %s: %w", name, err)
	}
	return nil
}

// unpackRef rewrites packed-refs without ref name (and its peeled line),
// under packed-refs.lock; nothing to do when it is not packed.
func unpackRef(commonDir, name string) error {
	file := filepath.Join(commonDir, "packed-refs")
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read packed-refs: %w", err)
	}
	var out []byte
	found, skipPeeled := false, false
	for line := range bytes.Lines(b) {
		text := strings.TrimRight(string(line), "\n")
		if skipPeeled && strings.HasPrefix(text, "^") {
			continue
		}
		skipPeeled = false
		if hash, ref, ok := strings.Cut(text, " "); ok && ref == name && plumbing.IsHash(hash) {
			found, skipPeeled = true, true
			continue
		}
		out = append(out, line...)
	}
	if !found {
		return nil
	}
	lock, err := os.OpenFile(file+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%w: %s.lock exists (a git command is running)", lunad.ErrLocked, file)
		}
		return fmt.Errorf("write packed-refs: %w", err)
	}
	_, err = lock.Write(out)
	if err == nil {
		err = lock.Sync()
	}
	if cerr := lock.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lock.Name(), file)
	}
	if err != nil {
		os.Remove(lock.Name())
		return fmt.Errorf("write packed-refs: %w", err)
	}
	return nil
}
