package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
)

// FastForward moves branch from base to the tip of branch from — taking
// the work done on from, which was made at base — and returns branch as
// it is then. When branch is checked out here the working tree and the
// index follow, as in Switch (pending list first, then the ref, then the
// files); a branch checked out nowhere only moves. A branch already at
// from's tip is left as it is (accepting twice is accepting once).
// Errors: ErrInvalid for a bad name or base; ErrNotFound
// (*lunad.NotFoundError) for a branch that does not exist; ErrConflict as a
// *lunad.BranchMovedError (Branch, Base, Now, RunBranch = from) when
// branch is no longer at base, and as a plain conflict when from's tip does
// not descend from base or branch is checked out in another worktree;
// ErrDirty naming the files whose uncommitted changes the move would
// overwrite; ErrLocked when the workspace stays locked.
func (s *Store) FastForward(ctx context.Context, branch, base, from string) (lunad.Branch, error) {
	for _, b := range []string{branch, from} {
		if err := checkBranch(b); err != nil {
			return lunad.Branch{}, err
		}
	}
	baseHash, ok := parseHash(strings.ToLower(base))
	if !ok {
		return lunad.Branch{}, fmt.Errorf("%w: base %q is not a commit hash", lunad.ErrInvalid, base)
	}
	release, err := s.lockTree(ctx)
	if err != nil {
		return lunad.Branch{}, err
	}
	defer release()
	ref := "refs/heads/" + branch
	cur, err := readRef(s.commonDir, ref)
	if errors.Is(err, lunad.ErrNotFound) {
		return lunad.Branch{}, &lunad.NotFoundError{Kind: "branch", Ref: branch}
	}
	if err != nil {
		return lunad.Branch{}, err
	}
	to, err := readRef(s.commonDir, "refs/heads/"+from)
	if errors.Is(err, lunad.ErrNotFound) {
		return lunad.Branch{}, &lunad.NotFoundError{Kind: "branch", Ref: from}
	}
	if err != nil {
		return lunad.Branch{}, err
	}
	head, _, err := s.readHead()
	if err != nil {
		return lunad.Branch{}, err
	}
	out := lunad.Branch{Name: branch, Commit: to.String(), Current: head == ref}
	if cur == to {
		return out, nil
	}
	if cur != baseHash {
		return lunad.Branch{}, &lunad.BranchMovedError{Branch: branch, Base: baseHash.String(), Now: cur.String(), RunBranch: from}
	}
	if ok, err := s.descends(to, baseHash); err != nil {
		return lunad.Branch{}, err
	} else if !ok {
		return lunad.Branch{}, fmt.Errorf("%w: %s (at %.12s) does not descend from %.12s, where %s is, so %s cannot be fast-forwarded to it; merge it yourself with git", lunad.ErrConflict, from, to, baseHash, branch, branch)
	}
	if head != ref {
		if where := s.worktreeOn(ref); where != "" {
			return lunad.Branch{}, fmt.Errorf("%w: branch %s is checked out in the worktree %s; accept from there, or switch it to another branch first", lunad.ErrConflict, branch, where)
		}
		return out, updateRef(s.commonDir, ref, cur, to)
	}
	pending, err := s.followPlan(cur, to, "fast-forwarding "+branch)
	if err != nil {
		return lunad.Branch{}, err
	}
	pendingPath := filepath.Join(s.lunaDir, pendingName)
	var before int64
	if fi, err := os.Stat(pendingPath); err == nil {
		before = fi.Size()
	}
	if err := s.appendPending(pending); err != nil {
		return lunad.Branch{}, err
	}
	if err := updateRef(s.commonDir, ref, cur, to); err != nil {
		// The ref did not move: its lines must not make recovery take a
		// person's files for lunad's.
		if terr := os.Truncate(pendingPath, before); terr != nil {
			err = errors.Join(err, fmt.Errorf("pending list: %w", terr))
		}
		return lunad.Branch{}, err
	}
	if err := s.syncIndexHeld(); err != nil {
		return lunad.Branch{}, err
	}
	if _, _, _, err := s.current(); err != nil {
		return lunad.Branch{}, err
	}
	return out, nil
}

// descends reports whether commit tip is commit base or has it among its
// ancestors. Callers hold s.mu.
func (s *Store) descends(tip, base plumbing.Hash) (bool, error) {
	seen := map[plumbing.Hash]bool{tip: true}
	queue := []plumbing.Hash{tip}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if h == base {
			return true, nil
		}
		c, err := s.readCommit(h)
		if err != nil {
			return false, err
		}
		for _, p := range c.Parents {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return false, nil
}

// DeleteBranch deletes a branch, loose or packed, with its reflog if git
// kept one; a branch that does not exist is no error. Errors: ErrInvalid
// for a bad name; ErrConflict when the branch is checked out here or in
// another worktree; ErrLocked when git holds the ref's lock.
func (s *Store) DeleteBranch(ctx context.Context, name string) error {
	if err := checkBranch(name); err != nil {
		return err
	}
	s.queue.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	ref := "refs/heads/" + name
	head, _, err := s.readHead()
	if err != nil {
		return err
	}
	if head == ref {
		return fmt.Errorf("%w: branch %s is checked out in %s; switch to another branch first", lunad.ErrConflict, name, s.root)
	}
	if where := s.worktreeOn(ref); where != "" {
		return fmt.Errorf("%w: branch %s is checked out in the worktree %s; switch it to another branch first", lunad.ErrConflict, name, where)
	}
	if err := deleteRef(s.commonDir, ref); err != nil {
		return err
	}
	heads := filepath.Join(s.commonDir, "refs", "heads")
	removeEmptyDirs(filepath.Dir(filepath.Join(heads, filepath.FromSlash(name))), heads)
	logs := filepath.Join(s.commonDir, "logs", "refs", "heads")
	removeEmptyDirs(filepath.Dir(filepath.Join(logs, filepath.FromSlash(name))), logs)
	return nil
}
