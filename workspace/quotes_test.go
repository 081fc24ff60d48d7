package workspace_test

import (
	"context"
	"slices"
	"testing"

	"github.com/lunad/lunad"
)

const cacheLib = "class Cache:\n    def get(self, key):\n        value = self._data.get(key)\n        if value is None:\n            raise KeyError(key)\n        return value\n"

const cacheQuote = "```python\ndef get(self, key):\n    value = self._data.get(key)\n    if value is None:\n        raise KeyError(key)\n    return value\n```\n"

// TestIncomingSnippets checks which quotes of an artifact Refs finds: those
// of artifacts that reference it (a link) or link to it in the store, and
// those of any other artifact once the quoted code changed after its
// baseline (drift) — and no others, nor an artifact's quotes of another.
func TestIncomingSnippets(t *testing.T) {
	ctx := context.Background()
	s := newService(t)
	lib := mustCreate(t, s, "lib.py", cacheLib)
	mustCreate(t, s, "linked.md", "# Linked\n\nThe [cache](lib.py):\n\n"+cacheQuote)
	mustCreate(t, s, "unnamed.md", "# Unnamed\n\n"+cacheQuote)
	stored := mustCreate(t, s, "stored.md", "# Stored\n\n"+cacheQuote)
	store := mustCreate(t, s, "store.py", "class Store:\n    def put(self, key, value):\n        self._data[key] = value\n        return value\n")
	mustCreate(t, s, "both.md", "# Both\n\nThe [cache](lib.py) and the [store](store.py):\n\n"+cacheQuote+
		"\n```python\ndef put(self, key, value):\n    self._data[key] = value\n    return value\n```\n")
	if _, err := s.Link(ctx, lunad.LinkRequest{Src: stored, Dst: lib}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name  string
		write func(t *testing.T)
		of    string
		want  []string
	}{
		{"in scope", func(*testing.T) {}, lib, []string{"both.md ok def get(self, key):", "linked.md ok def get(self, key):", "stored.md ok def get(self, key):"}},
		{"the other quote of one artifact", func(*testing.T) {}, store, []string{"both.md ok def put(self, key, value):"}},
		{"quoted code changed", func(t *testing.T) {
			mustEdit(t, s, lib, "            raise KeyError(key)\n", "            raise LookupError(key)\n")
		}, lib, []string{"both.md stale def get(self, key):", "linked.md stale def get(self, key):", "stored.md stale def get(self, key):", "unnamed.md stale def get(self, key):"}},
		{"the other quote, after the change", func(*testing.T) {}, store, []string{"both.md ok def put(self, key, value):"}},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.write(t)
			rep, err := s.Refs(ctx, step.of)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rep.Incoming {
				if r.Kind == "snippet" {
					got = append(got, r.From.Path+" "+string(r.State)+" "+r.Text)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, step.want) {
				t.Fatalf("incoming quotes: %v, want %v", got, step.want)
			}
		})
	}
}
