package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testOptions gives a store a fixed clock (advancing one second per commit)
// and sequential IDs, so commit hashes are reproducible.
func testOptions() Options {
	var mu sync.Mutex
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	return Options{
		Clock: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(time.Second)
			return clock
		},
		NewID: func() string {
			mu.Lock()
			defer mu.Unlock()
			n++
			return fmt.Sprintf("a%07d", n)
		},
		Human:       Signature{Name: "Ada", Email: "ada@example.com"},
		LockTimeout: 5 * time.Second,
	}
}

// newStore makes a fresh workspace in a temp dir.
func newStore(t *testing.T) *Store {
	t.Helper()
	s, _, err := Init(t.TempDir(), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// git runs the real git binary in dir and returns its stdout.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// checkRepo asserts what git itself says about the workspace: fsck
// --strict is clean and, after Close-equivalent index sync, status is clean.
func checkRepo(t *testing.T, s *Store) {
	t.Helper()
	s.mu.Lock()
	err := s.syncIndexLocked(context.Background())
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	s.bg.Wait() // a background pack consolidation removing packs fsck reads (see gitFsckOpen)
	git(t, s.root, "fsck", "--strict", "--no-progress")
	if st := git(t, s.root, "status", "--porcelain"); st != "" {
		t.Fatalf("git status not clean:\n%s", st)
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replace returns an apply function that swaps old for new once.
func replace(old, new string) func([]byte) ([]byte, map[string]string, error) {
	return func(b []byte) ([]byte, map[string]string, error) {
		if !bytes.Contains(b, []byte(old)) {
			return nil, nil, fmt.Errorf("%q not found", old)
		}
		return bytes.Replace(b, []byte(old), []byte(new), 1), nil, nil
	}
}
