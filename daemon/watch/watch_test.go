package watch

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/workspace"
)

// The watcher is tested with real files and the real git CLI. Nothing
// sleeps to assert: every wait polls with a deadline.

const patience = 15 * time.Second

// logBuffer collects the watcher's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// watched is a running Watch and a subscription to the Service's events.
type watched struct {
	t      *testing.T
	s      *workspace.Service
	events <-chan lunad.Event
	seen   []lunad.Event
	log    *logBuffer
	stop   func() // cancels Watch and waits for it
}

func startWatch(t *testing.T, s *workspace.Service, opts Options) *watched {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	events, err := s.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := &watched{t: t, s: s, events: events, log: &logBuffer{}}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(w.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ready := make(chan struct{})
	opts.Ready = func() { close(ready) }
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, s, opts) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Watch returned at once: %v", err)
	case <-time.After(patience):
		t.Fatal("Watch did not start")
	}
	var once sync.Once
	w.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Watch: %v", err)
				}
			case <-time.After(patience):
				t.Errorf("Watch did not return after its context was cancelled")
			}
		})
	}
	t.Cleanup(func() {
		w.stop()
		if t.Failed() {
			t.Logf("watcher log:\n%s", w.log.String())
		}
	})
	return w
}

// await returns the first event (from now on) that ok accepts.
func (w *watched) await(what string, ok func(lunad.Event) bool) lunad.Event {
	w.t.Helper()
	deadline := time.After(patience)
	for {
		select {
		case e := <-w.events:
			w.seen = append(w.seen, e)
			if ok(e) {
				return e
			}
		case <-deadline:
			w.t.Fatalf("no %s event; saw %+v", what, w.seen)
		}
	}
}

func changedFor(id string) func(lunad.Event) bool {
	return func(e lunad.Event) bool { return e.Kind == "changed" && slices.Contains(e.IDs, id) }
}

// eventually polls cond until it holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func outgoingSymbols(t *testing.T, s *workspace.Service, ref string) []string {
	t.Helper()
	rep, err := s.Refs(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rep.Outgoing {
		if r.To != nil && r.To.Symbol != "" {
			out = append(out, r.To.Path+"#"+r.To.Symbol+" "+string(r.State))
		}
	}
	return out
}

// (a) A file saved by hand becomes a human version; the references follow.
func TestWatchRecordsSaves(t *testing.T) {
	s := newService(t)
	create(t, s, "config.py", src)
	guide := create(t, s, "guide.md", "# Guide\n\nUse `parse_config`.\n")
	w := startWatch(t, s, Options{RecordSaves: true})
	head := strings.TrimSpace(gitRun(t, s.Root(), "rev-parse", "HEAD"))
	if st := gitRun(t, s.Root(), "status", "--porcelain"); st != "" {
		t.Fatalf("the git index was not synced when watching started:\n%s", st)
	}

	save(t, s, "notes.txt", "not an artifact\n")
	save(t, s, "guide.md", "# Guide\n\nUse `parse_config`, then `main`.\n")
	e := w.await("changed guide.md", changedFor(guide))
	if e.Commit == "" {
		t.Fatalf("event without commit: %+v", e)
	}
	if got := gitRun(t, s.Root(), "log", "-1", "--format=%an %(trailers:key=Luna-Op,valueonly,separator=)"); got != "Ada human\n" {
		t.Fatalf("git log -1: %q", got)
	}
	if got := gitRun(t, s.Root(), "rev-list", "--count", head+"..HEAD"); got != "1\n" {
		t.Fatalf("%s commits, want 1", got)
	}
	want := []string{"config.py#parse_config ok", "config.py#main ok"}
	if got := outgoingSymbols(t, s, guide); !slices.Equal(got, want) {
		t.Fatalf("refs of guide.md: %v, want %v", got, want)
	}
	// The git index follows: git status shows only the untracked file.
	eventually(t, "git status clean", func() bool {
		out, _ := gitCmd(s.Root(), "status", "--porcelain")
		return out == "?? notes.txt\n"
	})

	// Content that cannot be an artifact is logged, never committed.
	head = strings.TrimSpace(gitRun(t, s.Root(), "rev-parse", "HEAD"))
	save(t, s, "guide.md", "binary\x00content\n")
	eventually(t, "the binary save logged", func() bool { return strings.Contains(w.log.String(), "cannot record a file saved by hand") })
	if got := strings.TrimSpace(gitRun(t, s.Root(), "rev-parse", "HEAD")); got != head {
		t.Fatal("binary content committed")
	}
	if !strings.Contains(w.log.String(), "git checkout -- guide.md") {
		t.Fatalf("the log does not say what to do:\n%s", w.log.String())
	}
}

// (b) git checkout, commit and a branch switch run by hand.
func TestWatchFollowsGit(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	cfg := create(t, s, "config.py", src)
	guide := create(t, s, "guide.md", "# Guide\n\nUse `parse_config`.\n")
	w := startWatch(t, s, Options{RecordSaves: true})
	onMain := staleSet(t, s)
	mainHead := strings.TrimSpace(gitRun(t, s.Root(), "rev-parse", "HEAD"))
	incoming := func() []string {
		rep, err := s.Refs(ctx, "config.py")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rep.Incoming {
			out = append(out, r.From.Path+" "+r.Text)
		}
		return out
	}
	if got := incoming(); !slices.Equal(got, []string{"guide.md parse_config"}) {
		t.Fatalf("incoming on main: %v", got)
	}

	gitRun(t, s.Root(), "checkout", "-q", "-b", "other")
	e := w.await("branch", func(e lunad.Event) bool { return e.Kind == "branch" })
	if e.Commit != mainHead {
		t.Fatalf("branch event %+v, want commit %s", e, mainHead)
	}

	// Edited and committed by hand (if the watcher records the save first,
	// git finds nothing left to commit: either way the change lands).
	renamed := "def load_config(path):\n    return {}\n"
	if out, err := run(s.Root(), "sh", "-c", "printf '"+strings.ReplaceAll(renamed, "\n", `\n`)+"' > config.py && git commit -qam 'rename by hand'"); err != nil && !strings.Contains(out, "nothing to commit") {
		t.Fatalf("hand commit: %v\n%s", err, out)
	}
	w.await("changed config.py", changedFor(cfg))
	if got := read(t, s, "config.py"); got != renamed {
		t.Fatalf("on other: %q", got)
	}
	if got := incoming(); len(got) != 0 {
		t.Fatalf("incoming on other, after the rename: %v", got)
	}
	if br, _ := s.Branches(ctx); len(br) != 2 || !br[1].Current || br[1].Name != "other" {
		t.Fatalf("branches %+v", br)
	}

	gitRun(t, s.Root(), "checkout", "-q", "main")
	e = w.await("branch to main", func(e lunad.Event) bool { return e.Kind == "branch" && e.Commit == mainHead })
	e = w.await("changed after the switch", changedFor(cfg))
	if e.Commit != mainHead {
		t.Fatalf("changed event %+v", e)
	}
	if got := read(t, s, "config.py"); got != src {
		t.Fatalf("on main: %q", got)
	}
	if got := staleSet(t, s); !slices.Equal(got, onMain) {
		t.Fatalf("stale on main: %v, want %v", got, onMain)
	}
	if got := incoming(); !slices.Equal(got, []string{"guide.md parse_config"}) {
		t.Fatalf("incoming back on main: %v", got)
	}
	if got := outgoingSymbols(t, s, guide); !slices.Equal(got, []string{"config.py#parse_config ok"}) {
		t.Fatalf("refs of guide.md back on main: %v", got)
	}
	// Nothing was recorded on main by the switch.
	if got := strings.TrimSpace(gitRun(t, s.Root(), "rev-parse", "HEAD")); got != mainHead {
		t.Fatalf("main moved to %s", got)
	}
	eventually(t, "git status clean", func() bool {
		out, _ := gitCmd(s.Root(), "status", "--porcelain")
		return out == ""
	})
}

// The Service's own writes are not news: no "branch" event for an edit, one
// (the Service's) for a Switch.
func TestWatchOwnWrites(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	cfg := create(t, s, "config.py", src)
	notes := create(t, s, "notes.md", "# Notes\n")
	w := startWatch(t, s, Options{RecordSaves: true})
	mustEdit(t, s, cfg, "    print(parse_config('a.toml'))\n", "    print(parse_config('b.toml'))\n")
	if _, err := s.Branch(ctx, lunad.BranchRequest{Name: "feature"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Switch(ctx, "feature"); err != nil {
		t.Fatal(err)
	}
	mustEdit(t, s, cfg, "    print(parse_config('b.toml'))\n", "    print(parse_config('c.toml'))\n")
	save(t, s, "notes.md", "# Notes\n\nby hand\n") // the sentinel: its event comes last
	w.await("changed notes.md", changedFor(notes))
	var kinds []string
	for _, e := range w.seen {
		kinds = append(kinds, e.Kind)
	}
	if !slices.Equal(kinds, []string{"changed", "branch", "changed", "changed"}) {
		t.Fatalf("events %+v", w.seen)
	}
	hist, _ := s.History(ctx, cfg)
	for _, v := range hist {
		if v.Op == lunad.OpHuman {
			t.Fatalf("lunad's own write of the working tree was recorded as a human edit: %+v", v)
		}
	}
}

// (c) A burst of saves is coalesced and ends in one consistent state.
func TestWatchCoalescesBursts(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	guide := create(t, s, "guide.md", "# Guide\n")
	notes := create(t, s, "notes.md", "# Notes\n")
	w := startWatch(t, s, Options{RecordSaves: true})
	head := strings.TrimSpace(gitRun(t, s.Root(), "rev-parse", "HEAD"))
	start := time.Now()
	last := ""
	for i := range 50 {
		last = fmt.Sprintf("# Guide\n\nsave %d\n", i)
		save(t, s, "guide.md", last)
		if i%10 == 9 {
			time.Sleep(time.Millisecond) // spread over a few ms, like an editor
		}
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Logf("the burst took %v", d)
	}
	eventually(t, "the last save recorded", func() bool {
		b, _, err := s.Read(ctx, guide, "")
		return err == nil && string(b) == last
	})
	save(t, s, "notes.md", "# Notes\n\nafter the burst\n") // the sentinel
	w.await("changed notes.md", changedFor(notes))
	n := 0
	for _, e := range w.seen {
		if slices.Contains(e.IDs, guide) || e.Kind == "branch" || e.Kind == "resync" {
			n++
		}
	}
	if n == 0 || n > 3 {
		t.Fatalf("%d events for a burst of 50 saves: %+v", n, w.seen)
	}
	commits := strings.Fields(gitRun(t, s.Root(), "rev-list", head+"..HEAD"))
	if len(commits) < 2 || len(commits) > 4 {
		t.Fatalf("%d commits for a burst and a save", len(commits))
	}
	if b, _ := os.ReadFile(filepath.Join(s.Root(), "guide.md")); string(b) != last {
		t.Fatalf("file %q", b)
	}
	eventually(t, "git status clean", func() bool {
		out, _ := gitCmd(s.Root(), "status", "--porcelain")
		return out == ""
	})
	if d, err := s.Dirty(ctx); err != nil || len(d) != 0 {
		t.Fatalf("dirty %v %v", d, err)
	}
}

// (d) Cancelling the context stops Watch promptly, leaving no goroutine.
func TestWatchStops(t *testing.T) {
	s := newService(t)
	create(t, s, "guide.md", "# Guide\n")
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		done <- Watch(ctx, s, Options{RecordSaves: true, Logger: slog.New(slog.NewTextHandler(&logBuffer{}, nil)), Ready: func() { close(ready) }})
	}()
	<-ready
	if err := os.MkdirAll(filepath.Join(s.Root(), "new", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	save(t, s, "guide.md", "# Guide\n\nsaved\n")
	eventually(t, "the save recorded", func() bool {
		b, _, _ := s.Read(context.Background(), "guide.md", "")
		return string(b) == "# Guide\n\nsaved\n"
	})
	save(t, s, "guide.md", "# Guide\n\nsaved again\n") // a burst in flight
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Watch did not return within 2s of cancel")
	}
	eventually(t, "the goroutines gone", func() bool { return runtime.NumGoroutine() <= before })
}

// (e) A function body changed by hand makes the article that explains it
// stale.
func TestWatchStaleAfterHandEdit(t *testing.T) {
	s := newService(t)
	cfg := create(t, s, "config.py", src)
	create(t, s, "doc.md", "# Config\n\n`parse_config` reads TOML.\n")
	w := startWatch(t, s, Options{RecordSaves: true})
	if got := staleSet(t, s); len(got) != 0 {
		t.Fatalf("stale at first: %v", got)
	}
	save(t, s, "config.py", strings.Replace(src, "toml.load(f)", "json.load(f)", 1))
	w.await("changed config.py", changedFor(cfg))
	want := []string{"doc.md code -> config.py#parse_config stale"}
	if got := staleSet(t, s); !slices.Equal(got, want) {
		t.Fatalf("stale %v, want %v", got, want)
	}
}

// A detached HEAD (time travel by hand) is followed; saves are not
// recorded there, and watching resumes on a branch.
func TestWatchDetached(t *testing.T) {
	s := newService(t)
	notes := create(t, s, "notes.md", "# Notes\n")
	w := startWatch(t, s, Options{RecordSaves: true})
	gitRun(t, s.Root(), "checkout", "-q", "--detach")
	w.await("branch (detached)", func(e lunad.Event) bool { return e.Kind == "branch" })
	head := strings.TrimSpace(gitRun(t, s.Root(), "rev-parse", "HEAD"))
	save(t, s, "notes.md", "# Notes\n\nwhile detached\n")
	eventually(t, "the detached save seen", func() bool { return strings.Contains(w.log.String(), "HEAD is detached") })
	if got := strings.TrimSpace(gitRun(t, s.Root(), "rev-parse", "HEAD")); got != head {
		t.Fatal("committed on a detached HEAD")
	}
	gitRun(t, s.Root(), "checkout", "-q", "main")
	w.await("branch (main)", func(e lunad.Event) bool { return e.Kind == "branch" })
	save(t, s, "notes.md", "# Notes\n\non main\n")
	w.await("changed notes.md", changedFor(notes))
	if got := read(t, s, notes); got != "# Notes\n\non main\n" {
		t.Fatalf("notes %q", got)
	}
}

// The directories left unwatched: git's and lunad's own, dependencies,
// nested repositories and what git's ignore rules match — not a directory
// that merely holds ignored files.
func TestWatchSkips(t *testing.T) {
	s := newService(t)
	create(t, s, "src/main.go", "package main\n")
	create(t, s, ".gitignore", "build/\n*.log\nsrc/gen/\ndist/\n")
	root := s.Root()
	for _, d := range []string{"build/x", "node_modules/y", "src/gen/z", "logs/old", "nested/.git", "docs/a/b", "dist/sub", "dist/kept/deeper"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	save(t, s, "logs/old/x.log", "ignored file\n")
	save(t, s, "build/x/out.o", "ignored file\n")
	save(t, s, "dist/sub/out.js", "ignored file\n")
	// lunad keeps an artifact where git's rules would ignore it.
	s.Create(context.Background(), lunad.CreateSpec{Title: "kept", Path: "dist/kept/notes.md", Content: []byte("# Kept\n")})
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fsw.Close()
	w := &watcher{s: s, fs: fsw, root: root, gitDir: filepath.Join(root, ".git"), commonDir: filepath.Join(root, ".git"), log: slog.New(slog.NewTextHandler(&logBuffer{}, nil)),
		ignored: gitIgnoredDirs(context.Background(), root), saved: map[string]int{}}
	arts, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w.setArtifacts(arts)
	w.addTree(root, false)
	var got []string
	for _, p := range fsw.WatchList() {
		rel, _ := within(root, p)
		got = append(got, filepath.ToSlash(rel))
	}
	slices.Sort(got)
	want := []string{"", "dist", "dist/kept", "docs", "docs/a", "docs/a/b", "logs", "logs/old", "src"}
	if !slices.Equal(got, want) {
		t.Fatalf("watched %q, want %q", got, want)
	}
}

// A hand-run checkout that undoes the Service's last write within one
// burst (HEAD ends where the watcher last saw it) is still announced:
// clients were told of the write, and its content is gone.
func TestWatchCheckoutRightAfterWrite(t *testing.T) {
	s := newService(t)
	cfg := create(t, s, "config.py", src)
	w := startWatch(t, s, Options{RecordSaves: true})
	gitRun(t, s.Root(), "checkout", "-q", "-b", "feature")
	mustEdit(t, s, cfg, "    print(parse_config('a.toml'))\n", "    print(parse_config('b.toml'))\n")
	gitRun(t, s.Root(), "checkout", "-q", "main")
	w.await("changed config.py", changedFor(cfg)) // the edit
	e := w.await("branch", func(e lunad.Event) bool { return e.Kind == "branch" })
	if e.Commit != strings.TrimSpace(gitRun(t, s.Root(), "rev-parse", "HEAD")) {
		t.Errorf("branch event at %s, want HEAD", e.Commit)
	}
	w.await("changed config.py after the checkout", changedFor(cfg))
	if got := read(t, s, cfg); got != src {
		t.Errorf("config.py reads %q after checking main out again, want the original", got)
	}
}

// A commit run by hand and a Service write in the same burst: the hand
// commit's artifact is still announced and re-indexed.
func TestWatchHandCommitThenWrite(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	cfg := create(t, s, "config.py", src)
	tool := create(t, s, "tool.py", "def run():\n    pass\n")
	w := startWatch(t, s, Options{})
	save(t, s, "tool.py", "def run():\n    pass\n\n\ndef stop():\n    pass\n")
	gitRun(t, s.Root(), "commit", "-qam", "add stop by hand")
	mustEdit(t, s, cfg, "    print(parse_config('a.toml'))\n", "    print(parse_config('b.toml'))\n")
	w.await("changed tool.py", changedFor(tool))
	_, syms, err := s.Symbols(ctx, tool)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sym := range syms {
		names = append(names, sym.Name)
	}
	if !slices.Equal(names, []string{"run", "stop"}) {
		t.Errorf("tool.py's symbols after the hand commit: %v, want run and stop", names)
	}
}
