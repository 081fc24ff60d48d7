package gitstore

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

// What the workspace watcher (watch.Watch) needs from the store: recording
// a file a person saved, the artifacts whose files differ from HEAD, where
// HEAD is, what changed between two commits, and the git index brought up
// to date without closing the store.

// Record commits the changes a person left in an artifact's file in the
// working tree as a `human` version (the same commit Edit would make first),
// and reports false with no commit when the file equals HEAD's content.
//
// It is a write like the others: it runs in a batch under the workspace
// lock, moves the branch by compare-and-swap, and is refused on a detached
// HEAD. The commit's author is the person (Options.Human) and its message
// the one Edit writes, so ch may carry only BaseVersion (when > 0 the
// artifact must still be at that version, else ErrConflict); Agent,
// Message, IdempotencyKey, Extra and Input are refused with ErrInvalid.
//
// The file in the working tree is left as it is (it already holds what was
// committed): a save that lands while the commit is being made is not
// overwritten, and stays a change for the next Record.
//
// A file the person deleted — in the working tree, or by a commit made
// outside lunad (git rm) — is recorded as the artifact's removal
// (operation remove, authored by the person), as Remove would.
//
// Returns ErrNotFound for an unknown or already removed artifact;
// ErrInvalid (with ErrDirty) for content that cannot be an artifact —
// binary, invalid UTF-8, over Options.MaxContent — saying what to do; the
// file is never touched.
func (s *Store) Record(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, bool, error) {
	if err := validateChange(ch); err != nil {
		return lunad.Result{}, false, err
	}
	if ch.Agent != "" || ch.Message != "" || ch.IdempotencyKey != "" || len(ch.Extra) > 0 || len(ch.Input) > 0 {
		return lunad.Result{}, false, fmt.Errorf("%w: a recorded change is the person's, with lunad's message; give only a base version (to commit with an agent or message, use edit)", lunad.ErrInvalid)
	}
	var recorded bool
	res, err := s.submit(ctx, func(t *txn) (lunad.Result, error) {
		recorded = false
		id, m, err := t.resolve(ref)
		if err != nil {
			return lunad.Result{}, err
		}
		if err := t.checkWorkPath(m.Path); err != nil {
			return lunad.Result{}, err
		}
		if err := t.checkBase(id, ch.BaseVersion); err != nil {
			return lunad.Result{}, err
		}
		if m.Status == lunad.StatusRemoved {
			return lunad.Result{}, removedError(m, s.latestVersion(id))
		}
		n := len(t.entries)
		err = t.commitHumanChanges(id, m)
		if isGone(err) {
			// The person deleted the file: record its removal, as theirs.
			changes, err := t.removal(m)
			if err != nil {
				return lunad.Result{}, err
			}
			recorded = true
			return t.commitOp(id, newWrite(lunad.OpRemove, lunad.Change{}), "remove "+m.Path+" (deleted outside lunad)", nil, 0, changes)
		}
		if err != nil {
			if errors.Is(err, lunad.ErrInvalid) {
				err = fmt.Errorf("%w; save it as UTF-8 text of at most %d bytes, or bring back the committed version with `git checkout -- %s`", err, s.opts.MaxContent, m.Path)
			}
			return lunad.Result{}, err
		}
		if len(t.entries) == n {
			// Nothing to record: the file is HEAD's (or this batch wrote it).
			a := s.withVersion(m.artifact())
			var v lunad.Version
			if e := s.latest(id); e != nil {
				v = e.version(id)
			}
			return lunad.Result{Artifact: a, Version: v}, nil
		}
		t.keepWorkFile(m.Path)
		recorded = true
		return t.result(id, t.entries[len(t.entries)-1])
	})
	if err != nil {
		return lunad.Result{}, false, err
	}
	return res, recorded, nil
}

// keepWorkFile stops the batch from rewriting the working-tree file at p,
// which already holds what the batch committed there, so that a person's
// save landing meanwhile is not overwritten. The path is listed as pending
// all the same, for its .git/index entry, with only the state lunad
// replaced in the repository: recovery then never rewrites the file with
// an older state — if the batch fails, the person's content stays
// (unrecorded); if it lands, the file is HEAD's. Callers run it last in
// their operation, which cannot fail afterwards.
func (t *txn) keepWorkFile(p string) {
	old := t.old[p].hash
	var buf bytes.Buffer
	t.s.pendingLine(&buf, old, old, p)
	if err := t.s.appendPending(buf.Bytes()); err != nil {
		return // leave it to finish, which lists and writes it the usual way
	}
	delete(t.files, p)
}

// Dirty returns the IDs of the artifacts whose file in the working tree
// differs from HEAD's content (or is missing), sorted by path. A file
// whose stat data matches its .git/index entry, recorded at HEAD's blob, is
// taken as unchanged without being read (git's own rule, racily clean
// entries excepted); the others are read and hashed.
func (s *Store) Dirty(ctx context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, root, err := s.current()
	if err != nil {
		return nil, err
	}
	x, err := s.metasAt(root)
	if err != nil {
		return nil, err
	}
	metas := make([]meta, 0, len(x.Metas))
	for _, m := range x.Metas {
		metas = append(metas, m)
	}
	sort.Slice(metas, func(i, j int) bool { return metas[i].Path < metas[j].Path })
	stats := readIndexStats(s.gitDir)
	var out []string
	for _, m := range metas {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		head, err := s.lookup(root, m.Path)
		if err != nil || head.mode == modeDir {
			continue // metadata naming no file: not a working-tree matter
		}
		full := filepath.Join(s.root, filepath.FromSlash(m.Path))
		if st, ok := stats.entries[m.Path]; ok && st.hash == head.hash && stats.unchanged(st, full) {
			continue
		}
		work, _, err := s.workHash(m.Path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", m.Path, err)
		}
		if work != head.hash {
			out = append(out, m.ID)
		}
	}
	return out, nil
}

// indexStat is what .git/index records of one stage-0 entry.
type indexStat struct {
	ctimeS, ctimeN, mtimeS, mtimeN, dev, ino, mode, size uint32
	hash                                                 plumbing.Hash
}

type indexStats struct {
	entries map[string]indexStat
	// all counts the index's entries, every stage of a conflicted path
	// included.
	all int
	// mtime of the index file: an entry whose file is not older than the
	// index is racily clean and must be read.
	mtimeS, mtimeN int64
}

// readIndexStats reads the stat data of .git/index (versions 2 and 3). An
// index it cannot read (absent, version 4, damaged) yields no entries, so
// every file is read.
func readIndexStats(gitDir string) indexStats {
	out := indexStats{}
	name := filepath.Join(gitDir, "index")
	fi, err := os.Stat(name)
	if err != nil {
		return out
	}
	b, err := os.ReadFile(name)
	if err != nil || len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return out
	}
	if v := binary.BigEndian.Uint32(b[4:8]); v != 2 && v != 3 {
		return out
	}
	body := b[:len(b)-20]
	if sum := sha1.Sum(body); !bytes.Equal(sum[:], b[len(b)-20:]) {
		return out
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return out
	}
	entries := map[string]indexStat{}
	off := 12
	for range binary.BigEndian.Uint32(b[8:12]) {
		if off+62 > len(body) {
			return out
		}
		flags := binary.BigEndian.Uint16(body[off+60:])
		fixed := 62
		if flags&0x4000 != 0 {
			fixed = 64
		}
		nul := bytes.IndexByte(body[off+fixed:], 0)
		if nul < 0 || off+((fixed+nul+8)&^7) > len(body) {
			return out
		}
		if flags&0x3000 == 0 { // stage 0 only: a conflicted path is read
			u := func(i int) uint32 { return binary.BigEndian.Uint32(body[off+i*4:]) }
			var h plumbing.Hash
			copy(h[:], body[off+40:off+60])
			entries[string(body[off+fixed:off+fixed+nul])] = indexStat{
				ctimeS: u(0), ctimeN: u(1), mtimeS: u(2), mtimeN: u(3), dev: u(4), ino: u(5), mode: u(6), size: u(9), hash: h}
		}
		off += (fixed + nul + 8) &^ 7
	}
	out.entries, out.all = entries, int(binary.BigEndian.Uint32(b[8:12]))
	out.mtimeS, out.mtimeN = st.Mtim.Sec, st.Mtim.Nsec
	return out
}

// unchanged reports whether the file at full still has the stat data the
// index recorded and was last modified before the index was written.
func (x indexStats) unchanged(e indexStat, full string) bool {
	if e.mtimeS == 0 && e.ctimeS == 0 {
		return false // recorded without stat data (lunad does so for files it did not check)
	}
	fi, err := os.Lstat(full)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	if uint32(st.Mtim.Sec) != e.mtimeS || uint32(st.Mtim.Nsec) != e.mtimeN ||
		uint32(st.Ctim.Sec) != e.ctimeS || uint32(st.Ctim.Nsec) != e.ctimeN ||
		uint32(st.Ino) != e.ino || uint32(st.Dev) != e.dev || uint32(st.Size) != e.size {
		return false
	}
	// Racily clean: modified in the same instant as (or after) the index
	// was written, the file may have changed without its stat data showing it.
	return st.Mtim.Sec < x.mtimeS || st.Mtim.Sec == x.mtimeS && st.Mtim.Nsec < x.mtimeN
}

// Head returns the branch HEAD is on ("" when HEAD is detached) and the
// commit it is at ("" on an unborn branch). It reads the refs as they are
// on disk, moved by lunad or by git.
func (s *Store) Head() (branch, commit string, err error) {
	name, tip, err := s.readHead()
	if err != nil {
		return "", "", err
	}
	if !tip.IsZero() {
		commit = tip.String()
	}
	return strings.TrimPrefix(name, "refs/heads/"), commit, nil
}

// Changed returns the IDs of the artifacts whose file or metadata differ
// between commits from and to ("" for none), sorted: those of to's
// artifacts whose file or metadata differ, and those whose metadata is only
// at from. It compares trees, skipping equal subtrees, so it also finds
// content changed by commits made with plain git, which are not versions.
// A commit that changes no tree (an ack) changes nothing here.
func (s *Store) Changed(ctx context.Context, from, to string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	root := func(c string) (plumbing.Hash, error) {
		if c == "" {
			return plumbing.ZeroHash, nil
		}
		h, ok := parseHash(c)
		if !ok {
			return h, fmt.Errorf("%w: commit %q", lunad.ErrInvalid, c)
		}
		return s.treeOf(h)
	}
	a, err := root(from)
	if err != nil {
		return nil, err
	}
	b, err := root(to)
	if err != nil {
		return nil, err
	}
	changed := map[string][2]node{}
	if err := s.diffTrees(a, b, "", changed); err != nil {
		return nil, err
	}
	if len(changed) == 0 {
		return nil, nil
	}
	x, err := s.metasAt(b)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for p := range changed {
		if rest, ok := strings.CutPrefix(p, artifactsDir+"/"); ok {
			if id, ok := strings.CutSuffix(filepath.Base(rest), ".json"); ok && validID(id) {
				ids[id] = true
			}
			continue
		}
		if id, ok := x.byPath[p]; ok {
			ids[id] = true
		}
	}
	out := make([]string, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	sort.Strings(out)
	return out, ctx.Err()
}

// SyncIndex brings .git/index up to date with HEAD for the paths lunad
// changed (see Options.IndexSyncDelay), now, so that `git status`, `git
// commit` and `git checkout` run by hand see what lunad committed. It gives
// up quietly, leaving the paths pending, when a git command holds
// index.lock or another lunad writer holds the workspace lock.
func (s *Store) SyncIndex(ctx context.Context) error {
	s.mu.Lock() // batches hold it: the sync runs between two
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("%w: store is closed", lunad.ErrInvalid)
	}
	return s.syncIndexLocked(ctx)
}
