package refindex

import (
	"context"
	"encoding/gob"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lunad/lunad/treesitter"
)

var cacheSrcs = []Source{
	{ID: "a", Path: "config.py", Title: "config.py", Type: "code/python", Content: []byte("def parse_config(path):\n    return open(path)\n")},
	{ID: "b", Path: "guide.md", Title: "Guide", Type: "text/markdown", Content: []byte("# Guide\n\nCall `parse_config`, see [src](config.py#parse_config).\n")},
}

// savedCache builds an index of cacheSrcs with workers and saves its
// parse cache; it returns the file.
func savedCache(t *testing.T, workers int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "refs.gob")
	ix := NewIndex()
	defer ix.Close()
	if err := ix.Build(context.Background(), cacheSrcs, workers); err != nil {
		t.Fatal(err)
	}
	if err := ix.SaveCache(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCacheSaveLoad: a saved cache, loaded in a new index, answers every
// file it held without parsing, and with the same File as a parse.
func TestCacheSaveLoad(t *testing.T) {
	path := savedCache(t, 2)
	nx := NewIndex()
	defer nx.Close()
	if err := nx.LoadCache(path); err != nil {
		t.Fatal(err)
	}
	if len(nx.cache.files) != len(cacheSrcs) {
		t.Fatalf("loaded %d files, want %d", len(nx.cache.files), len(cacheSrcs))
	}
	p := treesitter.NewParser()
	defer p.Close()
	for _, s := range cacheSrcs {
		pf := nx.cache.files[keyOf(s.Type, s.Content)]
		if pf == nil {
			t.Fatalf("%s: not in the loaded cache", s.Path)
		}
		want, err := p.Parse(s.Type, s.Content)
		if err != nil {
			t.Fatal(err)
		}
		if got := pf.File(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: loaded %+v, want %+v", s.Path, got, want)
		}
	}
}

// TestCacheLoadRejects: a damaged file is an error (for the log) and an
// empty cache.
func TestCacheLoadRejects(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(savedCache(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		content []byte
		wantErr bool
	}{
		{"truncated", b[:len(b)*2/3], true},
		{"garbage", []byte("not a gob stream"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, tc.content, 0o644); err != nil {
				t.Fatal(err)
			}
			nx := NewIndex()
			defer nx.Close()
			err := nx.LoadCache(p)
			if (err != nil) != tc.wantErr || len(nx.cache.files) != 0 {
				t.Fatalf("err = %v, %d files loaded", err, len(nx.cache.files))
			}
		})
	}
}

// TestCacheLoadOtherSchema: a file written for other queries or another
// layout is ignored without an error (the cache is rebuilt).
func TestCacheLoadOtherSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.gob")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := gob.NewEncoder(f).Encode(cacheHeader{Schema: "an older schema", Count: 1}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	nx := NewIndex()
	defer nx.Close()
	if err := nx.LoadCache(path); err != nil || len(nx.cache.files) != 0 {
		t.Fatalf("err = %v, %d files loaded", err, len(nx.cache.files))
	}
}
