package gitstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/lunad/lunad"
)

// The commit benchmarks measure one durable write of each kind lunad makes
// to its branch: a new artifact (blob, metadata, trees, commit), an edit
// of one artifact, and a workflow stage's writes (ApplyWrites) to a new
// file under out/. Each is one batch: its objects, one ref move by
// compare-and-swap, the working tree and the git index following.

// benchStore makes a fresh workspace, closed when the benchmark ends.
func benchStore(b *testing.B) *Store {
	s, _, err := Init(b.TempDir(), testOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkCreate(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Create(ctx, lunad.CreateSpec{Title: fmt.Sprintf("note %d", i), Path: fmt.Sprintf("docs/n%d.md", i), Content: []byte(fmt.Sprintf("# note %d\n", i))}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEdit(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "note", Path: "docs/note.md", Content: []byte("v0\n")})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next := []byte(fmt.Sprintf("v%d\n", i+1))
		if _, err := s.Edit(ctx, r.Artifact.ID, lunad.Change{}, func([]byte) ([]byte, map[string]string, error) { return next, nil, nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplyWrites(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := []lunad.StageWrite{{Path: fmt.Sprintf("out/r%d/a.txt", i), Content: fmt.Sprintf("stage output %d\n", i)}}
		if _, _, _, err := s.ApplyWrites(ctx, w, lunad.Change{Agent: "bench", Extra: map[string]string{"Run": fmt.Sprint(i), "Stage": "a", "Attempt": "1"}}); err != nil {
			b.Fatal(err)
		}
	}
}
