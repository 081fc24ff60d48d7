package gitstore

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"golang.org/x/sys/unix"
)

// Replacing a working-tree file without losing a save.
//
// lunad looks at an artifact's file when an operation begins (a person's
// unrecorded change is committed first, as a human version) and replaces
// it only after the batch's commit is durable, milliseconds later. A person
// may save in between: an editor writes a temporary file and renames it
// over the path, or rewrites the file in place. Linux has no rename that
// replaces only a given file, so writeWorkFile swaps instead:
// renameat2(RENAME_EXCHANGE) puts lunad's new file at the path and the file
// that was there at lunad's temporary name, in one step. The swap never
// unlinks anything, so whatever the path held at that instant — the state
// lunad saw or a save that landed since — is still there to be checked:
//
//   - its content is the state lunad saw (or already the new one): it is in
//     history; it is dropped and the write is done;
//   - anything else is a save that landed after the check: it is swapped
//     back into the path and lunad's content, which is committed, is
//     dropped. The file then differs from HEAD and is not one of the states
//     the pending list names, so recovery leaves it alone and it is
//     committed as a human version — by the daemon's watcher, which saw the
//     save, or by the next write of the artifact (commitHumanChanges).
//
// A save by rename landing between the swap and the swap back replaces
// lunad's file (committed) and is itself swapped back in; each file taken
// off the path is inspected the same way, and a save that a later save by
// the person replaced is dropped, as their own save would have replaced it.
// So no interleaving of saves by rename with the swap loses a save.
//
// What remains, and why it is accepted:
//
//   - A writer that rewrites the file in place through a descriptor it
//     opened before the swap, and writes after lunad has read the displaced
//     file (microseconds later), writes into the dropped file. Any
//     replacement by rename has this window; editors save by rename, or
//     open, truncate and write in one go.
//   - Between the swap and the swap back, a reader of the path sees
//     lunad's content for a moment; an editor that reloads the file
//     reloads twice.
//   - On a filesystem without RENAME_EXCHANGE (EINVAL: some network and
//     FUSE filesystems), the file is read and hashed right before a plain
//     rename(2): a save landing between that check and the rename (a few
//     microseconds) is replaced. Creation never replaces (RENAME_NOREPLACE,
//     else link(2)).

// maxSwaps bounds the swaps of one write when saves keep landing.
const maxSwaps = 16

// writeWorkFile puts one path of the working tree into the state c, unless
// a person changed the file since lunad saw it holding the blob expect
// (zero: absent). It reports whether the path now holds lunad's state;
// false means a person's file was left in place (see above).
func (s *Store) writeWorkFile(p string, c fileChange, expect plumbing.Hash) (written bool, err error) {
	defer func() {
		if err == nil {
			delete(s.unwritten, p) // the file is lunad's new state, or a person's
		}
	}()
	full := filepath.Join(s.root, filepath.FromSlash(p))
	if c.del {
		return s.removeWorkFile(full, expect)
	}
	content, err := s.readBlob(c.hash)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(cmp.Or(s.workTmp, filepath.Dir(full)), ".lunad-work-")
	if err != nil {
		return false, err
	}
	keep := false // the temporary name holds a person's save
	defer func() {
		tmp.Close()
		if !keep {
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(content); err != nil {
		return false, err
	}
	perm := os.FileMode(0o644)
	if c.mode == modeExec {
		perm = 0o755
	}
	if err := tmp.Chmod(perm); err != nil {
		return false, err
	}
	if expect.IsZero() {
		return placeNew(tmp.Name(), full)
	}
	ok, err := swapIn(tmp, full, expect, c.hash)
	keep = err != nil && errors.Is(err, errSavesKeepLanding)
	return ok, err
}

var errSavesKeepLanding = errors.New("saves kept landing")

// swapIn swaps the file open as tmp into full (see above). Callers remove
// tmp's name afterwards unless swapIn failed with errSavesKeepLanding.
func swapIn(tmp *os.File, full string, expect, want plumbing.Hash) (bool, error) {
	name := tmp.Name()
	var ours unix.Stat_t
	if err := unix.Fstat(int(tmp.Fd()), &ours); err != nil {
		return false, err
	}
	// Every file taken off the path stays pinned (an O_PATH descriptor)
	// until the end, so that its inode number cannot be reused by a newer
	// save and mistaken for it.
	held := []unix.Stat_t{ours}
	var pins []int
	defer func() {
		for _, fd := range pins {
			unix.Close(fd)
		}
	}()
	for i := range maxSwaps {
		err := unix.Renameat2(unix.AT_FDCWD, name, unix.AT_FDCWD, full, unix.RENAME_EXCHANGE)
		switch {
		case err == nil:
		case errors.Is(err, unix.ENOENT) && i == 0:
			// Deleted since lunad looked: write it back, never over a new file.
			return placeNew(name, full)
		case i == 0 && (errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)):
			return checkThenRename(name, full, expect, want)
		default:
			return false, fmt.Errorf("replace %s: %w", full, err)
		}
		fd, err := unix.Open(name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0) // what the swap took off the path
		if err != nil {
			return false, fmt.Errorf("replace %s: %w", full, err)
		}
		pins = append(pins, fd)
		var off unix.Stat_t
		if err := unix.Fstat(fd, &off); err != nil {
			return false, fmt.Errorf("replace %s: %w", full, err)
		}
		for _, h := range held {
			if h.Dev == off.Dev && h.Ino == off.Ino {
				// lunad's file, or a save a later save replaced: the path
				// holds the person's latest save.
				return false, nil
			}
		}
		if off.Mode&unix.S_IFMT == unix.S_IFREG {
			if b, err := os.ReadFile(name); err == nil {
				if h := plumbing.ComputeHash(plumbing.BlobObject, b); h == expect || h == want {
					return i == 0, nil // in history already
				}
			}
		}
		held = append(held, off) // a save: swap it back in
	}
	return false, fmt.Errorf("%w: %s was replaced %d times while lunad wrote it; a save by hand is kept in %s and lunad's write is committed; copy what you need from it", errSavesKeepLanding, full, maxSwaps, name)
}

// regularHash returns the blob hash of the regular file at name, fi its
// Lstat; ok is false for anything else or an unreadable file.
func regularHash(name string, fi os.FileInfo) (plumbing.Hash, bool) {
	if !fi.Mode().IsRegular() {
		return plumbing.ZeroHash, false
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return plumbing.ZeroHash, false
	}
	return plumbing.ComputeHash(plumbing.BlobObject, b), true
}

// checkThenRename is swapIn for filesystems without RENAME_EXCHANGE: it
// renames only when full still holds expect or want, read just before.
func checkThenRename(name, full string, expect, want plumbing.Hash) (bool, error) {
	fi, err := os.Lstat(full)
	if errors.Is(err, os.ErrNotExist) {
		return placeNew(name, full)
	}
	if err != nil {
		return false, err
	}
	if h, ok := regularHash(full, fi); !ok || h != expect && h != want {
		return false, nil
	}
	return true, os.Rename(name, full)
}

// placeNew renames name to full unless something is at full; it reports
// whether it did.
func placeNew(name, full string) (bool, error) {
	err := unix.Renameat2(unix.AT_FDCWD, name, unix.AT_FDCWD, full, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		err = os.Link(name, full) // the caller removes name
	}
	if errors.Is(err, os.ErrExist) {
		return false, nil // a person's file: leave it
	}
	if err != nil {
		return false, fmt.Errorf("create %s: %w", full, err)
	}
	return true, nil
}

// removeWorkFile deletes full unless it changed since lunad saw it holding
// expect: it renames the file aside (one step), checks it, and puts a
// person's save back where no newer file took its place.
func (s *Store) removeWorkFile(full string, expect plumbing.Hash) (bool, error) {
	aside, err := os.CreateTemp(cmp.Or(s.workTmp, filepath.Dir(full)), ".lunad-gone-")
	if err != nil {
		return false, err
	}
	aside.Close()
	defer os.Remove(aside.Name())
	if err := os.Rename(full, aside.Name()); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return true, nil
		}
		return false, err
	}
	if fi, err := os.Lstat(aside.Name()); err == nil {
		if h, ok := regularHash(aside.Name(), fi); ok && h == expect {
			removeEmptyDirs(filepath.Dir(full), s.root)
			return true, nil
		}
	}
	if _, err := placeNew(aside.Name(), full); err != nil {
		return false, err
	}
	return false, nil
}

// removeEmptyDirs removes dir and its parents below root while they are
// empty, as git does after a deletion.
func removeEmptyDirs(dir, root string) {
	for ; dir != root && len(dir) > len(root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
}

// workFile is a working-tree file as read through one descriptor: its blob
// hash (zero: absent) and, for a regular file, the stat data that goes with
// that content.
type workFile struct {
	hash plumbing.Hash
	stat *syscall.Stat_t
}

// readWork reads the working-tree file at p. The hash and stat data come
// from the same open file, so an index entry built from them never pairs a
// blob with the stat data of another file saved in between.
func (s *Store) readWork(p string) (workFile, error) {
	full := filepath.Join(s.root, filepath.FromSlash(p))
	f, err := os.OpenFile(full, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ELOOP) {
		h, _, err := s.workHash(p) // a symlink: no stat data
		return workFile{hash: h}, err
	}
	if errors.Is(err, os.ErrNotExist) {
		return workFile{}, nil
	}
	if err != nil {
		return workFile{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return workFile{}, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return workFile{}, err
	}
	w := workFile{hash: plumbing.ComputeHash(plumbing.BlobObject, b)}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && fi.Mode().IsRegular() {
		w.stat = st
	}
	return w, nil
}
