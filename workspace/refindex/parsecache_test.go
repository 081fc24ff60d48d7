package refindex

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

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
	path := filepath.Join(t.TempDir(), "refs.cache")
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
	// One copy of each name across the loaded files: config.py defines
	// parse_config, guide.md names it.
	def := nx.cache.files[keyOf(cacheSrcs[0].Type, cacheSrcs[0].Content)].Symbol(0).Name
	use := nx.cache.files[keyOf(cacheSrcs[1].Type, cacheSrcs[1].Content)].References()[0].Name
	if def != "parse_config" || use != def || unsafe.StringData(def) != unsafe.StringData(use) {
		t.Errorf("parse_config loaded as %q and %q, not one string", def, use)
	}
}

// TestCacheLoadRejects: a damaged file is an error (for the log) and an
// empty cache; a file of another format or schema (an older lunad's) is
// an empty cache without an error.
func TestCacheLoadRejects(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(savedCache(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), b...)
	flipped[len(flipped)-10] ^= 0x40 // inside the last entry: its checksum no longer matches
	otherSchema := append([]byte(cacheMagic), 14)
	otherSchema = append(append(otherSchema, "an old schema!"...), 1)
	for _, tc := range []struct {
		name    string
		content []byte
		wantErr bool
	}{
		{"truncated", b[:len(b)*2/3], true},
		{"one bit changed", flipped, true},
		{"garbage after the magic", []byte(cacheMagic + "\xff\xff\xff"), true},
		{"another format", []byte("\x0e\xff\x81\x03\x01\x01\x0bcacheHeader"), false},
		{"another schema", otherSchema, false},
		{"empty", nil, false},
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
