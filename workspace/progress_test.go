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
	index.check(t, "first index", docs+1)
	var again progressLog
	if err := svc.IndexReferences(ctx, again.report); err != nil {
		t.Fatal(err)
	}
	again.check(t, "index already built", 0)
	if _, err := svc.SearchSymbols(ctx, "parse_config", 5); err != nil {
		t.Fatal(err)
	}
}
