package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/gitdir"
)

// Service is what the watcher needs of the workspace service
// (workspace.Service has it): to follow HEAD and the working tree, record a
// person's saves, re-index after a move made by hand, and announce what it
// found. Watch takes it, not the service, so that it reaches into nothing
// else.
type Service interface {
	Root() string
	lunad.Subscriber
	List(ctx context.Context) ([]lunad.Artifact, error)
	// Head is the branch HEAD is on ("" when detached) and its commit.
	Head() (branch, commit string, err error)
	// Changed names the artifacts whose file or metadata differ between
	// two commits.
	Changed(ctx context.Context, from, to string) ([]string, error)
	// Dirty names the artifacts whose working-tree file differs from HEAD.
	Dirty(ctx context.Context) ([]string, error)
	// SyncGitIndex brings .git/index (git's index, not the reference
	// index) up to date with what lunad committed.
	SyncGitIndex(ctx context.Context) error
	// Record commits a person's save of an artifact's file as a human
	// version and announces it; false when the file is HEAD's.
	Record(ctx context.Context, ref string, ch lunad.Change) (lunad.Result, bool, error)
	// Reindex brings the reference index up to date, re-parsing ids.
	Reindex(ctx context.Context, ids []string) error
	// Publish announces a change found outside the service's own writes.
	Publish(e lunad.Event)
}

// Options configure Watch.
type Options struct {
	// Debounce is the quiet period that ends a burst of changes (default
	// 100ms). A burst that keeps going is cut after 10 × Debounce, at
	// least 1s, so that a constant stream is still handled.
	Debounce time.Duration
	// RecordSaves commits the files of artifacts saved by hand as human
	// versions (lunad serve turns it on). Without it, saved files are left
	// for the next lunad operation on their artifact to commit.
	RecordSaves bool
	// Logger receives what the watcher does and the changes it cannot
	// record (default slog.Default()).
	Logger *slog.Logger
	// Ready, when set, is called once the watches are in place and HEAD
	// has been read: a change made after it is seen. The daemon serves
	// only from then on, so that no change a client makes by hand right
	// after its first call is missed.
	Ready func()
}

// Watch follows the workspace for changes made outside the Service until
// ctx is done: files saved by a person, and `git commit`, `git checkout`,
// `git reset` or a branch switch run by hand. It watches (with fsnotify)
// every directory of the working tree except .git, .luna, node_modules,
// nested repositories and the directories git ignores (as found when it
// starts), and in the git dir HEAD, packed-refs and refs/heads. In a
// linked worktree (lunad.Checkout) HEAD and the index are the worktree's
// own git dir's, packed-refs and refs/heads the repository's common dir's.
//
// Changes are coalesced: after the first one, Watch waits until
// Debounce passes without another (at most 10 × Debounce, at least 1s),
// then handles the burst at once:
//
//   - When HEAD moved, the reference index is synced (re-parsing only
//     what changed) and, when the move was not the Service's own write, a
//     "branch" event is published, with a "changed" event naming the
//     artifacts whose file, metadata or version changed.
//   - With RecordSaves, every artifact file written since is recorded
//     (Workspace.Record): a "changed" event when it differed from HEAD,
//     nothing when it did not (lunad's own writes of the working tree). An
//     error — binary content saved by hand, say — is logged, not fatal.
//   - The git index is brought up to date (Workspace.SyncGitIndex), so
//     that git run by hand sees what lunad committed.
//
// While a git command runs (index.lock or HEAD.lock exists) or a merge,
// rebase, cherry-pick or revert is stopped half-way, nothing is handled:
// Watch waits for the next quiet period after it ends, and never commits
// a file git is writing. On a detached HEAD saved files are not recorded.
// A file in conflict (unmerged in git's index, as a `git stash pop` that
// stopped on a conflict leaves it) is never recorded: it is looked at again
// when the index changes, and recorded once resolved and added.
//
// Files changed before Watch started are not looked for: the next lunad
// operation on their artifact commits them first, as always. After lost
// file events (the kernel's queue overflowed) every artifact file is
// compared with HEAD (Workspace.Dirty).
//
// Watch returns nil when ctx is done or the service closes, after every
// goroutine it started has stopped; an error only if it cannot start. Run
// one Watch per Service.
func Watch(ctx context.Context, s Service, opts Options) error {
	if opts.Debounce <= 0 {
		opts.Debounce = 100 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	co, err := gitdir.Find(s.Root())
	if err != nil {
		return fmt.Errorf("watch %s: %w", s.Root(), err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", s.Root(), err)
	}
	defer fsw.Close() // waits for fsnotify's reader goroutine
	subCtx, cancel := context.WithCancel(ctx)
	sub, _ := s.Subscribe(subCtx)
	defer func() {
		cancel()
		for range sub { // until the subscription's goroutine has ended
		}
	}()
	w := &watcher{
		s: s, opts: opts, log: opts.Logger, fs: fsw, sub: sub,
		root: s.Root(), gitDir: co.GitDir, commonDir: co.CommonDir,
		saved: map[string]int{}, self: map[string]int{}, conflicted: map[string]bool{}, gone: map[string]string{},
	}
	w.own.reset()
	if err := w.start(ctx); err != nil {
		return err
	}
	opts.Logger.Info("watching the workspace", "root", w.root)
	// The first index sync comes before Ready: a git command a client runs
	// once the daemon serves must not find the index locked by it.
	if err := s.SyncGitIndex(ctx); err != nil {
		opts.Logger.Warn("git index not synced", "err", err)
	}
	if opts.Ready != nil {
		opts.Ready() // the watches are in place: what changes now is seen
	}
	return w.loop(ctx)
}

// watcher is the state of one Watch; only its goroutine uses it.
type watcher struct {
	s    Service
	opts Options
	log  *slog.Logger
	fs   *fsnotify.Watcher
	sub  <-chan lunad.Event
	// root is the working tree; gitDir holds its HEAD and index,
	// commonDir the branches (the same directory but in a linked
	// worktree).
	root, gitDir, commonDir string
	ignored                 map[string]bool // directories git ignores (slash paths)
	keep                    map[string]bool // directories holding artifacts: always watched
	warnedLimit             bool

	// What the last handled burst left.
	branch, head string
	arts         map[string]lunad.Artifact // by ID
	byPath       map[string]string

	// Since the last handled burst.
	saved map[string]int // working-tree paths written → failed attempts to record
	// Artifacts whose file a commit made by hand on the branch deleted
	// (git rm), by path: recorded as removed with the saves.
	gone map[string]string
	// Artifact files found in conflict (unmerged in git's index): not
	// recorded; looked at again when the index changes (git add).
	conflicted map[string]bool
	rescan     bool // events were lost: walk and compare everything
	waiting    bool // a git command was running: index.lock events matter
	own        ownWrites
	// Events this watcher published, not yet seen back on its subscription.
	self map[string]int
}

// ownWrites are the Service's writes announced since the last handled
// burst: a HEAD move they explain is not news.
type ownWrites struct {
	commits  map[string]bool // HEAD after each write or Switch
	last     string          // HEAD after the latest of them: what clients were told
	switched bool            // the Service switched branches
	ids      map[string]bool // artifacts announced
	lost     bool            // the subscription dropped events
}

func (o *ownWrites) reset() {
	*o = ownWrites{commits: map[string]bool{}, ids: map[string]bool{}}
}

const maxRecordAttempts = 5

func (w *watcher) maxWait() time.Duration { return max(time.Second, 10*w.opts.Debounce) }

// retryDelay is how soon a burst put off (a git command running, a
// record to retry) is tried again.
func (w *watcher) retryDelay() time.Duration { return max(50*time.Millisecond, w.opts.Debounce) }

func (w *watcher) start(ctx context.Context) error {
	for _, dir := range slices.Compact([]string{w.gitDir, w.commonDir}) {
		if err := w.fs.Add(dir); err != nil {
			return fmt.Errorf("watch %s: %w", dir, err)
		}
	}
	var err error
	if w.branch, w.head, err = w.s.Head(); err != nil {
		return fmt.Errorf("watch %s: %w", w.root, err)
	}
	arts, err := w.s.List(ctx)
	if err != nil {
		return fmt.Errorf("watch %s: %w", w.root, err)
	}
	w.ignored = gitIgnoredDirs(ctx, w.root)
	w.setArtifacts(arts)
	w.addRefs()
	w.addTree(w.root, false)
	return nil
}

func (w *watcher) loop(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	armed, first := false, time.Time{}
	kick := func() {
		now := time.Now()
		if !armed {
			armed, first = true, now
		}
		timer.Reset(max(0, min(w.opts.Debounce, first.Add(w.maxWait()).Sub(now))))
	}
	// Files saved while no watcher ran (before the daemon started, or
	// between its start and now) are compared once at the start.
	w.rescan = true
	kick()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.sub:
			if !ok {
				return nil // the Service closed
			}
			w.ownEvent(e)
		case ev, ok := <-w.fs.Events:
			if !ok {
				return nil
			}
			if w.handle(ev) {
				kick()
			}
		case err, ok := <-w.fs.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.log.Warn("file events were lost; comparing the whole working tree", "err", err)
				w.rescan = true
				kick()
			} else {
				w.log.Warn("watching files", "err", err)
			}
		case <-timer.C:
			armed = false
			if retry := w.burst(ctx); retry > 0 && ctx.Err() == nil {
				armed, first = true, time.Now()
				timer.Reset(retry)
			}
		}
	}
}

// handle notes one file event; it reports whether the event starts or
// extends a burst.
func (w *watcher) handle(ev fsnotify.Event) bool {
	if rel, ok := within(w.gitDir, ev.Name); ok {
		return w.gitEvent(filepath.ToSlash(rel), ev)
	}
	if rel, ok := within(w.commonDir, ev.Name); ok {
		return w.commonEvent(filepath.ToSlash(rel), ev)
	}
	rel, ok := within(w.root, ev.Name)
	if !ok || ev.Op == fsnotify.Chmod {
		return false
	}
	rel = filepath.ToSlash(rel)
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			// A new directory: watch it, and take what was put in it
			// before the watch as written.
			w.addTree(ev.Name, true)
			return true
		}
	}
	if w.opts.RecordSaves {
		if _, ok := w.saved[rel]; !ok {
			w.saved[rel] = 0
		}
	}
	return true
}

// gitEvent notes an event in the git dir: HEAD and the branches matter;
// the index only while waiting for a git command to finish.
func (w *watcher) gitEvent(rel string, ev fsnotify.Event) bool {
	switch {
	case rel == "HEAD" || rel == "HEAD.lock":
		return true
	case rel == "index" && len(w.conflicted) > 0:
		// Maybe a conflict was resolved (git add): look at those files again.
		for p := range w.conflicted {
			if _, ok := w.saved[p]; !ok {
				w.saved[p] = 0
			}
		}
		clear(w.conflicted)
		return true
	case w.waiting && !strings.Contains(rel, "/"):
		return true // index.lock gone, MERGE_HEAD removed, …
	}
	return w.gitDir == w.commonDir && w.commonEvent(rel, ev)
}

// commonEvent notes an event in the repository's common dir: the branches
// (packed-refs, refs/heads) matter.
func (w *watcher) commonEvent(rel string, ev fsnotify.Event) bool {
	switch {
	case rel == "packed-refs" || rel == "packed-refs.lock":
		return true
	case strings.HasPrefix(rel, "refs/"):
		if ev.Has(fsnotify.Create) {
			if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
				w.addDirs(ev.Name, nil)
			}
		}
		return true
	}
	return false
}

// burst handles what happened since the last quiet period. It returns how
// soon to try again (0: when something happens).
func (w *watcher) burst(ctx context.Context) time.Duration {
	w.drainOwn()
	if why := w.gitBusy(); why != "" {
		if !w.waiting {
			w.log.Debug("waiting for git to finish", "found", why)
		}
		w.waiting = true
		return w.retryDelay()
	}
	w.waiting = false
	if w.rescan {
		w.rescan = false
		w.addRefs()
		w.addTree(w.root, false)
		if w.opts.RecordSaves {
			ids, err := w.s.Dirty(ctx)
			if err != nil {
				w.log.Warn("comparing the working tree", "err", err)
			}
			for _, id := range ids {
				if a, ok := w.arts[id]; ok {
					if _, ok := w.saved[a.Path]; !ok {
						w.saved[a.Path] = 0
					}
				}
			}
		}
	}
	// After HEAD moved, the index follows before saves are looked at: a
	// file lunad wrote that git carried over a checkout (its index entry
	// was not synced yet, so git took it for a local change) is put back
	// to HEAD's content, not recorded as a person's save.
	if w.syncHead(ctx) {
		w.syncGitIndex(ctx)
	}
	recorded, retry := w.record(ctx)
	if recorded > 0 {
		w.syncGitIndex(ctx)
	}
	if retry {
		return w.retryDelay()
	}
	return 0
}

func (w *watcher) syncGitIndex(ctx context.Context) {
	if err := w.s.SyncGitIndex(ctx); err != nil && ctx.Err() == nil {
		w.log.Warn("git index not synced", "err", err)
	}
}

// gitBusy names what shows a git command at work, or "".
func (w *watcher) gitBusy() string {
	for _, name := range []string{"index.lock", "HEAD.lock", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply"} {
		if _, err := os.Lstat(filepath.Join(w.gitDir, name)); err == nil {
			return name
		}
	}
	return ""
}

// syncHead follows HEAD if it moved: the reference index is synced and,
// for a move that was not the Service's own, "branch" and "changed" events
// are published. It reports whether HEAD moved.
func (w *watcher) syncHead(ctx context.Context) bool {
	own := w.own
	w.own.reset()
	branch, head, err := w.s.Head()
	if err != nil {
		w.log.Warn("reading HEAD", "err", err)
		return false
	}
	// HEAD is where the watcher last saw it and where the Service's last
	// write left it. (Back where the watcher saw it but not where the
	// Service left it: a hand-run checkout undid the Service's writes.)
	if branch == w.branch && head == w.head && (own.last == "" || own.last == head) {
		return false
	}
	// What changed since the watcher last looked, and since what the
	// Service's last write told clients (they differ when HEAD moved by
	// hand before or after the Service's writes).
	froms := []string{w.head}
	if own.last != "" && own.last != w.head {
		froms = append(froms, own.last)
	}
	arts, err := w.s.List(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("listing artifacts after HEAD moved", "err", err)
		}
		return false
	}
	changed := map[string]bool{}
	var content []string
	for _, from := range froms {
		ids, err := w.s.Changed(ctx, from, head)
		if err != nil {
			// Not comparable (a commit gone): take everything as changed.
			w.log.Debug("comparing commits", "from", from, "to", head, "err", err)
			ids = nil
			for id := range w.arts {
				ids = append(ids, id)
			}
			for _, a := range arts {
				ids = append(ids, a.ID)
			}
		}
		for _, id := range ids {
			if !changed[id] {
				changed[id] = true
				content = append(content, id)
			}
		}
	}
	after := make(map[string]bool, len(arts))
	for _, a := range arts {
		after[a.ID] = true
		if b, ok := w.arts[a.ID]; !ok || b.Commit != a.Commit || b.Path != a.Path {
			changed[a.ID] = true
		}
	}
	for id, a := range w.arts {
		if !after[id] {
			changed[id] = true
			if branch == w.branch && w.opts.RecordSaves {
				// Maybe its file was deleted by a commit (git rm): record
				// the removal (nothing is recorded if the artifact is not
				// on the branch any more, as after a reset).
				w.gone[a.Path] = id
				if _, ok := w.saved[a.Path]; !ok {
					w.saved[a.Path] = 0
				}
			}
		}
	}
	if err := w.s.Reindex(ctx, content); err != nil && ctx.Err() == nil {
		w.log.Warn("syncing the reference index", "err", err)
	}
	switched := branch != w.branch
	// The Service's own writes explain the move if they ended at HEAD
	// and, for another branch, one of them was a Switch.
	byService := !own.lost && own.commits[head] && (!switched || own.switched)
	if !byService {
		w.log.Info("HEAD moved outside lunad", "branch", branch, "commit", head, "from_branch", w.branch, "from", w.head)
	}
	w.branch, w.head = branch, head
	w.setArtifacts(arts)
	if byService && switched {
		return true // the Service's Switch announced it all
	}
	if !byService {
		w.publish(lunad.Event{Kind: "branch", Commit: head})
	}
	var ids []string
	for id := range changed {
		if !byService || !own.ids[id] { // the Service announced its writes, unless HEAD moved after them
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		slices.Sort(ids)
		w.publish(lunad.Event{Kind: "changed", IDs: ids, Commit: head})
	}
	return true
}

// record commits the artifact files written since the last burst (with
// RecordSaves). It returns how many it committed and whether some must be
// tried again (the workspace was locked or the branch moved meanwhile).
func (w *watcher) record(ctx context.Context) (int, bool) {
	if len(w.saved) == 0 {
		return 0, false
	}
	if w.branch == "" {
		var paths []string
		for p := range w.saved {
			if _, ok := w.byPath[p]; ok {
				paths = append(paths, p)
			}
		}
		if len(paths) > 0 { // (not every write: a log file may be in the tree)
			slices.Sort(paths)
			w.log.Info("HEAD is detached: files saved by hand are not recorded", "paths", paths)
		}
		clear(w.saved)
		return 0, false
	}
	paths := make([]string, 0, len(w.saved))
	for p := range w.saved {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	n, retry := 0, false
	head := w.head // HEAD as this burst found it, then after each record (or the Service's writes)
	for _, p := range paths {
		id, ok := w.byPath[p]
		gone, wasGone := w.gone[p]
		if !ok && wasGone {
			id, ok = gone, true
		}
		if !ok {
			delete(w.saved, p) // not an artifact
			continue
		}
		// A git command that started meanwhile, or HEAD moved since it was
		// followed (a checkout between its index and HEAD updates): put off
		// to the next burst, which follows HEAD first.
		if why := w.gitBusy(); why != "" {
			w.waiting = true
			return n, true
		}
		w.drainOwn()
		if branch, now, err := w.s.Head(); err != nil || branch != w.branch || now != head && !w.own.commits[now] {
			return n, true
		}
		res, ok, err := w.s.Record(ctx, id, lunad.Change{})
		if err == nil || !errors.Is(err, lunad.ErrLocked) && !errors.Is(err, lunad.ErrConflict) {
			delete(w.gone, p)
		}
		switch {
		case err == nil:
			delete(w.saved, p)
			if ok {
				head = res.Version.Commit
				n++
				what := "recorded a file saved by hand"
				if res.Version.Op == lunad.OpRemove {
					what = "recorded a file deleted by hand as removed"
				}
				w.log.Info(what, "path", p, "artifact", id, "version", res.Version.Number, "commit", res.Version.Commit)
			}
		case wasGone && errors.Is(err, lunad.ErrNotFound):
			delete(w.saved, p) // not on the branch any more, or recorded already
		case ctx.Err() != nil:
			return n, false
		case errors.Is(err, lunad.ErrUnmerged):
			// Conflict markers are not a person's version: wait for the
			// resolution (git add), which rewrites the index.
			delete(w.saved, p)
			if !w.conflicted[p] {
				w.log.Info("not recording a file in conflict; resolve it and git add it", "path", p, "artifact", id)
			}
			w.conflicted[p] = true
		case (errors.Is(err, lunad.ErrLocked) || errors.Is(err, lunad.ErrConflict)) && w.saved[p]+1 < maxRecordAttempts:
			w.saved[p]++
			retry = true
		default:
			delete(w.saved, p)
			w.log.Warn("cannot record a file saved by hand", "path", p, "artifact", id, "err", err)
		}
	}
	return n, retry
}

// setArtifacts notes the artifacts of HEAD, and watches the directories
// that hold them even where the rules would skip them (lunad keeps an
// artifact wherever it is told, in a directory git ignores too).
func (w *watcher) setArtifacts(arts []lunad.Artifact) {
	w.arts = make(map[string]lunad.Artifact, len(arts))
	w.byPath = make(map[string]string, len(arts))
	keep := map[string]bool{}
	for _, a := range arts {
		w.arts[a.ID] = a
		w.byPath[a.Path] = a.ID
		for d := path.Dir(a.Path); d != "." && !keep[d]; d = path.Dir(d) {
			keep[d] = true
		}
	}
	old := w.keep
	w.keep = keep
	if old == nil {
		return // the first time: the walk of the whole tree follows
	}
	for d := range keep {
		if !old[d] {
			if err := w.fs.Add(filepath.Join(w.root, filepath.FromSlash(d))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				w.log.Debug("cannot watch a directory", "dir", d, "err", err)
			}
		}
	}
}

// publish announces e, remembering it so that it is not taken for one of
// the Service's writes when it comes back on the subscription.
func (w *watcher) publish(e lunad.Event) {
	w.self[eventKey(e)]++
	w.s.Publish(e)
}

func eventKey(e lunad.Event) string { return e.Kind + " " + e.Commit + " " + strings.Join(e.IDs, ",") }

// ownEvent notes an event of the subscription: the Service's writes.
func (w *watcher) ownEvent(e lunad.Event) {
	if k := eventKey(e); w.self[k] > 0 {
		if w.self[k]--; w.self[k] == 0 {
			delete(w.self, k)
		}
		return
	}
	switch e.Kind {
	case "resync":
		w.own.lost = true
		clear(w.self) // dropped with the rest
	case "branch":
		w.own.switched = true
		w.own.commits[e.Commit] = true
		w.own.last = e.Commit
	default:
		if e.Commit != "" {
			w.own.commits[e.Commit] = true
			w.own.last = e.Commit
		}
		for _, id := range e.IDs {
			w.own.ids[id] = true
		}
	}
}

// drainOwn takes the events already waiting on the subscription.
func (w *watcher) drainOwn() {
	for {
		select {
		case e, ok := <-w.sub:
			if !ok {
				return
			}
			w.ownEvent(e)
		default:
			return
		}
	}
}

// addTree watches dir and the directories below it that are not skipped;
// with mark, the files found are taken as written.
func (w *watcher) addTree(dir string, mark bool) {
	w.addDirs(dir, func(p string, d fs.DirEntry) error {
		rel, _ := within(w.root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "" && w.skipDir(p, rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if mark && w.opts.RecordSaves && d.Type().IsRegular() {
			if _, ok := w.saved[rel]; !ok {
				w.saved[rel] = 0
			}
		}
		return nil
	})
}

// addDirs watches dir and every directory below it that filter (if any)
// does not skip.
func (w *watcher) addDirs(dir string, filter func(p string, d fs.DirEntry) error) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone or unreadable: nothing to watch
		}
		if filter != nil {
			if err := filter(p, d); err != nil || !d.IsDir() {
				return err
			}
		}
		if !d.IsDir() {
			return nil
		}
		if err := w.fs.Add(p); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				if !w.warnedLimit {
					w.warnedLimit = true
					w.log.Warn("too many directories to watch; changes below some are missed (raise fs.inotify.max_user_watches)", "dir", p)
				}
				return filepath.SkipAll
			}
			w.log.Debug("cannot watch a directory", "dir", p, "err", err)
		}
		return nil
	})
}

func (w *watcher) addRefs() { w.addDirs(filepath.Join(w.commonDir, "refs", "heads"), nil) }

// skipDir says whether a directory of the working tree is left unwatched:
// git's and lunad's own, dependencies, nested repositories, and what git
// ignores.
func (w *watcher) skipDir(full, rel string) bool {
	if w.keep[rel] {
		return false // an artifact is below
	}
	if b := path.Base(rel); b == ".git" || b == "node_modules" || rel == ".luna" {
		return true
	}
	for d := rel; d != "."; d = path.Dir(d) {
		if w.ignored[d] {
			return true
		}
	}
	_, err := os.Lstat(filepath.Join(full, ".git"))
	return err == nil
}

// gitIgnoredDirs lists the directories of the working tree that match
// git's ignore rules, asking git once (nothing if git is not there).
// "matching" leaves out directories merely holding ignored files, where a
// file that is not ignored may appear.
func gitIgnoredDirs(ctx context.Context, root string) map[string]bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "--no-optional-locks", "-C", root, "status", "--porcelain", "-z",
		"--ignored=matching", "--untracked-files=normal", "--ignore-submodules=all")
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GIT_DIR=") && !strings.HasPrefix(e, "GIT_WORK_TREE=") && !strings.HasPrefix(e, "GIT_INDEX_FILE=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	set := map[string]bool{}
	for _, p := range bytes.Split(out, []byte{0}) {
		if d, ok := strings.CutPrefix(string(p), "!! "); ok {
			if d, ok = strings.CutSuffix(d, "/"); ok && d != "" {
				set[d] = true
			}
		}
	}
	return set
}

// within returns name relative to dir if it is dir or below it.
func within(dir, name string) (string, bool) {
	if name == dir {
		return "", true
	}
	rel, ok := strings.CutPrefix(name, dir+string(filepath.Separator))
	return rel, ok
}
