package workspace_test

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/workspace"
)

// TestStaleKeptPerState checks Stale's cache through a workspace's life:
// after every write (edit, ack, a symbol renamed, undo, a move, a branch
// switch, the slug rule) two concurrent calls evaluate the workspace once,
// a third call at the same state not at all, and the answer is the
// uncached evaluation's.
func TestStaleKeptPerState(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	cfg := mustCreate(t, s, "config.py", src)
	mustCreate(t, s, "guide.md", "# Guide\n\nUse `parse_config`.\n")
	stale := []string{"guide.md code -> config.py#parse_config stale"}
	for _, step := range []struct {
		name  string
		write func(t *testing.T)
		want  []string
		evals int64 // by two calls: 1, or 0 when the state did not move
	}{
		{"fresh", func(*testing.T) {}, nil, 1},
		{"edit", func(t *testing.T) {
			mustEdit(t, s, cfg, "        return toml.load(f)\n", "        return toml.loads(f.read())\n")
		}, stale, 1},
		{"branch kept at the stale state", func(t *testing.T) {
			if _, err := s.Branch(ctx, lunad.BranchRequest{Name: "old"}); err != nil {
				t.Fatal(err)
			}
		}, stale, 0}, // a new branch does not move HEAD
		{"ack", func(t *testing.T) {
			if _, err := s.Ack(ctx, lunad.AckRequest{Ref: "guide.md"}); err != nil {
				t.Fatal(err)
			}
		}, nil, 1},
		{"symbol renamed", func(t *testing.T) {
			mustEdit(t, s, cfg, "def parse_config(path):\n", "def load_config(path):\n")
		}, []string{"guide.md code -> config.py#parse_config broken"}, 1},
		{"undo", func(t *testing.T) {
			if _, err := s.Undo(ctx, lunad.RefRequest{Ref: cfg}); err != nil {
				t.Fatal(err)
			}
		}, nil, 1},
		{"moved", func(t *testing.T) {
			if _, err := s.Move(ctx, lunad.MoveRequest{Ref: cfg, Path: "settings.py"}); err != nil {
				t.Fatal(err)
			}
			mustEdit(t, s, cfg, "        return toml.loads(f.read())\n", "        return toml.loads(f.read().strip())\n")
		}, []string{"guide.md code -> settings.py#parse_config stale"}, 1},
		{"slug rule", func(t *testing.T) {
			if err := s.SetSlugRule(lunad.SlugsLoose); err != nil {
				t.Fatal(err)
			}
		}, []string{"guide.md code -> settings.py#parse_config stale"}, 1},
		{"branch switch", func(t *testing.T) {
			if _, err := s.Switch(ctx, "old"); err != nil {
				t.Fatal(err)
			}
		}, stale, 1},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.write(t)
			n := s.StaleEvaluations()
			var wg sync.WaitGroup
			got := make([][]lunad.Reference, 2)
			errs := make([]error, 2)
			for i := range got {
				wg.Go(func() { got[i], errs[i] = s.Stale(ctx) })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if d := s.StaleEvaluations() - n; d != step.evals {
				t.Fatalf("two calls at one state evaluated %d times, want %d", d, step.evals)
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Fatalf("concurrent callers got different answers:\n%v\n%v", got[0], got[1])
			}
			if again := staleSet(t, s); !slices.Equal(again, step.want) {
				t.Fatalf("stale: %v, want %v", again, step.want)
			}
			if d := s.StaleEvaluations() - n; d != step.evals {
				t.Fatalf("a third call at the same state evaluated again (%d evaluations)", d)
			}
			uncached, err := s.StaleUncached(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got[0], uncached) {
				t.Fatalf("kept answer differs from the evaluation:\nkept      %v\nevaluated %v", got[0], uncached)
			}
		})
	}
}

// TestStaleCallersOwnTheirSlice checks that a caller reordering or
// overwriting its answer does not change what the next caller gets.
func TestStaleCallersOwnTheirSlice(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	cfg := mustCreate(t, s, "config.py", src)
	mustCreate(t, s, "guide.md", "# Guide\n\nUse `parse_config`.\n")
	mustCreate(t, s, "notes.md", "# Notes\n\nSee `parse_config`.\n")
	mustEdit(t, s, cfg, "        return toml.load(f)\n", "        return toml.loads(f.read())\n")
	first, err := s.Stale(ctx)
	if err != nil || len(first) != 2 {
		t.Fatalf("stale: %v %v, want 2 references", first, err)
	}
	want := slices.Clone(first)
	first[0], first[1] = first[1], lunad.Reference{}
	second, err := s.Stale(ctx)
	if err != nil || !reflect.DeepEqual(second, want) {
		t.Fatalf("after the first caller changed its slice: %v %v, want %v", second, err, want)
	}
}

// TestStaleCanceledCaller checks that a caller whose context is done gets
// its error, and that nothing is kept from it.
func TestStaleCanceledCaller(t *testing.T) {
	s := newService(t)
	mustCreate(t, s, "config.py", src)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Stale(ctx); err == nil {
		t.Fatal("a canceled caller got an answer")
	}
	n := s.StaleEvaluations()
	if got := staleSet(t, s); len(got) != 0 {
		t.Fatalf("stale: %v", got)
	}
	if d := s.StaleEvaluations() - n; d != 1 {
		t.Fatalf("after a canceled call: %d evaluations, want 1", d)
	}
}

func mustCreate(t *testing.T, s *workspace.Service, path, content string) string {
	t.Helper()
	r, err := s.Create(context.Background(), lunad.CreateSpec{Title: path, Path: path, Content: []byte(content)})
	if err != nil {
		t.Fatal(err)
	}
	return r.Artifact.ID
}
