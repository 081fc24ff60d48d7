package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// The working tree follows the branch. After the ref moves, the files a
// batch changed are written (temp file + rename). Before the ref moves, one
// line per changed path is appended to .git/luna/pending:
//
//	<blob before|-> <blob after|-> <path>
//
// The pending list serves twice. After a crash between the ref update and
// the file writes, a file still holding one of the listed states is brought
// to HEAD's state (anything else is a person's change and is left alone).
// And it is the queue of paths whose .git/index entries must be refreshed:
// lunad keeps the index rewrite off the commit path and does it when idle,
// on Close, or when another process finds the list left behind.

const pendingName = "pending"

// finish makes the batch durable and visible: objects, pending list, ref,
// working tree, history cache.
func (t *txn) finish() error {
	s := t.s
	if err := s.objs.sync(); err != nil {
		return err
	}
	var buf bytes.Buffer
	for p, c := range t.files {
		old, nw := "-", "-"
		if o := t.old[p]; !o.hash.IsZero() {
			old = o.hash.String()
		}
		if !c.del {
			nw = c.hash.String()
		}
		fmt.Fprintf(&buf, "%s %s %s\n", old, nw, p)
	}
	if err := s.appendPending(buf.Bytes()); err != nil {
		return err
	}
	if err := updateRef(s.gitDir, t.branch, t.start, t.tip); err != nil {
		return err
	}
	// From here on the batch is committed: report later failures without
	// failing the callers' edits.
	for p, c := range t.files {
		if err := s.writeWorkFile(p, c); err != nil {
			return fmt.Errorf("committed as %s, but updating the working tree failed (run `lunad init` to repair): %w", t.tip, err)
		}
	}
	if err := s.cache.append(t.entries); err != nil {
		return err
	}
	s.idx.schedule(s)
	return nil
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
	s.pendingSize += int64(len(b))
	return nil
}

type pendingPath struct {
	states map[plumbing.Hash]bool // blobs lunad wrote or replaced here; zero = absent
}

func (s *Store) readPending() (map[string]*pendingPath, error) {
	b, err := os.ReadFile(filepath.Join(s.lunaDir, pendingName))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pending list: %w", err)
	}
	out := map[string]*pendingPath{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) != 3 || checkRepoPath(f[2]) != nil {
			continue // a torn line: its batch never moved the ref
		}
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
	return out, nil
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

// writeWorkFile puts one path of the working tree into the given state.
func (s *Store) writeWorkFile(p string, c fileChange) error {
	full := filepath.Join(s.root, filepath.FromSlash(p))
	if c.del {
		if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
			return err
		}
		// Remove directories the deletion emptied, as git does.
		for dir := filepath.Dir(full); dir != s.root && len(dir) > len(s.root); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil {
				break
			}
		}
		return nil
	}
	content, err := s.readBlob(c.hash)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Join(s.lunaDir, "tmp"), "work-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	perm := os.FileMode(0o644)
	if c.mode == modeExec {
		perm = 0o755
	}
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), full)
}

// recoverIfForeign runs recovery when another process left pending paths
// (it crashed, or has not synced its index yet).
func (s *Store) recoverIfForeign() error {
	fi, err := os.Stat(filepath.Join(s.lunaDir, pendingName))
	if os.IsNotExist(err) || (err == nil && fi.Size() == s.pendingSize) {
		return nil
	}
	return s.syncIndexLocked(nil)
}

// recover brings every pending path of the working tree to HEAD's state
// where lunad left it behind, then refreshes the git index. Callers hold
// s.mu but not the workspace lock.
func (s *Store) recover() error {
	return s.syncIndexLocked(context.Background())
}
