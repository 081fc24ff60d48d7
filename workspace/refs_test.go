package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lunad/lunad"
)

// TestStaleFollowsBranches checks that staleness is derived from the
// current branch's history: the index follows a switch in both
// directions without a rebuild, and the same service answers each time.
func TestStaleFollowsBranches(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	cfg, err := s.Create(ctx, lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, lunad.CreateSpec{Title: "guide", Path: "guide.md", Content: []byte("# Guide\n\nUse `parse_config`.\n")}); err != nil {
		t.Fatal(err)
	}
	if got := staleSet(t, s); len(got) != 0 {
		t.Fatalf("fresh workspace: %v", got)
	}
	if _, err := s.Branch(ctx, lunad.BranchRequest{Name: "feature"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Switch(ctx, "feature"); err != nil {
		t.Fatal(err)
	}
	mustEdit(t, s, cfg.Artifact.ID, "        return toml.load(f)\n", "        return toml.loads(f.read())\n")
	want := []string{"guide.md code -> config.py#parse_config stale"}
	if got := staleSet(t, s); !slices.Equal(got, want) {
		t.Fatalf("on feature: %v, want %v", got, want)
	}
	for _, step := range []struct {
		branch string
		want   []string
	}{{"main", nil}, {"feature", want}, {"main", nil}} {
		if _, err := s.Switch(ctx, step.branch); err != nil {
			t.Fatal(err)
		}
		if got := staleSet(t, s); !slices.Equal(got, step.want) {
			t.Fatalf("on %s: %v, want %v", step.branch, got, step.want)
		}
	}
}

// TestIndexCacheRebuilt checks that a damaged or foreign parse cache is
// ignored and rewritten, and that a good one is used by the next process.
func TestIndexCacheRebuilt(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	if _, err := s.Create(ctx, lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte(src)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"garbage", []byte("not a parse cache at all")},
		{"truncated", nil}, // filled from the real cache below
		{"empty", []byte{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, syms, err := s.Symbols(ctx, "config.py")
			if err != nil || len(syms) != 2 {
				t.Fatalf("symbols: %v %v", syms, err)
			}
			if err := s.CloseIndex(); err != nil {
				t.Fatal(err)
			}
			good, err := os.ReadFile(s.CacheFile())
			if err != nil || len(good) == 0 {
				t.Fatalf("cache not saved: %v", err)
			}
			data := tc.data
			if data == nil {
				data = good[:len(good)/2]
			}
			if err := os.WriteFile(s.CacheFile(), data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, syms, err = s.Symbols(ctx, "config.py")
			if err != nil || len(syms) != 2 || syms[0].Name != "parse_config" {
				t.Fatalf("after a %s cache: %v %v", tc.name, syms, err)
			}
			if err := s.CloseIndex(); err != nil {
				t.Fatal(err)
			}
			again, err := os.ReadFile(s.CacheFile())
			if err != nil || len(again) < len(good)/2+1 {
				t.Fatalf("cache not rewritten after a %s one: %d bytes, %v", tc.name, len(again), err)
			}
		})
	}
}

func TestSymbolsErrors(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	if _, _, err := s.Symbols(ctx, "nope"); err == nil || !isNotFound(err) {
		t.Fatalf("unknown artifact: %v", err)
	}
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, lunad.ErrNotFound) }

// TestOldCacheRemoved: the parse cache an older lunad wrote (refs.gob, in
// a format this one does not read) is removed when the index closes, and
// the cache is written as refs.cache.
func TestOldCacheRemoved(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	if _, err := s.Create(ctx, lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte(src)}); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(filepath.Dir(s.CacheFile()), "refs.gob")
	if err := os.WriteFile(old, []byte("an older lunad's cache"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Symbols(ctx, "config.py"); err != nil {
		t.Fatal(err)
	}
	if err := s.CloseIndex(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refs.gob still there: %v", err)
	}
	if filepath.Base(s.CacheFile()) != "refs.cache" {
		t.Errorf("cache written to %s", s.CacheFile())
	}
	if _, err := os.Stat(s.CacheFile()); err != nil {
		t.Errorf("cache not written: %v", err)
	}
}

// TestReferenceText: a reference reads as its text names its target — a
// from-imported name as the name, a code span as written — not as where
// resolution went through (the import's module, the constructed type).
func TestReferenceText(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	for _, a := range []lunad.CreateSpec{
		{Title: "config", Path: "config.py", Content: []byte("class Client:\n    def get(self):\n        pass\n\n\ndef parse_config(path):\n    pass\n")},
		{Title: "other", Path: "other.py", Content: []byte("class Cache:\n    def get(self):\n        pass\n")},
		{Title: "main", Path: "main.py", Content: []byte("from config import parse_config\n")},
		{Title: "guide", Path: "guide.md", Content: []byte("# Guide\n\n```python\nhttp = Client()\n```\n\nThen `http.get()`; see [it](config.py#parse_config).\n")},
	} {
		if _, err := s.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for path, want := range map[string][]string{
		"main.py":  {"import config -> config.py", "import parse_config -> config.py#parse_config"},
		"guide.md": {"code http.get -> config.py#Client.get", "example Client -> config.py#Client", "link config.py#parse_config -> config.py#parse_config"},
	} {
		refs, err := s.Outgoing(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range refs {
			to := r.To.Path
			if r.To.Symbol != "" {
				to += "#" + r.To.Symbol
				if r.To.Container != "" {
					to = r.To.Path + "#" + r.To.Container + "." + r.To.Symbol
				}
			}
			got = append(got, r.Kind+" "+r.Text+" -> "+to)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}
