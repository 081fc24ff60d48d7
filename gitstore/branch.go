package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/lunad/lunad"
)

// Branch creates a branch at from (a branch name or commit; "" for HEAD)
// without switching to it. Returns ErrExists if it exists.
func (s *Store) Branch(ctx context.Context, name, from string) (lunad.Branch, error) {
	if err := checkBranch(name); err != nil {
		return lunad.Branch{}, err
	}
	s.queue.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	_, tip, _, err := s.current()
	if err != nil {
		return lunad.Branch{}, err
	}
	at := tip
	if from != "" {
		if at, err = s.resolveRev(from); err != nil {
			return lunad.Branch{}, err
		}
	}
	if at.IsZero() {
		return lunad.Branch{}, fmt.Errorf("%w: nothing to branch from: the repository has no commits", lunad.ErrInvalid)
	}
	refs, err := listBranches(s.commonDir)
	if err != nil {
		return lunad.Branch{}, err
	}
	existing := make(map[string]struct{}, len(refs))
	for r := range refs {
		existing[strings.TrimPrefix(r, "refs/heads/")] = struct{}{}
	}
	if _, ok := existing[name]; ok {
		return lunad.Branch{}, fmt.Errorf("%w: branch %s", lunad.ErrExists, name)
	}
	if err := checkBranchFree(name, existing); err != nil {
		return lunad.Branch{}, err
	}
	err = updateRef(s.commonDir, "refs/heads/"+name, plumbing.ZeroHash, at)
	if errors.Is(err, lunad.ErrConflict) {
		return lunad.Branch{}, fmt.Errorf("%w: branch %s", lunad.ErrExists, name)
	}
	return lunad.Branch{Name: name, Commit: at.String()}, err
}

// resolveRev accepts a branch name or a commit.
func (s *Store) resolveRev(rev string) (plumbing.Hash, error) {
	if h, err := readRef(s.commonDir, "refs/heads/"+rev); err == nil {
		return h, nil
	}
	h, err := s.resolveCommit(rev)
	if err != nil {
		return h, err
	}
	if _, err := s.treeOf(h); err != nil {
		return h, err
	}
	return h, nil
}

// Branches lists every branch, marking the current one.
func (s *Store) Branches(ctx context.Context) ([]lunad.Branch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	head, _, err := s.readHead()
	if err != nil {
		return nil, err
	}
	refs, err := listBranches(s.commonDir)
	if err != nil {
		return nil, err
	}
	var out []lunad.Branch
	for name, h := range refs {
		out = append(out, lunad.Branch{Name: strings.TrimPrefix(name, "refs/heads/"), Commit: h.String(), Current: name == head})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Switch checks out a branch: HEAD moves and the working tree and index
// follow. Returns ErrNotFound for an unknown branch and ErrDirty, naming
// the files, when uncommitted changes would be overwritten.
func (s *Store) Switch(ctx context.Context, name string) (lunad.Branch, error) {
	if err := checkBranch(name); err != nil {
		return lunad.Branch{}, err
	}
	release, err := s.lockTree(ctx)
	if err != nil {
		return lunad.Branch{}, err
	}
	defer release()
	head, tip, err := s.readHead()
	if err != nil {
		return lunad.Branch{}, err
	}
	ref := "refs/heads/" + name
	target, err := readRef(s.commonDir, ref)
	if err != nil {
		return lunad.Branch{}, &lunad.NotFoundError{Kind: "branch", Ref: name}
	}
	if head != ref {
		if where := s.worktreeOn(ref); where != "" {
			return lunad.Branch{}, fmt.Errorf("%w: branch %s is checked out in the worktree %s; switch to another branch there first, or work on it there (git refuses this too)", lunad.ErrConflict, name, where)
		}
	}
	pending, err := s.followPlan(tip, target, "switching to "+name)
	if err != nil {
		return lunad.Branch{}, err
	}
	if head == ref {
		return lunad.Branch{Name: name, Commit: target.String(), Current: true}, nil
	}
	// Pending list first, then HEAD, then files: a crash in between is
	// repaired towards the new HEAD by the pending-list recovery.
	if err := s.appendPending(pending); err != nil {
		return lunad.Branch{}, err
	}
	if err := writeHead(s.gitDir, ref); err != nil {
		return lunad.Branch{}, fmt.Errorf("switch: %w", err)
	}
	if err := s.syncIndexHeld(); err != nil {
		return lunad.Branch{}, err
	}
	if _, _, _, err := s.current(); err != nil {
		return lunad.Branch{}, err
	}
	return lunad.Branch{Name: name, Commit: target.String(), Current: true}, nil
}

// lockTree drains the write queue, takes s.mu and the workspace lock and
// brings the index up to date: what moving the checked-out branch (Switch,
// FastForward) needs. release lets both go.
func (s *Store) lockTree(ctx context.Context) (release func(), err error) {
	s.queue.wait()
	s.mu.Lock()
	if err := s.lock.lock(ctx, s.opts.LockTimeout); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	release = func() {
		s.lock.unlock()
		s.mu.Unlock()
	}
	if err := s.syncIndexHeld(); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// followPlan is the pending-list lines that bring the working tree from
// commit from to commit to (see worktree.go), or ErrDirty naming the files
// whose uncommitted changes doing (what: "switching to main") would
// overwrite. Callers hold s.mu and the workspace lock.
func (s *Store) followPlan(from, to plumbing.Hash, what string) ([]byte, error) {
	a, err := s.treeOf(from)
	if err != nil {
		return nil, err
	}
	b, err := s.treeOf(to)
	if err != nil {
		return nil, err
	}
	changed := map[string][2]node{}
	if err := s.diffTrees(a, b, "", changed); err != nil {
		return nil, err
	}
	var dirty []string
	var pending bytes.Buffer
	for p, ft := range changed {
		work, _, err := s.workHash(p)
		if err != nil {
			return nil, err
		}
		if work != ft[0].hash && work != ft[1].hash {
			dirty = append(dirty, p)
		}
		s.pendingLine(&pending, ft[0].hash, ft[1].hash, p)
	}
	if len(dirty) > 0 {
		sort.Strings(dirty)
		return nil, fmt.Errorf("%w: %s would overwrite %s; commit them with `lunad edit` or `git commit`, or discard them", lunad.ErrDirty, what, strings.Join(dirty, ", "))
	}
	return pending.Bytes(), nil
}

// diffTrees collects the files that differ between two trees, skipping
// subtrees with equal hashes.
func (s *Store) diffTrees(a, b plumbing.Hash, prefix string, out map[string][2]node) error {
	if a == b {
		return nil
	}
	list := func(h plumbing.Hash) (map[string]node, error) {
		m := map[string]node{}
		if h.IsZero() {
			return m, nil
		}
		es, err := s.readTree(h)
		for _, e := range es {
			m[e.Name] = node{hash: e.Hash, mode: e.Mode}
		}
		return m, err
	}
	am, err := list(a)
	if err != nil {
		return err
	}
	bm, err := list(b)
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for n := range am {
		names[n] = true
	}
	for n := range bm {
		names[n] = true
	}
	for n := range names {
		x, y := am[n], bm[n]
		if x == y {
			continue
		}
		p := prefix + n
		var xt, yt plumbing.Hash
		if x.mode == modeDir {
			xt, x = x.hash, node{}
		}
		if y.mode == modeDir {
			yt, y = y.hash, node{}
		}
		if !xt.IsZero() || !yt.IsZero() {
			if err := s.diffTrees(xt, yt, p+"/", out); err != nil {
				return err
			}
		}
		if x != y {
			out[p] = [2]node{x, y}
		}
	}
	return nil
}

// worktreeOn returns the path of another worktree of the repository whose
// HEAD is on ref, or "": the main checkout (unless the repository is bare)
// and every linked one (<common dir>/worktrees/NAME, whose gitdir file
// names its .git file). As git does, a branch is checked out in one
// worktree at a time, so that a write there (which moves the branch) never
// leaves another worktree's index and files behind its HEAD.
func (s *Store) worktreeOn(ref string) string {
	type worktree struct{ gitDir, root string }
	var all []worktree
	if !repoIsBare(s.commonDir) {
		all = append(all, worktree{s.commonDir, filepath.Dir(s.commonDir)})
	}
	linked, _ := os.ReadDir(filepath.Join(s.commonDir, "worktrees"))
	for _, e := range linked {
		gd := filepath.Join(s.commonDir, "worktrees", e.Name())
		root := gd
		if b, err := os.ReadFile(filepath.Join(gd, "gitdir")); err == nil {
			if p := strings.TrimSpace(string(b)); p != "" {
				if !filepath.IsAbs(p) {
					p = filepath.Join(gd, p)
				}
				root = filepath.Dir(filepath.Clean(p))
			}
		}
		all = append(all, worktree{gd, root})
	}
	self, err := os.Stat(s.gitDir)
	if err != nil {
		return ""
	}
	for _, wt := range all {
		if fi, err := os.Stat(wt.gitDir); err != nil || os.SameFile(fi, self) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(wt.gitDir, "HEAD"))
		if err != nil {
			continue
		}
		if head, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: "); ok && head == ref {
			return wt.root
		}
	}
	return ""
}

// repoIsBare reports whether the repository's config says core.bare.
func repoIsBare(commonDir string) bool {
	b, err := os.ReadFile(filepath.Join(commonDir, "config"))
	if err != nil {
		return false
	}
	cfg := gitconfig.New()
	if gitconfig.NewDecoder(bytes.NewReader(b)).Decode(cfg) != nil {
		return false
	}
	return strings.EqualFold(cfg.Section("core").Option("bare"), "true")
}
