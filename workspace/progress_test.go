package workspace_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

// progressLog records a progress callback's calls.
type progressLog struct {
	mu    sync.Mutex
	calls [][2]int
}

func (l *progressLog) report(done, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, [2]int{done, total})
}

// check fails unless the calls counted 1, 2, ... total, each of total.
func (l *progressLog) check(t *testing.T, what string, total int) {
	t.Helper()
	if len(l.calls) != total {
		t.Fatalf("%s: %d progress calls, want %d: %v", what, len(l.calls), total, l.calls)
	}
	for i, c := range l.calls {
		if c != [2]int{i + 1, total} {
			t.Fatalf("%s: call %d is %d/%d, want %d/%d", what, i, c[0], c[1], i+1, total)
		}
	}
}

// checkBuild fails unless the calls tell one build of total artifacts
// from first (any figure if first < 0: the build may get ahead of the
// first call): done rising to total, of total every time, at most once
// per whole percentage and once at the start.
func (l *progressLog) checkBuild(t *testing.T, what string, first, total int) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.calls) == 0 || (first >= 0 && l.calls[0] != [2]int{first, total}) || l.calls[len(l.calls)-1] != [2]int{total, total} || len(l.calls) > 102 {
		t.Fatalf("%s: progress %v, want %d/%d first and %d/%d last, at most 102 calls", what, l.calls, first, total, total, total)
	}
	for i, c := range l.calls[1:] {
		if c[1] != total || c[0] <= l.calls[i][0] {
			t.Fatalf("%s: call %d is %d/%d after %d/%d: want done rising of %d", what, i+1, c[0], c[1], l.calls[i][0], l.calls[i][1], total)
		}
	}
}

// TestInitAndIndexProgress: adopting a repository reports every tracked
// file examined (skipped ones too), and the first index build every
// artifact parsed; a second build has nothing to report.
func TestInitAndIndexProgress(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %s %v", args, out, err)
		}
	}
	git("init", "-q", "-b", "main")
	const docs = 30
	for i := range docs {
		name := filepath.Join(dir, "docs", fmt.Sprintf("page%02d.md", i))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, fmt.Appendf(nil, "# Page %d\n\nCall `parse_config`.\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "config.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "logo.png"), []byte("\x89PNG\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "start")

	var adopt, index progressLog
	svc, rep, err := workspace.Init(dir, gitstore.Options{AdoptProgress: adopt.report})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if len(rep.Adopted) != docs+1 || len(rep.Skipped) != 1 {
		t.Fatalf("adopted %d, skipped %v", len(rep.Adopted), rep.Skipped)
	}
	adopt.check(t, "adoption", docs+2)

	ctx := context.Background()
	if err := svc.IndexReferences(ctx, index.report); err != nil {
		t.Fatal(err)
	}
	index.checkBuild(t, "first index", -1, docs+1)
	var again progressLog
	if err := svc.IndexReferences(ctx, again.report); err != nil {
		t.Fatal(err)
	}
	again.check(t, "index already built", 0)
	if _, err := svc.SearchSymbols(ctx, "parse_config", 5); err != nil {
		t.Fatal(err)
	}
}

// TestIndexProgressJoined: a call made while another's build is under way
// is told that build's current figure at once, then the rest of it; the
// build is held at a known figure by the hook, so the figure is exact.
// Once the index is built, a call tells nothing.
func TestIndexProgressJoined(t *testing.T) {
	const docs, held = 40, 10
	svc := newService(t)
	for i := range docs {
		wstest.Create(t, svc, fmt.Sprintf("docs/p%02d.md", i), fmt.Sprintf("# Page %d\n\nSee `parse_config`.\n", i))
	}
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	workspace.SetIndexHook(svc, func(done, total int) {
		if done == held {
			once.Do(func() { close(paused); <-resume })
		}
	})
	ctx := context.Background()
	var first, joined progressLog
	firstErr := make(chan error, 1)
	go func() { firstErr <- svc.IndexReferences(ctx, first.report) }()
	<-paused // the build holds at held/docs

	told := make(chan [2]int, 1)
	joinedErr := make(chan error, 1)
	go func() {
		joinedErr <- svc.IndexReferences(ctx, func(done, total int) {
			joined.report(done, total)
			select {
			case told <- [2]int{done, total}:
			default:
			}
		})
	}()
	if got := <-told; got != [2]int{held, docs} {
		t.Fatalf("a call joining the build was told %v first, want %d/%d", got, held, docs)
	}
	close(resume)
	for _, ch := range []chan error{firstErr, joinedErr} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	first.checkBuild(t, "the call that started the build", -1, docs)
	joined.checkBuild(t, "the call that joined it", held, docs)

	var after progressLog
	if err := svc.IndexReferences(ctx, after.report); err != nil {
		t.Fatal(err)
	}
	after.check(t, "index already built", 0)
}
