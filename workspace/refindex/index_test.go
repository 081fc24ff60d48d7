package refindex

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/treesitter"
)

// TestBuildFrom: sources read by the workers give the index Build gives,
// each read once; a read error stops the build and is returned.
func TestBuildFrom(t *testing.T) {
	ctx := context.Background()
	want := NewIndex()
	defer want.Close()
	if err := want.Build(ctx, cacheSrcs, 1); err != nil {
		t.Fatal(err)
	}
	t.Run("same index", func(t *testing.T) {
		ix := NewIndex()
		defer ix.Close()
		var reads [2]atomic.Int32
		err := ix.BuildFrom(ctx, len(cacheSrcs), func(i int) (Source, error) {
			reads[i].Add(1)
			return cacheSrcs[i], nil
		}, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i := range reads {
			if n := reads[i].Load(); n != 1 {
				t.Errorf("source %d read %d times", i, n)
			}
		}
		for _, s := range cacheSrcs {
			var got, exp treesitter.Entry
			ix.View(func(g *treesitter.Graph) { got, _ = g.Entry(s.ID) })
			want.View(func(g *treesitter.Graph) { exp, _ = g.Entry(s.ID) })
			if !reflect.DeepEqual(got, exp) || got.File == nil {
				t.Errorf("%s: entry %+v, want %+v", s.ID, got, exp)
			}
		}
	})
	t.Run("a source with no file", func(t *testing.T) {
		ix := NewIndex()
		defer ix.Close()
		err := ix.BuildFrom(ctx, len(cacheSrcs), func(i int) (Source, error) {
			if i == 0 {
				return Source{}, fmt.Errorf("%w: removed with git rm", ErrNoFile)
			}
			return cacheSrcs[i], nil
		}, 2)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		ix.View(func(g *treesitter.Graph) { ids = g.IDs() })
		if !reflect.DeepEqual(ids, []string{cacheSrcs[1].ID}) {
			t.Fatalf("indexed %v, want only %s", ids, cacheSrcs[1].ID)
		}
	})
	t.Run("read error", func(t *testing.T) {
		ix := NewIndex()
		defer ix.Close()
		err := ix.BuildFrom(ctx, len(cacheSrcs), func(i int) (Source, error) {
			if i == 1 {
				return Source{}, lunad.ErrNotFound
			}
			return cacheSrcs[i], nil
		}, 1)
		if !errors.Is(err, lunad.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
}

// TestBuildKeepsManifestPackage: a root-level manifest's package name
// reaches the graph's entry (prose drops a package-root qualifier by it,
// `attrs.define`), although Build drops each content after parsing it.
func TestBuildKeepsManifestPackage(t *testing.T) {
	for _, tc := range []struct{ path, content, want string }{
		{"pyproject.toml", "[project]\nname = \"attrs\"\n", "attrs"},
		{"Cargo.toml", "[package]\nname = \"cargo-generate\"\n", "cargo-generate"},
		{"docs/pyproject.toml", "[project]\nname = \"nested\"\n", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			ix := NewIndex()
			defer ix.Close()
			if err := ix.Build(context.Background(), []Source{{ID: "M", Path: tc.path, Type: "text/plain", Content: []byte(tc.content)}}, 1); err != nil {
				t.Fatal(err)
			}
			var e treesitter.Entry
			ix.View(func(g *treesitter.Graph) { e, _ = g.Entry("M") })
			if e.Package != tc.want {
				t.Errorf("package %q, want %q", e.Package, tc.want)
			}
		})
	}
}

// TestBuildProgress: the parse workers report every artifact once, in
// serialised calls whose count rises by one to the total; an empty build
// reports nothing.
func TestBuildProgress(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, workers int
	}{
		{"one worker", 40, 1},
		{"four workers", 40, 4},
		{"empty", 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srcs := make([]Source, tc.n)
			for i := range srcs {
				srcs[i] = Source{ID: fmt.Sprintf("A%03d", i), Path: fmt.Sprintf("doc%03d.md", i), Type: "text/markdown",
					Content: fmt.Appendf(nil, "# Doc %d\n\nSee `parse_%d`.\n", i, i)}
			}
			ix := NewIndex()
			defer ix.Close()
			var got []int
			var inCall atomic.Int32
			err := ix.BuildWith(context.Background(), tc.n, func(i int) (Source, error) { return srcs[i], nil },
				BuildOptions{Workers: tc.workers, Progress: func(done, total int) {
					if inCall.Add(1) != 1 {
						t.Error("progress called concurrently")
					}
					defer inCall.Add(-1)
					if total != tc.n {
						t.Errorf("total %d, want %d", total, tc.n)
					}
					got = append(got, done)
				}})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n {
				t.Fatalf("%d progress calls, want %d: %v", len(got), tc.n, got)
			}
			for i, d := range got {
				if d != i+1 {
					t.Fatalf("call %d reported %d done, want %d: %v", i, d, i+1, got)
				}
			}
		})
	}
}

// TestParseDefinitions: an earlier version's definitions come through
// the parse cache as a File without references (staleness reads only
// definitions), equal to what Parse gives otherwise.
func TestParseDefinitions(t *testing.T) {
	ix := NewIndex()
	defer ix.Close()
	p := treesitter.NewParser()
	defer p.Close()
	for _, s := range cacheSrcs {
		want, err := p.Parse(s.Type, s.Content)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.References) == 0 || len(want.Symbols) == 0 {
			t.Fatalf("%s: the fixture has no references or no definitions", s.Path)
		}
		want.References = nil
		for range 2 { // parsed, then from the cache
			got, err := ix.ParseDefinitions(s.Type, s.Content)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %+v, want %+v", s.Path, got, want)
			}
		}
	}
}

// TestBuildOutOfOrder: the graph is filed as artifacts are parsed, in any
// order — here the first source is read last of all — and the result is
// the graph a single worker builds in order: the same entries, each
// resolving the same way, also for sources sharing one content (and so one
// cached parse).
func TestBuildOutOfOrder(t *testing.T) {
	ctx := context.Background()
	var srcs []Source
	for i := range 60 {
		s := cacheSrcs[i%len(cacheSrcs)]
		s.ID = fmt.Sprintf("s%02d", i)
		if i%3 == 0 { // a content of its own
			s.Content = fmt.Appendf(nil, "def f%d(x):\n    return parse_config(x)\n", i)
		}
		srcs = append(srcs, s)
	}
	want := NewIndex()
	defer want.Close()
	if err := want.Build(ctx, srcs, 1); err != nil {
		t.Fatal(err)
	}
	ix := NewIndex()
	defer ix.Close()
	var others atomic.Int32
	release := make(chan struct{})
	err := ix.BuildFrom(ctx, len(srcs), func(i int) (Source, error) {
		if i == 0 {
			<-release // every other source is read (and handed on) first
		} else if others.Add(1) == int32(len(srcs)-1) {
			close(release)
		}
		return srcs[i], nil
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs, wantIDs []string
	ix.View(func(g *treesitter.Graph) { gotIDs = g.IDs() })
	want.View(func(g *treesitter.Graph) { wantIDs = g.IDs() })
	if !reflect.DeepEqual(gotIDs, wantIDs) || len(gotIDs) != len(srcs) {
		t.Fatalf("IDs %v, want %v", gotIDs, wantIDs)
	}
	resolved := 0
	for _, id := range wantIDs {
		var got, exp treesitter.Entry
		var gotRes, expRes []treesitter.Resolution
		ix.View(func(g *treesitter.Graph) { got, _ = g.Entry(id); gotRes = g.Resolve(id) })
		want.View(func(g *treesitter.Graph) { exp, _ = g.Entry(id); expRes = g.Resolve(id) })
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: entry %+v, want %+v", id, got, exp)
		}
		if !reflect.DeepEqual(gotRes, expRes) {
			t.Errorf("%s: resolves to %+v, want %+v", id, gotRes, expRes)
		}
		for _, r := range expRes {
			if r.State == treesitter.Resolved || r.State == treesitter.Ambiguous {
				resolved++
			}
		}
	}
	if resolved == 0 {
		t.Error("no reference resolves: the comparison shows nothing")
	}
}
