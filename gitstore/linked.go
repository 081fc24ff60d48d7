package gitstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"golang.org/x/sys/unix"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/atomicfile"
)

// lunad's own linked worktrees, one per isolated run: a branch checked out
// under <common dir>/luna/worktrees/NAME, laid out as `git worktree add`
// lays one out (go-git has no such command):
//
//	<common>/luna/worktrees/NAME/.git   "gitdir: <common>/worktrees/NAME"
//	<common>/worktrees/NAME/HEAD        "ref: refs/heads/BRANCH"
//	<common>/worktrees/NAME/commondir   "../.."
//	<common>/worktrees/NAME/gitdir      "<common>/luna/worktrees/NAME/.git"
//	<common>/worktrees/NAME/index       the checked-out files with their stat data
//
// so git sees it as one of the repository's worktrees (`git worktree
// list`, `git status` clean in it, `git fsck` clean), and a Store opened
// there (Open, OpenWorktree) commits on the branch with the worktree's
// files and index following. It is made in a temporary directory beside
// its place and renamed into it once its files, its admin dir and its
// index are durable: a crash leaves either no worktree there or a
// complete one.

// worktreesDir is where lunad's linked worktrees live.
func (s *Store) worktreesDir() string { return filepath.Join(s.commonDir, "luna", "worktrees") }

// WorktreeDir is the directory of lunad's linked worktree NAME:
// <common dir>/luna/worktrees/NAME (it may not exist).
func (s *Store) WorktreeDir(name string) string { return filepath.Join(s.worktreesDir(), name) }

// adminDir is git's directory for linked worktree NAME.
func (s *Store) adminDir(name string) string { return filepath.Join(s.commonDir, "worktrees", name) }

// checkWorktreeName refuses a name that is not one plain directory name.
func checkWorktreeName(name string) error {
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") || strings.ContainsAny(name, "/\\\x00") || len(name) > 128 {
		return fmt.Errorf("%w: worktree name %q: use a plain name (letters, digits, '-', '_'), not starting with '.'", lunad.ErrInvalid, name)
	}
	return nil
}

// AddWorktree makes sure branch is checked out in lunad's linked worktree
// NAME (WorktreeDir) and returns its directory, and whether it was made by
// this call. When the branch does not exist it is made at base first (a
// commit hash; with base "": ErrNotFound as a *lunad.NotFoundError). A
// complete worktree already there is kept as it is, files and all; one
// left incomplete by a crash, or removed by hand, is made again from the
// branch's tip. Errors: ErrInvalid for a bad name, branch or base;
// ErrConflict when the branch is checked out in another worktree, or the
// worktree there is on another branch; ErrExists when git's worktree NAME
// is another directory's, or the branch's name collides with an existing
// branch (luna/x when luna is a branch).
func (s *Store) AddWorktree(ctx context.Context, name, branch, base string) (string, bool, error) {
	if err := checkWorktreeName(name); err != nil {
		return "", false, err
	}
	if err := checkBranch(branch); err != nil {
		return "", false, err
	}
	dir, admin := s.WorktreeDir(name), s.adminDir(name)
	ref := "refs/heads/" + branch
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", false, fmt.Errorf("%w: store is closed", lunad.ErrInvalid)
	}
	if ok, err := worktreeIntact(dir, admin, ref); ok || err != nil {
		return dir, false, err
	}
	tip, err := readRef(s.commonDir, ref)
	if errors.Is(err, lunad.ErrNotFound) {
		tip, err = s.newBranchAt(branch, base)
	}
	if err != nil {
		return "", false, err
	}
	// What is left of this worktree goes first: its admin dir names the
	// branch too.
	if err := s.clearWorktree(name); err != nil {
		return "", false, err
	}
	where := s.worktreeOn(ref)
	if head, _, err := s.readHead(); err == nil && head == ref {
		where = s.root
	}
	if where != "" {
		return "", false, fmt.Errorf("%w: branch %s is checked out in %s; switch that checkout to another branch, so that the run's worktree can have it", lunad.ErrConflict, branch, where)
	}
	root, err := s.treeOf(tip)
	if err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(s.worktreesDir(), 0o755); err != nil {
		return "", false, fmt.Errorf("make worktree %s: %w", name, err)
	}
	tmp, err := os.MkdirTemp(s.worktreesDir(), ".new-"+name+"-")
	if err != nil {
		return "", false, fmt.Errorf("make worktree %s: %w", name, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	entries, err := s.checkoutTree(ctx, tmp, root)
	if err != nil {
		return "", false, fmt.Errorf("check out %s in worktree %s: %w", branch, name, err)
	}
	if err := writeAdminDir(admin, dir, ref, entries); err != nil {
		return "", false, fmt.Errorf("make worktree %s: %w", name, err)
	}
	s.seedCommitCache(filepath.Join(admin, "luna"))
	if err := os.WriteFile(filepath.Join(tmp, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
		return "", false, fmt.Errorf("make worktree %s: %w", name, err)
	}
	// Everything written so far becomes durable at once, then the
	// worktree appears whole.
	if err := syncFS(tmp); err != nil {
		return "", false, fmt.Errorf("make worktree %s: %w", name, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", false, fmt.Errorf("make worktree %s: %w", name, err)
	}
	done = true
	if err := atomicfile.Sync(s.worktreesDir()); err != nil {
		return "", false, fmt.Errorf("make worktree %s: %w", name, err)
	}
	return dir, true, nil
}

// seedCommitCache gives a new worktree's store (its state in lunaDir) a
// copy of this store's cache of commit provenance, keyed by commit, so that
// opening it does not parse the whole history's trailers again. A copy
// that fails costs only that.
func (s *Store) seedCommitCache(lunaDir string) {
	b, err := os.ReadFile(filepath.Join(s.lunaDir, "commits"))
	if err != nil || os.MkdirAll(lunaDir, 0o755) != nil {
		return
	}
	if err := os.WriteFile(filepath.Join(lunaDir, "commits"), b, 0o644); err != nil {
		s.opts.Logger.Debug("history cache not copied to a new worktree", "err", err)
	}
}

// worktreeIntact reports whether the worktree at dir is complete — its
// .git file names admin, whose HEAD and gitdir are there — and on ref;
// one on another branch is ErrConflict (someone switched it by hand).
func worktreeIntact(dir, admin, ref string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, ".git"))
	if err != nil || strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:")) != admin {
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(admin, "gitdir")); err != nil {
		return false, nil
	}
	head, err := os.ReadFile(filepath.Join(admin, "HEAD"))
	if err != nil {
		return false, nil
	}
	if got := strings.TrimSpace(string(head)); got != "ref: "+ref {
		return false, fmt.Errorf("%w: the worktree %s is at %q, not on %s; switch it back (git -C %s switch %s) so that the run's commits land on its branch", lunad.ErrConflict, dir, got, ref, dir, strings.TrimPrefix(ref, "refs/heads/"))
	}
	return true, nil
}

// newBranchAt makes branch at base, a commit hash, for AddWorktree.
// Callers hold s.mu.
func (s *Store) newBranchAt(branch, base string) (plumbing.Hash, error) {
	if base == "" {
		return plumbing.ZeroHash, &lunad.NotFoundError{Kind: "branch", Ref: branch}
	}
	at, ok := parseHash(strings.ToLower(base))
	if !ok {
		return at, fmt.Errorf("%w: base %q of branch %s is not a commit hash", lunad.ErrInvalid, base, branch)
	}
	if _, err := s.treeOf(at); err != nil {
		return at, err
	}
	refs, err := listBranches(s.commonDir)
	if err != nil {
		return at, err
	}
	existing := make(map[string]struct{}, len(refs))
	for r := range refs {
		existing[strings.TrimPrefix(r, "refs/heads/")] = struct{}{}
	}
	if err := checkBranchFree(branch, existing); err != nil {
		return at, err
	}
	err = updateRef(s.commonDir, "refs/heads/"+branch, plumbing.ZeroHash, at)
	if errors.Is(err, lunad.ErrConflict) { // made meanwhile: take it as it is
		return readRef(s.commonDir, "refs/heads/"+branch)
	}
	return at, err
}

// clearWorktree removes what an incomplete or removed worktree NAME left:
// temporary directories of an interrupted AddWorktree, the directory
// itself, and git's admin dir when it is this worktree's. Callers hold
// s.mu.
func (s *Store) clearWorktree(name string) error {
	dir, admin := s.WorktreeDir(name), s.adminDir(name)
	left, _ := filepath.Glob(filepath.Join(s.worktreesDir(), ".new-"+name+"-*"))
	for _, p := range left {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove what a crash left of worktree %s: %w", name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(admin, "gitdir")); err == nil {
		// lunad's own, here or where the repository was before it moved.
		owner := filepath.Dir(strings.TrimSpace(string(b)))
		if owner != dir && !strings.HasSuffix(owner, string(filepath.Separator)+filepath.Join("luna", "worktrees", name)) {
			return fmt.Errorf("%w: git's worktree %s is %s, not lunad's; remove it (git worktree remove %s) or choose another run", lunad.ErrExists, name, owner, owner)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove worktree %s: %w", name, err)
	}
	if err := os.RemoveAll(admin); err != nil {
		return fmt.Errorf("remove worktree %s: %w", name, err)
	}
	return nil
}

// RemoveWorktree removes lunad's linked worktree NAME: its directory, then
// git's admin dir (so that a crash in between leaves a worktree git lists
// as prunable, removed by the next call). Nothing there is no error. The
// branch stays; a Store open on the worktree must be closed first.
func (s *Store) RemoveWorktree(ctx context.Context, name string) error {
	if err := checkWorktreeName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clearWorktree(name)
}

// OpenWorktree opens a Store on lunad's linked worktree NAME with s's
// options (its clock, IDs, person and logger), its index following each
// write before the write returns (Options.IndexSyncDelay, at least a
// second): agents run git and tests there. ErrNotWorkspace if there is
// none (AddWorktree makes it).
func (s *Store) OpenWorktree(name string) (*Store, error) {
	if err := checkWorktreeName(name); err != nil {
		return nil, err
	}
	dir := s.WorktreeDir(name)
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		return nil, fmt.Errorf("%w: no worktree %s (%v)", lunad.ErrNotWorkspace, name, err)
	}
	opts := s.opts
	opts.IndexSyncDelay = max(opts.IndexSyncDelay, time.Second)
	return Open(dir, opts)
}

// fileEntry is one checked-out file for the index.
type fileEntry struct {
	path string
	node node
	st   *syscall.Stat_t // nil for a gitlink
}

// checkoutTree writes the files of tree root under dir, as git checks a
// tree out — regular and executable files, symbolic links, and an empty
// directory for a submodule — and returns them in index order with their
// stat data.
func (s *Store) checkoutTree(ctx context.Context, dir string, root plumbing.Hash) ([]fileEntry, error) {
	var out []fileEntry
	err := s.walkFiles(root, "", func(p string, n node) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !checkoutSafe(p) {
			return fmt.Errorf("%w: the tree has a path git would not check out: %q", lunad.ErrInvalid, p)
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		e := fileEntry{path: p, node: n}
		switch n.mode {
		case filemode.Submodule:
			out = append(out, e)
			return os.Mkdir(full, 0o755)
		case filemode.Symlink:
			target, err := s.readBlob(n.hash)
			if err != nil {
				return err
			}
			if err := os.Symlink(string(target), full); err != nil {
				return err
			}
		default:
			b, err := s.readBlob(n.hash)
			if err != nil {
				return err
			}
			perm := os.FileMode(0o644)
			if n.mode == modeExec {
				perm = 0o755
			}
			if err := os.WriteFile(full, b, perm); err != nil {
				return err
			}
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(full, &st); err != nil {
			return err
		}
		e.st = &st
		out = append(out, e)
		return nil
	})
	// git orders the index by the bytes of the path.
	slices.SortFunc(out, func(a, b fileEntry) int { return strings.Compare(a.path, b.path) })
	return out, err
}

// checkoutSafe reports whether a tree's path stays inside the worktree
// and out of its .git, as git's own checkout requires.
func checkoutSafe(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." || isDotGit(c) || strings.ContainsRune(c, 0) {
			return false
		}
	}
	return true
}

// writeAdminDir writes git's admin dir of a linked worktree at dir on
// ref, with an index of entries.
func writeAdminDir(admin, dir, ref string, entries []fileEntry) error {
	if err := os.MkdirAll(admin, 0o755); err != nil {
		return err
	}
	for name, content := range map[string]string{
		"HEAD":      "ref: " + ref + "\n",
		"commondir": "../..\n",
		"gitdir":    filepath.Join(dir, ".git") + "\n",
	} {
		if err := os.WriteFile(filepath.Join(admin, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	idx := &index.Index{Version: 2}
	for _, fe := range entries {
		e := &index.Entry{Name: fe.path, Hash: fe.node.hash, Mode: fe.node.mode}
		if fe.st != nil {
			statEntry(e, fe.st)
		}
		idx.Entries = append(idx.Entries, e)
	}
	f, err := os.Create(filepath.Join(admin, "index"))
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = index.NewEncoder(bw).Encode(idx)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncFS makes everything written on dir's filesystem durable: one
// syncfs(2), or an fsync of every file below dir where it is not
// supported.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	err = unix.Syncfs(int(f.Fd()))
	if err != unix.ENOSYS && err != unix.EOPNOTSUPP {
		return err
	}
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		return atomicfile.Sync(p)
	})
}
