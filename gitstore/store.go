package gitstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"golang.org/x/sys/unix"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/atomicfile"
	"github.com/lunad/lunad/internal/gitdir"
)

// Signature names the author of a commit.
type Signature struct {
	Name  string
	Email string
}

// Options configure a Store. Zero values take the defaults.
type Options struct {
	// Clock stamps commits (default time.Now). Inject a fixed clock for
	// reproducible commit hashes.
	Clock func() time.Time
	// NewID makes artifact IDs (default: 8 random base32 characters).
	NewID func() string
	// Human is the author of edits that name no agent and of changes found
	// in the working tree (default: git's user.name/user.email, else "lunad user").
	Human Signature
	// LockTimeout bounds the wait for another lunad writer (default 10s).
	LockTimeout time.Duration
	// IndexSyncDelay > 0 is for a long-lived store shared with people
	// running git (the daemon's): each write patches the .git/index entries
	// of the paths it touched before it returns, and what it could not do
	// (index.lock held, an index format the byte-level patcher does not
	// handle) follows at most this long after the first write it has not
	// followed. Default 0 (one-shot processes): the index is synced at
	// Close only.
	IndexSyncDelay time.Duration
	// MaxContent caps an artifact's size in bytes (default 8 MiB).
	MaxContent int
	// Logger receives what the store, and the service built on it, log
	// (default slog.Default()); commands hand theirs down.
	Logger *slog.Logger
	// AdoptProgress, if set, is told how far Init's adoption has come:
	// done of total tracked files examined, one call at a time, done
	// rising by one to total (`lunad init` draws a bar with it).
	AdoptProgress func(done, total int)
	// Merge merges a stage's write into an artifact that moved since the
	// version the write was computed from (ApplyWrites). nil: such a write
	// is a conflict.
	Merge Merger
}

const defaultMaxContent = 8 << 20

// Store is a lunad workspace: a git repository whose tracked text files are
// artifacts. It is safe for concurrent use; all access to the repository
// goes through it.
type Store struct {
	// root is the working tree; gitDir holds its HEAD and index and,
	// in lunaDir (<gitDir>/luna), the store's state for it; commonDir
	// holds what every worktree of the repository shares: objects, refs,
	// config, and the runs lock. gitDir == commonDir but in a linked
	// worktree (lunad.Checkout).
	root, gitDir, commonDir, lunaDir string
	// workTmp holds the working tree's temporary files ("": next to them;
	// see workTempDir).
	workTmp string
	opts    Options

	mu      sync.Mutex   // guards everything below, and the repository
	objects *objectStore // reading; objs writes
	objs    *objectWriter
	lock    *wsLock
	cache   *commitCache
	snap    historySnapshot
	hist    *history
	trees   map[plumbing.Hash][]treeEntry // decoded trees, see readTree
	// roots maps commits to their trees (treeOf); it has its own mutex.
	roots commitRoots
	metas *metaIndex // see metasAt
	runs  runLogs    // run event logs, see runlog.go
	// unsyncedBranchDir: a deferred commit (ApplyWritesDeferred) renamed
	// a branch in this directory and left its fsync to the next syncfs;
	// branchDirSyncs counts the fsyncs of a branch's directory (tests).
	unsyncedBranchDir string
	branchDirSyncs    int
	// runAppends groups concurrent appends to run logs (runbatch.go); it
	// has its own mutex and is not guarded by mu.
	runAppends runAppendQueue

	queue     writeQueue
	session   string // tags this store's lines in the pending list
	idx       indexSyncer
	lastIndex indexCache // the .git/index this store wrote last
	// unwritten maps a working-tree path whose update failed after its
	// batch was committed to the blob the file was left holding: lunad's
	// own stale state, never a person's change (see commitHumanChanges).
	unwritten map[string]plumbing.Hash
	closed    bool
	closeErr  error
	// consolidating is set while a consolidation of packs runs in the
	// background (packs.go); bg waits for it.
	consolidating bool
	bg            sync.WaitGroup
}

// Open opens the workspace at dir (its root or any directory below it).
// It returns ErrNotWorkspace if dir is not in a git repository or the
// repository was never initialised with lunad.
func Open(dir string, opts Options) (*Store, error) {
	s, err := openRepo(dir, opts)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, tip, err := s.readHead()
	if err == nil && tip.IsZero() {
		err = fmt.Errorf("%w: %s has no commits; run `lunad init`", lunad.ErrNotWorkspace, s.root)
	}
	if err == nil {
		root, terr := s.treeOf(tip)
		if terr != nil {
			err = terr
		} else if _, lerr := s.lookup(root, workspaceFile); lerr != nil {
			err = fmt.Errorf("%w: %s is a git repository but not a lunad workspace; run `lunad init` to adopt it", lunad.ErrNotWorkspace, s.root)
		}
	}
	if err == nil {
		err = s.recover()
	}
	if err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// openRepo finds the repository and sets the store up, without checking it
// is a workspace.
func openRepo(dir string, opts Options) (*Store, error) {
	co, err := gitdir.Find(dir)
	if err != nil {
		return nil, err
	}
	s := &Store{root: co.Root, gitDir: co.GitDir, commonDir: co.CommonDir, opts: opts, session: randomID(), unwritten: map[string]plumbing.Hash{}}
	s.lunaDir = filepath.Join(s.gitDir, "luna")
	if err := os.MkdirAll(filepath.Join(s.lunaDir, "tmp"), 0o755); err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	s.workTmp = workTempDir(filepath.Join(s.lunaDir, "tmp"), s.root)
	s.fillDefaults()
	if s.lock, err = openLock(filepath.Join(s.lunaDir, "lock")); err != nil {
		return nil, err
	}
	s.objects = newObjectStore(s.commonDir)
	s.objs = newObjectWriter(s.commonDir)
	s.objects.pending, s.objs.stored, s.objs.added = s.objs.pendingObject, s.objects.stored, s.objects.added
	s.cache = &commitCache{path: filepath.Join(s.lunaDir, "commits")}
	s.snap = historySnapshot{path: filepath.Join(s.lunaDir, historySnapName), tmp: filepath.Join(s.lunaDir, "tmp")}
	return s, nil
}

// workTempDir is where files bound for the working tree at root are made
// before they are renamed into place: tmp, unless it is on another
// filesystem than root (a linked worktree elsewhere than its repository),
// where a rename cannot reach; then "" — next to each file.
func workTempDir(tmp, root string) string {
	var a, b unix.Stat_t
	if unix.Stat(tmp, &a) == nil && unix.Stat(root, &b) == nil && a.Dev != b.Dev {
		return ""
	}
	return tmp
}

// Logger is where the store logs (Options.Logger).
func (s *Store) Logger() *slog.Logger { return s.opts.Logger }

func (s *Store) fillDefaults() {
	o := &s.opts
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.NewID == nil {
		o.NewID = randomID
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = 10 * time.Second
	}
	if o.MaxContent <= 0 {
		o.MaxContent = defaultMaxContent
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Human.Name == "" {
		o.Human = gitUser(s.gitDir, s.commonDir)
	}
}

// gitUser reads user.name and user.email from the worktree's config
// (config.worktree, git's extensions.worktreeConfig), the repository's,
// then the global one (~/.gitconfig, then $XDG_CONFIG_HOME/git/config).
func gitUser(gitDir, commonDir string) Signature {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	sig := Signature{}
	for _, name := range []string{filepath.Join(gitDir, "config.worktree"), filepath.Join(commonDir, "config"), filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")} {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		cfg := gitconfig.New()
		if gitconfig.NewDecoder(bytes.NewReader(b)).Decode(cfg) != nil {
			continue
		}
		user := cfg.Section("user")
		if sig.Name == "" {
			sig.Name = user.Option("name")
		}
		if sig.Email == "" {
			sig.Email = user.Option("email")
		}
	}
	if sig.Name == "" {
		sig.Name = "lunad user"
	}
	if sig.Email == "" {
		sig.Email = "user@lunad"
	}
	return sig
}

const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b)
}

// Root returns the workspace's root directory.
func (s *Store) Root() string { return s.root }

// Close waits for queued writes and a consolidation of packs, syncs the
// git index and releases the store.
func (s *Store) Close() error {
	s.queue.wait()
	s.idx.stop()
	s.bg.Wait()
	err := s.closeOnce()
	s.bg.Wait() // a consolidation a run append started meanwhile: it finds the store closed
	return err
}

func (s *Store) closeOnce() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.closeErr
	}
	s.closed = true
	err := s.syncIndexLocked(context.Background())
	if s.unsyncedBranchDir != "" {
		// A deferred commit no later write made durable.
		if serr := atomicfile.Sync(s.unsyncedBranchDir); err == nil {
			err = serr
		}
		s.unsyncedBranchDir = ""
	}
	if s.runs.unsynced {
		// A deferred append no later write made durable.
		if serr := atomicfile.Sync(filepath.Join(s.commonDir, filepath.FromSlash(runRefPrefix))); err == nil {
			err = serr
		}
		s.runs.unsynced = false
	}
	if cerr := s.release(); err == nil {
		err = cerr
	}
	s.closeErr = err
	return err
}

// release closes the files the store holds open.
func (s *Store) release() error {
	s.lastIndex.drop()
	s.objs.close()
	s.objects.close()
	s.runs.close()
	return s.lock.close()
}

// treeOf returns the root tree of a commit (zero for the zero commit).
func (s *Store) treeOf(commit plumbing.Hash) (plumbing.Hash, error) {
	if commit.IsZero() {
		return plumbing.ZeroHash, nil
	}
	if root, ok := s.roots.get(commit); ok {
		return root, nil
	}
	c, err := s.readCommit(commit)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	s.roots.put(commit, c.Tree)
	return c.Tree, nil
}

// commitRoots remembers the tree of the commits read: every call of the
// store reads HEAD's tree (current), and a staleness evaluation reads
// artifacts at the same old commits many times; reading and inflating the
// commit object each time was ~7% of an ask's CPU. Commits are immutable,
// so entries never go stale; the map is dropped when full.
type commitRoots struct {
	mu sync.Mutex
	m  map[plumbing.Hash]plumbing.Hash
	// reads counts the commits read for their tree, for tests.
	reads int
}

func (c *commitRoots) get(commit plumbing.Hash) (plumbing.Hash, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	root, ok := c.m[commit]
	return root, ok
}

func (c *commitRoots) put(commit, root plumbing.Hash) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	if c.m == nil || len(c.m) >= maxCachedTrees {
		c.m = make(map[plumbing.Hash]plumbing.Hash, 1024)
	}
	c.m[commit] = root
}

// readCommit reads and decodes a commit object.
func (s *Store) readCommit(h plumbing.Hash) (*commitObject, error) {
	b, err := s.readObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	c, err := decodeCommit(b)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

// current returns HEAD's branch, commit and tree, and brings the history
// index up to date with it. Callers hold s.mu.
func (s *Store) current() (branch string, tip, root plumbing.Hash, err error) {
	branch, tip, err = s.readHead()
	if err != nil {
		return "", tip, root, err
	}
	if root, err = s.treeOf(tip); err != nil {
		return "", tip, root, err
	}
	if s.hist == nil || s.hist.tip != tip {
		if s.hist, err = s.buildHistory(tip); err != nil {
			return "", tip, root, err
		}
	}
	return branch, tip, root, nil
}
