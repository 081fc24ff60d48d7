package gitstore

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/lunad/lunad"
)

// Cleaning one of lunad's run worktrees back to its branch's tip, before
// an attempt of a stage runs there: an attempt killed with the daemon
// leaves its half-made changes in the files, and the next attempt must
// not start from them, nor take them for its own work.
//
// Clean compares rather than checks out: a tracked file whose content,
// mode or kind differs from the tip is rewritten (a temporary file renamed
// over it), one that matches is not touched, and whatever the tip has
// committed — by the run or by a person committing on the branch by hand —
// is the state it restores, never an older one. Files the tip does not
// have are removed unless ignored: ignored files (build outputs, caches,
// virtual environments: __pycache__/, node_modules/, .venv/) stay, as with
// `git clean -d` without -x. They are the run's earlier stages' derived
// state (a stage that installs dependencies for the next), no stage's
// writes or commits include them (the goal agent's snapshots leave them
// out), and the tools that make them write them whole or check them
// against their sources. What counts as ignored is decided by the tip's
// own .gitignore files and the repository's info/exclude — not by a
// .gitignore the dead attempt wrote or changed, nor by the user's global
// excludes — so the same tip always cleans to the same files. A nested
// repository the tip does not have is removed whole.

// Cleaned is what Clean changed in a worktree.
type Cleaned struct {
	// Restored are the tracked paths put back to the tip's state: changed,
	// deleted, or replaced by another kind of file. Sorted.
	Restored []string
	// Removed are the untracked paths removed: files, symbolic links, and
	// with a trailing "/" a directory removed whole (a nested repository,
	// or a directory where the tip has a file). Sorted.
	Removed []string
	// Index is set when the worktree's git index was rewritten to match
	// the tip.
	Index bool
}

// Changed reports whether Clean changed any file.
func (c Cleaned) Changed() bool { return len(c.Restored) > 0 || len(c.Removed) > 0 }

// Clean makes the working tree and the index of one of lunad's run
// worktrees (a Store from OpenWorktree) exactly HEAD's commit, as
// described above, and clears what the store still had pending for them.
// The branch and its commits do not change. Errors: ErrInvalid when s is
// not one of lunad's run worktrees (Clean never touches a person's
// checkout) or HEAD's tree has a path git would not check out; ErrLocked
// when another lunad process writes there or a git command holds its
// index.lock.
func (s *Store) Clean(ctx context.Context) (Cleaned, error) {
	if !s.isRunWorktree() {
		return Cleaned{}, fmt.Errorf("%w: %s is not one of lunad's run worktrees (%s/NAME); Clean removes files, so it works only there: use git restore and git clean in a checkout of your own", lunad.ErrInvalid, s.root, s.worktreesDir())
	}
	s.queue.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Cleaned{}, fmt.Errorf("%w: store is closed", lunad.ErrInvalid)
	}
	if err := s.lock.lock(ctx, s.opts.LockTimeout); err != nil {
		return Cleaned{}, err
	}
	defer s.lock.unlock()
	if err := s.removeDeadLocks(); err != nil {
		return Cleaned{}, err
	}
	_, tip, err := s.readHead()
	if err != nil {
		return Cleaned{}, err
	}
	root, err := s.treeOf(tip)
	if err != nil {
		return Cleaned{}, err
	}
	c := &cleaner{s: s, ctx: ctx, files: map[string]node{}, dirs: map[string]bool{}}
	if err := c.readTip(root); err != nil {
		return Cleaned{}, err
	}
	if err := c.restoreTracked(); err != nil {
		return c.done(fmt.Errorf("clean worktree %s: %w", s.root, err))
	}
	if err := c.removeUntracked(); err != nil {
		return c.done(fmt.Errorf("clean worktree %s: %w", s.root, err))
	}
	if err := c.writeIndex(); err != nil {
		return c.done(err)
	}
	clear(s.unwritten)
	if err := os.Truncate(filepath.Join(s.lunaDir, pendingName), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return c.done(fmt.Errorf("pending list: %w", err))
	}
	return c.done(nil)
}

// isRunWorktree reports whether s's working tree is one of lunad's run
// worktrees, <common dir>/luna/worktrees/NAME.
func (s *Store) isRunWorktree() bool {
	if s.gitDir == s.commonDir {
		return false
	}
	parent, want := filepath.Dir(s.root), s.worktreesDir()
	if parent == want {
		return true
	}
	a, aerr := filepath.EvalSymlinks(parent)
	b, berr := filepath.EvalSymlinks(want)
	return aerr == nil && berr == nil && a == b
}

// cleaner is one Clean.
type cleaner struct {
	s     *Store
	ctx   context.Context
	files map[string]node // the tip's files, symbolic links and submodules
	order []string        // their paths, in index order
	dirs  map[string]bool // the tip's directories
	// ignores matches info/exclude's patterns, then the tip's .gitignore
	// files', shallower before deeper (go-git's matcher gives the last
	// matching pattern the last word); nil when there are none.
	ignores gitignore.Matcher
	out     Cleaned
}

// done returns what c did, sorted, with err.
func (c *cleaner) done(err error) (Cleaned, error) {
	slices.Sort(c.out.Restored)
	slices.Sort(c.out.Removed)
	return c.out, err
}

// readTip reads the tip's tree root: its entries, its directories and its
// ignore rules.
func (c *cleaner) readTip(root plumbing.Hash) error {
	type ignoreFile struct {
		dir  []string
		blob plumbing.Hash
	}
	var ignoreFiles []ignoreFile
	err := c.s.walkFiles(root, "", func(p string, n node) error {
		if !checkoutSafe(p) {
			return fmt.Errorf("%w: the tree has a path git would not check out: %q; the worktree cannot be cleaned to it", lunad.ErrInvalid, p)
		}
		c.files[p] = n
		c.order = append(c.order, p)
		dir := strings.Split(p, "/")
		for i := 1; i < len(dir); i++ {
			c.dirs[strings.Join(dir[:i], "/")] = true
		}
		if dir[len(dir)-1] == ".gitignore" && (n.mode == filemode.Regular || n.mode == modeExec) {
			ignoreFiles = append(ignoreFiles, ignoreFile{dir[:len(dir)-1], n.hash})
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(c.order) // git orders the index by the bytes of the path
	var patterns []gitignore.Pattern
	if b, err := os.ReadFile(filepath.Join(c.s.commonDir, "info", "exclude")); err == nil {
		patterns = parseIgnores(b, nil)
	}
	slices.SortStableFunc(ignoreFiles, func(a, b ignoreFile) int { return cmp.Compare(len(a.dir), len(b.dir)) })
	for _, f := range ignoreFiles {
		b, err := c.s.readBlob(f.blob)
		if err != nil {
			return err
		}
		patterns = append(patterns, parseIgnores(b, f.dir)...)
	}
	if len(patterns) > 0 {
		c.ignores = gitignore.NewMatcher(patterns)
	}
	return nil
}

// parseIgnores reads the patterns of an ignore file in directory dir.
func parseIgnores(b []byte, dir []string) []gitignore.Pattern {
	var out []gitignore.Pattern
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if !strings.HasPrefix(line, "#") && strings.TrimSpace(line) != "" {
			out = append(out, gitignore.ParsePattern(line, dir))
		}
	}
	return out
}

// ignored reports whether the untracked path rel is ignored.
func (c *cleaner) ignored(rel string, dir bool) bool {
	return c.ignores != nil && c.ignores.Match(strings.Split(rel, "/"), dir)
}

// full is rel's absolute path in the worktree.
func (c *cleaner) full(rel string) string { return filepath.Join(c.s.root, filepath.FromSlash(rel)) }

// restoreTracked puts every path of the tip whose file differs back to the
// tip's state, and removes whatever stands where the tip has a directory.
func (c *cleaner) restoreTracked() error {
	stats := readIndexStats(c.s.gitDir)
	for _, p := range c.order {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if err := c.clearParents(p); err != nil {
			return err
		}
		n := c.files[p]
		same, err := c.matches(p, n, stats)
		if err != nil {
			return err
		}
		if !same {
			if err := c.put(p, n); err != nil {
				return err
			}
			c.out.Restored = append(c.out.Restored, p)
		}
	}
	return nil
}

// clearParents removes a file or symbolic link standing where the tip has
// one of p's parent directories, so that nothing written below it can
// follow a link out of the worktree.
func (c *cleaner) clearParents(p string) error {
	for i := range len(p) {
		if p[i] != '/' {
			continue
		}
		fi, err := os.Lstat(c.full(p[:i]))
		if errors.Is(err, os.ErrNotExist) {
			return nil // nor is anything below it: put makes them
		}
		if err != nil {
			return err
		}
		if fi.IsDir() {
			continue
		}
		if err := os.Remove(c.full(p[:i])); err != nil {
			return err
		}
		c.out.Removed = append(c.out.Removed, p[:i])
		return nil
	}
	return nil
}

// matches reports whether the worktree holds the tip's entry n at p.
func (c *cleaner) matches(p string, n node, stats indexStats) (bool, error) {
	full := c.full(p)
	fi, err := os.Lstat(full)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case n.mode == filemode.Submodule:
		return fi.IsDir(), nil // its own checkout is its business
	case fi.IsDir():
		return false, nil
	}
	if e, ok := stats.entries[p]; ok && n.mode != filemode.Symlink && e.hash == n.hash && e.mode == uint32(n.mode) && stats.unchanged(e, full) {
		return true, nil
	}
	h, err := c.s.workState(full, n.mode)
	return h == n.hash, err
}

// put writes the tip's entry n at p, replacing what is there.
func (c *cleaner) put(p string, n node) error {
	full := c.full(p)
	if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
		// A directory where the tip has a file: what it holds is not the
		// tip's, ignored or not.
		if err := os.RemoveAll(full); err != nil {
			return err
		}
		if n.mode != filemode.Submodule {
			c.out.Removed = append(c.out.Removed, p+"/")
		}
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	if n.mode == filemode.Submodule {
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return os.Mkdir(full, 0o755)
	}
	content, err := c.s.readBlob(n.hash)
	if err != nil {
		return err
	}
	dir := cmp.Or(c.s.workTmp, filepath.Dir(full))
	if n.mode == filemode.Symlink {
		tmp, err := os.MkdirTemp(dir, ".lunad-clean-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		link := filepath.Join(tmp, "link")
		if err := os.Symlink(string(content), link); err != nil {
			return err
		}
		return os.Rename(link, full)
	}
	f, err := os.CreateTemp(dir, ".lunad-clean-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone once renamed
	perm := os.FileMode(0o644)
	if n.mode == modeExec {
		perm = 0o755
	}
	_, err = f.Write(content)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), full)
}

// removeUntracked removes every file of the worktree that the tip does not
// have and does not ignore, then the directories that leaves empty.
func (c *cleaner) removeUntracked() error {
	var emptied []string // untracked directories descended into
	root := c.s.root
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if cerr := c.ctx.Err(); cerr != nil {
			return cerr
		}
		if p == root {
			return nil
		}
		rel := filepath.ToSlash(p[len(root)+1:])
		isDir := d.IsDir()
		if rel == ".git" { // the worktree's link to its git dir
			if isDir {
				return filepath.SkipDir
			}
			return nil
		}
		if _, tracked := c.files[rel]; tracked {
			if isDir {
				return filepath.SkipDir // a submodule
			}
			return nil
		}
		if c.ignored(rel, isDir) {
			if isDir {
				return filepath.SkipDir // nothing below an ignored directory is the tip's
			}
			return nil
		}
		if c.dirs[rel] {
			return nil
		}
		if !isDir {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			c.out.Removed = append(c.out.Removed, rel)
			return nil
		}
		if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
			// A repository of its own, made by the run: removed whole.
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			c.out.Removed = append(c.out.Removed, rel+"/")
			return filepath.SkipDir
		}
		emptied = append(emptied, p)
		return nil
	})
	if err != nil {
		return err
	}
	// Deepest first; one still holding ignored files stays.
	for _, dir := range slices.Backward(emptied) {
		if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
			return err
		}
	}
	return nil
}

// writeIndex rewrites the worktree's index as the tip's entries with the
// stat data of their files, unless it has exactly them already.
func (c *cleaner) writeIndex() error {
	stats := readIndexStats(c.s.gitDir)
	if c.indexMatches(stats) {
		return nil
	}
	body := make([][]byte, 0, len(c.order)+1)
	header := make([]byte, 12)
	copy(header, "DIRC")
	binary.BigEndian.PutUint32(header[4:], 2)
	binary.BigEndian.PutUint32(header[8:], uint32(len(c.order)))
	body = append(body, header)
	for _, p := range c.order {
		n := c.files[p]
		var st *syscall.Stat_t
		switch n.mode {
		case filemode.Submodule:
		case filemode.Symlink:
			var lst syscall.Stat_t
			if syscall.Lstat(c.full(p), &lst) == nil {
				st = &lst
			}
		default:
			w, err := c.s.readWork(p)
			if err != nil {
				return fmt.Errorf("clean worktree %s: %w", c.s.root, err)
			}
			if w.hash == n.hash {
				st = w.stat
			}
		}
		body = append(body, newIndexEntry(p, n.hash, n.mode, st))
	}
	sum, marks := signIndex(body, 0, nil)
	lock, err := lockIndex(c.s.gitDir)
	if err != nil {
		return err
	}
	if err := c.s.lastIndex.write(c.s.gitDir, lock, append(body, sum), marks); err != nil {
		return err
	}
	c.out.Index = true
	return nil
}

// indexMatches reports whether the index read as stats has exactly the
// tip's entries, each with the stat data of its unchanged file.
func (c *cleaner) indexMatches(stats indexStats) bool {
	if stats.entries == nil || stats.all != len(c.order) || len(stats.entries) != len(c.order) {
		return false
	}
	for _, p := range c.order {
		n := c.files[p]
		e, ok := stats.entries[p]
		if !ok || e.hash != n.hash || e.mode != uint32(n.mode) {
			return false
		}
		if n.mode != filemode.Submodule && n.mode != filemode.Symlink && !stats.unchanged(e, c.full(p)) {
			return false
		}
	}
	return true
}
