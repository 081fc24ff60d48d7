package refindex

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/treesitter"
)

// memStore is a store of artifacts in memory: each artifact's latest
// commit and content, and HEAD.
type memStore struct {
	mu       sync.Mutex
	head     string
	arts     map[string]lunad.Artifact
	contents map[string]string
	commits  []string            // oldest first
	changes  map[string][]string // commit -> the artifacts it changed
}

func (m *memStore) Head() (string, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return "main", m.head, nil
}

func (m *memStore) List(context.Context) ([]lunad.Artifact, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []lunad.Artifact
	for _, a := range m.arts {
		out = append(out, a)
	}
	return out, nil
}

func (m *memStore) Read(_ context.Context, ref, _ string) ([]byte, lunad.Artifact, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return []byte(m.contents[ref]), m.arts[ref], nil
}

// Changed is the artifacts changed by the commits after from up to to.
func (m *memStore) Changed(_ context.Context, from, to string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i, j := slices.Index(m.commits, from), slices.Index(m.commits, to)
	if i < 0 || j < 0 {
		return nil, lunad.ErrNotFound
	}
	var out []string
	for _, c := range m.commits[i+1 : j+1] {
		out = append(out, m.changes[c]...)
	}
	return out, nil
}

// commit moves HEAD to commit, setting the content of the artifacts in
// set (latest commit: this one) and removing those set to "".
func (m *memStore) commit(commit string, set map[string]string) { m.record(commit, set, true) }

// handCommit is commit made with plain git: contents change, and no
// artifact's latest version.
func (m *memStore) handCommit(commit string, set map[string]string) { m.record(commit, set, false) }

func (m *memStore) record(commit string, set map[string]string, version bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.head = commit
	m.commits = append(m.commits, commit)
	if m.changes == nil {
		m.changes = map[string][]string{}
	}
	for id, c := range set {
		m.changes[commit] = append(m.changes[commit], id)
		if c == "" {
			delete(m.arts, id)
			continue
		}
		if a, ok := m.arts[id]; !ok || version {
			m.arts[id] = lunad.Artifact{ID: id, Path: id + ".py", Type: "text/x-python", Commit: commit}
		} else {
			m.arts[id] = a
		}
		m.contents[id] = c
	}
}

// TestLiveFollowsHandCommits: content committed with plain git, which
// makes no version, is re-indexed by the next Sync without being told
// (Forget): the index is HEAD's, so an answer derived from it can be kept
// for HEAD.
func TestLiveFollowsHandCommits(t *testing.T) {
	ctx := context.Background()
	st := &memStore{arts: map[string]lunad.Artifact{}, contents: map[string]string{}}
	st.commit("c1", map[string]string{"a": "def old_name():\n    return 1\n"})
	live := NewLive(st, "", slog.New(slog.DiscardHandler))
	t.Cleanup(func() { live.Close() })
	symbols := func() []string {
		t.Helper()
		ix, err := live.Sync(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		ix.View(func(g *treesitter.Graph) {
			e, _ := g.Entry("a")
			for _, s := range e.File.Symbols {
				names = append(names, s.Name)
			}
		})
		return names
	}
	if got := symbols(); !slices.Equal(got, []string{"old_name"}) {
		t.Fatalf("indexed %v", got)
	}
	st.handCommit("c2", map[string]string{"a": "def new_name():\n    return 1\n"})
	if got := symbols(); !slices.Equal(got, []string{"new_name"}) {
		t.Fatalf("after a commit made with git: indexed %v, want [new_name]", got)
	}
}

// TestLiveGeneration: the generation stays while the index answers the
// same (HEAD unmoved, or moved by a commit that changed no content) and
// changes with every re-parse, removal and rebuild.
func TestLiveGeneration(t *testing.T) {
	ctx := context.Background()
	st := &memStore{arts: map[string]lunad.Artifact{}, contents: map[string]string{}}
	st.commit("c1", map[string]string{"a": "def f():\n    return 1\n", "b": "f()\n"})
	live := NewLive(st, "", slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { live.Close() })
	gen := func() uint64 {
		t.Helper()
		if _, err := live.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		return live.Generation()
	}
	prev := gen()
	for _, step := range []struct {
		name    string
		do      func()
		changed bool
	}{
		{"HEAD unmoved", func() {}, false},
		{"a commit changing no artifact", func() { st.commit("c2", nil) }, false},
		{"an edit", func() { st.commit("c3", map[string]string{"a": "def f():\n    return 2\n"}) }, true},
		{"a removal", func() { st.commit("c4", map[string]string{"b": ""}) }, true},
		{"forgotten, same content", func() { live.Forget([]string{"a"}) }, true},
		{"closed and rebuilt", func() {
			if err := live.Close(); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.do()
			got := gen()
			if (got != prev) != step.changed {
				t.Fatalf("generation %d → %d, want changed=%v", prev, got, step.changed)
			}
			prev = got
		})
	}
}

// TestLiveSyncReporting: the cold build tells (0, total) first, then each
// artifact parsed, one call at a time; a sync that re-parses an edit, and
// a build of no artifacts, tell nothing.
func TestLiveSyncReporting(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		arts map[string]string
		want [][2]int
	}{
		{"three artifacts", map[string]string{"a": "def f():\n    return 1\n", "b": "f()\n", "c": "x = 1\n"},
			[][2]int{{0, 3}, {1, 3}, {2, 3}, {3, 3}}},
		{"no artifacts", map[string]string{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &memStore{arts: map[string]lunad.Artifact{}, contents: map[string]string{}}
			st.commit("c1", tc.arts)
			live := NewLive(st, "", slog.New(slog.DiscardHandler))
			t.Cleanup(func() { live.Close() })
			var got [][2]int
			record := func(done, total int) { got = append(got, [2]int{done, total}) }
			if _, err := live.SyncReporting(ctx, record); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("cold build told %v, want %v", got, tc.want)
			}
			got = nil
			st.commit("c2", map[string]string{"a": "def f():\n    return 2\n"})
			if _, err := live.SyncReporting(ctx, record); err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 {
				t.Fatalf("a sync re-parsing one edit told %v, want nothing", got)
			}
		})
	}
}
