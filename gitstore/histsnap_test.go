package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestHistorySnapshot: a new process takes the history index from the
// snapshot — after lunad's writes, after a person's commits on top, after
// a reset to a tip it held — without reading the commit cache, and gets
// the index assembled from the cache; a merge, a torn append or a damaged
// file make it assemble from the cache, and the snapshot follows.
func TestHistorySnapshot(t *testing.T) {
	tests := []struct {
		name      string
		change    func(t *testing.T, s *Store)
		fromCache bool // the index must be assembled from the commit cache
	}{
		{"after lunad's writes", func(*testing.T, *Store) {}, false},
		{"after a person's commits", func(t *testing.T, s *Store) {
			for i := range 3 {
				writeFile(t, s.root, "notes.txt", fmt.Sprintln(i))
				git(t, s.root, "add", "notes.txt")
				git(t, s.root, "commit", "-q", "-m", fmt.Sprint("a person's commit ", i))
			}
		}, false},
		{"after a reset to an earlier tip", func(t *testing.T, s *Store) { git(t, s.root, "reset", "-q", "--hard", "HEAD~2") }, false},
		{"after a merge", func(t *testing.T, s *Store) {
			git(t, s.root, "checkout", "-q", "-b", "side", "HEAD~1")
			writeFile(t, s.root, "side.txt", "side\n")
			git(t, s.root, "add", "side.txt")
			git(t, s.root, "commit", "-q", "-m", "side")
			git(t, s.root, "checkout", "-q", "main")
			git(t, s.root, "merge", "-q", "--no-ff", "-m", "merge", "side")
		}, true},
		{"after a torn append", func(t *testing.T, s *Store) {
			appendLines(filepath.Join(s.gitDir, "luna", historySnapName), []byte("e {\"c\":\"torn"))
		}, false},
		{"a torn line before the last tip", func(t *testing.T, s *Store) {
			name := filepath.Join(s.gitDir, "luna", historySnapName)
			b, _ := os.ReadFile(name)
			os.WriteFile(name, []byte(strings.Replace(string(b), "e {", "e {torn", 1)), 0o644)
		}, true},
		{"a damaged file", func(t *testing.T, s *Store) {
			os.WriteFile(filepath.Join(s.gitDir, "luna", historySnapName), []byte("junk\n"), 0o644)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := newStore(t)
			var ids []string
			for i := range 3 {
				r, err := s.Create(ctx, lunad.CreateSpec{Title: fmt.Sprint("a", i), Path: fmt.Sprintf("a%d.md", i), Content: []byte("one\n")})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, r.Artifact.ID)
			}
			for i := range 4 {
				if _, err := s.Edit(ctx, ids[i%3], lunad.Change{IdempotencyKey: fmt.Sprint("k", i), Input: []byte(fmt.Sprint(i))}, replace("one", "two")); err != nil && i < 3 {
					t.Fatal(err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			tt.change(t, s)

			snap := filepath.Join(s.gitDir, "luna", historySnapName)
			before, _ := os.ReadFile(snap)
			got, fromCache := indexOfOpened(t, s.root)
			if fromCache != tt.fromCache {
				t.Errorf("assembled from the commit cache: %v, want %v", fromCache, tt.fromCache)
			}
			if after, _ := os.ReadFile(snap); string(after) != string(before) {
				t.Error("a process that only read changed the snapshot")
			}
			want := indexFromCache(t, s.root)
			if !slices.Equal(got, want) {
				t.Fatalf("index from the snapshot:\n%s\nassembled from the cache:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// A write brings the snapshot up to date: the next process reads it.
			w, err := Open(s.root, testOptions())
			if err != nil {
				t.Fatal(err)
			}
			appendLine := func(b []byte) ([]byte, map[string]string, error) { return append(b, "more\n"...), nil, nil }
			if _, err := w.Edit(ctx, ids[1], lunad.Change{}, appendLine); err != nil {
				t.Fatal(err)
			}
			w.Close()
			got, fromCache = indexOfOpened(t, s.root)
			if fromCache {
				t.Error("the snapshot was not brought up to date by the write")
			}
			if want := indexFromCache(t, s.root); !slices.Equal(got, want) {
				t.Fatalf("after a write, index from the snapshot:\n%s\nassembled from the cache:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// indexFromCache is indexOfOpened with the snapshot moved away (and put
// back): the index assembled from the commit cache.
func indexFromCache(t *testing.T, root string) []string {
	t.Helper()
	snap := filepath.Join(root, ".git", "luna", historySnapName)
	os.Rename(snap, snap+".away")
	defer os.Rename(snap+".away", snap)
	idx, fromCache := indexOfOpened(t, root)
	if !fromCache {
		t.Fatal("assembled without the commit cache")
	}
	return idx
}

// indexOfOpened opens a store at root, assembles its history index and
// returns it as lines (commit, artifact, version, key), and whether the
// commit cache was read for it.
func indexOfOpened(t *testing.T, root string) ([]string, bool) {
	t.Helper()
	s, err := Open(root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, _, err := s.current(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range s.hist.all {
		out = append(out, fmt.Sprintf("%s %s %s v%d key %q", e.Commit[:8], e.Rec.Op, e.Rec.Artifact, e.Rec.Version, e.Rec.Key))
	}
	return out, s.cache.entries != nil
}
