package gitstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestReservedTrailersRefused: no write lets Change.Extra set a trailer
// lunad writes itself, in any letter case (git compares trailer names
// case-insensitively), and a refused write commits nothing.
func TestReservedTrailersRefused(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a, err := s.Create(ctx, lunad.CreateSpec{Title: "A", Path: "a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Create(ctx, lunad.CreateSpec{Title: "B", Path: "b.md", Content: []byte("two\n")})
	if err != nil {
		t.Fatal(err)
	}
	id := a.Artifact.ID
	writes := []struct {
		name  string
		write func(lunad.Change) error
	}{
		{"create", func(ch lunad.Change) error {
			_, err := s.Create(ctx, lunad.CreateSpec{Title: "C", Path: "c.md", Content: []byte("x\n"), Change: ch})
			return err
		}},
		{"edit", func(ch lunad.Change) error { _, err := s.Edit(ctx, id, ch, replace("one", "1")); return err }},
		{"undo", func(ch lunad.Change) error { _, err := s.Undo(ctx, id, ch); return err }},
		{"redo", func(ch lunad.Change) error { _, err := s.Redo(ctx, id, ch); return err }},
		{"restore", func(ch lunad.Change) error { _, err := s.Restore(ctx, id, 1, ch); return err }},
		{"move", func(ch lunad.Change) error { _, err := s.Move(ctx, id, "d.md", ch); return err }},
		{"archive", func(ch lunad.Change) error { _, err := s.Archive(ctx, id, ch); return err }},
		{"link", func(ch lunad.Change) error { _, err := s.Link(ctx, id, b.Artifact.ID, "", ch); return err }},
		{"ack", func(ch lunad.Change) error { _, err := s.Ack(ctx, id, "", ch); return err }},
	}
	names := []string{"Op", "Artifact", "Version", "Agent", "Idempotency-Key", "Request", "Target-Version", "Match", "OP", "Target-version"}
	before := head(t, s)
	for _, w := range writes {
		for _, name := range names {
			t.Run(w.name+"/"+name, func(t *testing.T) {
				err := w.write(lunad.Change{Extra: map[string]string{name: "forged"}})
				if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "lunad's own") {
					t.Fatalf("Extra[%q]: %v, want ErrInvalid naming it lunad's own", name, err)
				}
			})
		}
	}
	if h := head(t, s); h != before {
		t.Fatalf("a refused write moved HEAD from %s to %s", before, h)
	}
	// A name of the caller's own still works.
	if _, err := s.Edit(ctx, id, lunad.Change{Extra: map[string]string{"Review": "manual"}}, replace("one", "1")); err != nil {
		t.Fatal(err)
	}
}
