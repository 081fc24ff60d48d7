package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// keyStore makes a store with artifacts a.md (a0000001) and b.md
// (a0000002), then edits a.md with key "k" as coder against version 1.
func keyStore(t *testing.T) (s *Store, first lunad.Result, after string) {
	t.Helper()
	ctx := context.Background()
	s = newStore(t)
	for _, p := range []string{"a.md", "b.md"} {
		if _, err := s.Create(ctx, lunad.CreateSpec{Title: p, Path: p, Content: []byte("one\n")}); err != nil {
			t.Fatal(err)
		}
	}
	first, err := s.Edit(ctx, "a0000001", keyed("coder", "in-1", 1), replace("one", "two"))
	if err != nil || first.Version.Number != 2 {
		t.Fatalf("first edit: %+v %v", first, err)
	}
	return s, first, head(t, s)
}

// keyed is a change with key "k".
func keyed(agent, input string, base int) lunad.Change {
	return lunad.Change{Agent: agent, IdempotencyKey: "k", Input: []byte(input), BaseVersion: base, Message: "why"}
}

// TestIdempotencyKeyIdentifiesRequest: a key replays only the request it
// was first used for — same operation, artifact, agent and input — with
// that request's result and no commit; any other use is a conflict that
// says what the key was used for.
func TestIdempotencyKeyIdentifiesRequest(t *testing.T) {
	ctx := context.Background()
	edit := func(ref string, ch lunad.Change) func(*Store) (lunad.Result, error) {
		return func(s *Store) (lunad.Result, error) { return s.Edit(ctx, ref, ch, replace("two", "three")) }
	}
	cases := []struct {
		name string
		call func(*Store) (lunad.Result, error)
		why  string // "" replays
	}{
		{"same request", edit("a0000001", keyed("coder", "in-1", 1)), ""},
		{"same request by path", edit("a.md", keyed("coder", "in-1", 1)), ""},
		{"create", func(s *Store) (lunad.Result, error) {
			return s.Create(ctx, lunad.CreateSpec{Title: "c", Path: "c.md", Change: keyed("coder", "", 0)})
		}, "this request is to create"},
		{"undo", func(s *Store) (lunad.Result, error) { return s.Undo(ctx, "a0000001", keyed("coder", "", 0)) }, "this request is to undo"},
		{"ack", func(s *Store) (lunad.Result, error) { return s.Ack(ctx, "a0000001", "", keyed("coder", "", 0)) }, "this request is to ack"},
		{"another artifact", edit("b.md", keyed("coder", "in-1", 1)), "this request is for a0000002"},
		{"another agent", edit("a0000001", keyed("reviewer", "in-1", 1)), "this request is by reviewer"},
		{"the human", edit("a0000001", keyed("", "in-1", 1)), "this request is by Ada"},
		{"another input", edit("a0000001", keyed("coder", "in-2", 1)), "differs in its input"},
		{"another base version", edit("a0000001", keyed("coder", "in-1", 0)), "differs in its input, base version"},
		{"another message", edit("a0000001", lunad.Change{Agent: "coder", IdempotencyKey: "k", Input: []byte("in-1"), BaseVersion: 1}), "message"},
		{"another trailer", edit("a0000001", lunad.Change{Agent: "coder", IdempotencyKey: "k", Input: []byte("in-1"), BaseVersion: 1, Message: "why",
			Extra: map[string]string{"Run": "7"}}), "trailers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, first, after := keyStore(t)
			got, err := c.call(s)
			if h := head(t, s); h != after {
				t.Fatalf("HEAD moved to %s (result %+v, error %v)", h, got, err)
			}
			if c.why == "" {
				if err != nil || !got.Replayed || !reflect.DeepEqual(got.Version, first.Version) || got.Artifact.ID != first.Artifact.ID || got.Artifact.Version != 2 {
					t.Fatalf("replay: %+v %v\nfirst: %+v", got, err, first)
				}
				return
			}
			want := `idempotency key "k" was already used for edit of a0000001 by coder at ` + first.Version.Commit[:12] + ", and "
			if !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "use a fresh key") {
				t.Fatalf("got %+v, %v\nwant a conflict saying %q, %q and to use a fresh key", got, err, want, c.why)
			}
		})
	}
}

// TestIdempotencyKeyOtherOperations: the input of each operation is part
// of its request.
func TestIdempotencyKeyOtherOperations(t *testing.T) {
	ctx := context.Background()
	ch := lunad.Change{IdempotencyKey: "op"}
	cases := []struct {
		name          string
		first, second func(s *Store) (lunad.Result, error)
	}{
		{"create: another title",
			func(s *Store) (lunad.Result, error) {
				return s.Create(ctx, lunad.CreateSpec{Title: "x", Path: "x.md", Change: ch})
			},
			func(s *Store) (lunad.Result, error) {
				return s.Create(ctx, lunad.CreateSpec{Title: "y", Path: "x.md", Change: ch})
			}},
		{"create: another content",
			func(s *Store) (lunad.Result, error) {
				return s.Create(ctx, lunad.CreateSpec{Title: "x", Path: "x.md", Content: []byte("1\n"), Change: ch})
			},
			func(s *Store) (lunad.Result, error) {
				return s.Create(ctx, lunad.CreateSpec{Title: "x", Path: "x.md", Content: []byte("2\n"), Change: ch})
			}},
		{"ack: another symbol",
			func(s *Store) (lunad.Result, error) { return s.Ack(ctx, "a.md", "one", ch) },
			func(s *Store) (lunad.Result, error) { return s.Ack(ctx, "a.md", "two", ch) }},
		{"move: another path",
			func(s *Store) (lunad.Result, error) { return s.Move(ctx, "a0000001", "m.md", ch) },
			func(s *Store) (lunad.Result, error) { return s.Move(ctx, "a0000001", "n.md", ch) }},
		{"link: another kind",
			func(s *Store) (lunad.Result, error) { return s.Link(ctx, "a0000001", "a0000002", "explains", ch) },
			func(s *Store) (lunad.Result, error) { return s.Link(ctx, "a0000001", "a0000002", "depends_on", ch) }},
		{"restore: another version",
			func(s *Store) (lunad.Result, error) { return s.Restore(ctx, "a0000001", 1, ch) },
			func(s *Store) (lunad.Result, error) { return s.Restore(ctx, "a0000001", 2, ch) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, _ := keyStore(t)
			first, err := c.first(s)
			if err != nil {
				t.Fatal(err)
			}
			after := head(t, s)
			if again, err := c.first(s); err != nil || !again.Replayed || !reflect.DeepEqual(again.Version, first.Version) {
				t.Fatalf("repeat: %+v %v, first %+v", again, err, first)
			}
			if got, err := c.second(s); !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), "differs in its input") {
				t.Fatalf("other input: %+v %v", got, err)
			}
			if h := head(t, s); h != after {
				t.Fatalf("HEAD moved to %s", h)
			}
			checkRepo(t, s)
		})
	}
}

// TestIdempotencyKeyWithoutDigest: a key recorded by a lunad version that
// wrote no Luna-Request replays for the same operation, artifact and agent,
// and conflicts otherwise.
func TestIdempotencyKeyWithoutDigest(t *testing.T) {
	ctx := context.Background()
	s, _, _ := keyStore(t)
	checkRepo(t, s) // the git index follows HEAD before git commits
	git(t, s.root, "commit", "--allow-empty", "-q", "-m",
		"ack a.md\n\nLuna-Artifact: a0000001\nLuna-Op: ack\nLuna-Version: 3\nLuna-Agent: coder\nLuna-Idempotency-Key: old")
	old := head(t, s)
	r, err := s.Ack(ctx, "a.md", "any", lunad.Change{Agent: "coder", IdempotencyKey: "old"})
	if err != nil || !r.Replayed || r.Version.Commit != old || r.Version.Number != 3 {
		t.Fatalf("same op, artifact and agent: %+v %v", r, err)
	}
	for name, call := range map[string]func() (lunad.Result, error){
		"another op": func() (lunad.Result, error) {
			return s.Undo(ctx, "a.md", lunad.Change{Agent: "coder", IdempotencyKey: "old"})
		},
		"another artifact": func() (lunad.Result, error) {
			return s.Ack(ctx, "b.md", "", lunad.Change{Agent: "coder", IdempotencyKey: "old"})
		},
		"another agent": func() (lunad.Result, error) {
			return s.Ack(ctx, "a.md", "", lunad.Change{Agent: "bot", IdempotencyKey: "old"})
		},
	} {
		if r, err := call(); !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), "was already used for ack of a0000001 by coder") {
			t.Fatalf("%s: %+v %v", name, r, err)
		}
	}
	if h := head(t, s); h != old {
		t.Fatalf("HEAD moved to %s", h)
	}
}

// TestIdempotencyKeyOldCache: a commit cache written by a lunad version
// before Luna-Request holds the digest among the extra trailers (that
// version kept every trailer it did not know there); it is read as the
// digest.
func TestIdempotencyKeyOldCache(t *testing.T) {
	ctx := context.Background()
	s, first, after := keyStore(t)
	s.Close()
	path := filepath.Join(s.root, ".git", "luna", "commits")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(b))
	moved := 0
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		rec := line["r"].(map[string]any)
		if d, ok := rec["Request"].(string); ok && d != "" {
			delete(rec, "Request")
			rec["Extra"] = map[string]any{"Request": d}
			moved++
		}
		nb, _ := json.Marshal(line)
		out.Write(append(nb, '\n'))
	}
	if moved != 1 {
		t.Fatalf("%d cached digests, want 1:\n%s", moved, b)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// As an old version left it: no history snapshot, the index is
	// assembled from that cache.
	os.Remove(filepath.Join(s.root, ".git", "luna", historySnapName))
	s2, err := Open(s.root, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if r, err := s2.Edit(ctx, "a0000001", keyed("coder", "in-2", 1), replace("two", "three")); !errors.Is(err, lunad.ErrConflict) {
		t.Fatalf("another input after an old cache: %+v %v", r, err)
	}
	if r, err := s2.Edit(ctx, "a0000001", keyed("coder", "in-1", 1), replace("two", "three")); err != nil || !r.Replayed || !reflect.DeepEqual(r.Version, first.Version) {
		t.Fatalf("same request after an old cache: %+v %v", r, err)
	}
	hist, err := s2.History(ctx, "a0000001")
	if err != nil || len(hist) != 2 || hist[1].Extra != nil {
		t.Fatalf("history shows the digest as a trailer: %+v %v", hist, err)
	}
	if h := head(t, s2); h != after {
		t.Fatalf("HEAD moved to %s", h)
	}
}

// TestIdempotencyKeyTrailer: the commit carries the request's digest next
// to the key, and Luna-Request cannot be set through Change.Extra; an edit
// with a key must say what it applies.
func TestIdempotencyKeyTrailer(t *testing.T) {
	ctx := context.Background()
	s, _, _ := keyStore(t)
	tr := git(t, s.root, "log", "-1", "--format=%(trailers:key=Luna-Idempotency-Key,key=Luna-Request,valueonly)")
	lines := strings.Split(strings.TrimSpace(tr), "\n")
	if len(lines) != 2 || lines[0] != "k" || len(lines[1]) != 64 {
		t.Fatalf("trailers %q", tr)
	}
	if _, err := s.Edit(ctx, "a.md", lunad.Change{Extra: map[string]string{"Request": "x"}}, replace("two", "3")); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("forged Luna-Request: %v", err)
	}
	if _, err := s.Edit(ctx, "a.md", lunad.Change{IdempotencyKey: "n"}, replace("two", "3")); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "Change.Input") {
		t.Fatalf("keyed edit without input: %v", err)
	}
}
