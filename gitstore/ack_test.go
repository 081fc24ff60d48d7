package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lunad/lunad"
)

const ackContent = "def parse_config(p):\n    return p\n"

// ackStore makes a workspace holding one artifact, config.py (a0000001).
func ackStore(t *testing.T) (*Store, string) {
	t.Helper()
	s := newStore(t)
	r, err := s.Create(context.Background(), lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte(ackContent)})
	if err != nil {
		t.Fatal(err)
	}
	return s, r.Artifact.ID
}

// head returns the commit HEAD names, as git sees it.
func head(t *testing.T, s *Store) string {
	t.Helper()
	return strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD"))
}

func TestAck(t *testing.T) {
	ctx := context.Background()
	keyed := lunad.Change{Agent: "reviewer", Message: "checked after the refactor\n\nthe signature is unchanged", IdempotencyKey: "k-1", Extra: map[string]string{"Review": "manual"}}
	digest := requestDigest(newWrite(lunad.OpAck, keyed, []byte("Config.parse")), "a0000001", "reviewer")
	cases := []struct {
		name     string
		ref      string // "" means the artifact's ID
		symbol   string
		ch       lunad.Change
		wantMsg  string // git log -1 --format=%B, trailing newlines trimmed
		wantXtra map[string]string
	}{
		{
			name: "all references",
			wantMsg: "ack config.py\n\n" +
				"Luna-Artifact: a0000001\nLuna-Op: ack\nLuna-Version: 2\nLuna-Agent: Ada",
		},
		{
			name:   "symbol",
			symbol: "parse_config",
			wantMsg: "ack config.py symbol parse_config\n\n" +
				"Luna-Artifact: a0000001\nLuna-Op: ack\nLuna-Version: 2\nLuna-Agent: Ada\nLuna-Symbol: parse_config",
			wantXtra: map[string]string{"Symbol": "parse_config"},
		},
		{
			name:   "symbol by path with agent, message, key and extra",
			ref:    "config.py",
			symbol: "  Config.parse ",
			ch:     keyed,
			wantMsg: "ack config.py symbol Config.parse: checked after the refactor\n\nthe signature is unchanged\n\n" +
				"Luna-Artifact: a0000001\nLuna-Op: ack\nLuna-Version: 2\nLuna-Agent: reviewer\nLuna-Idempotency-Key: k-1\nLuna-Request: " + digest + "\n" +
				"Luna-Review: manual\nLuna-Symbol: Config.parse",
			wantXtra: map[string]string{"Symbol": "Config.parse", "Review": "manual"},
		},
		{
			name:   "symbol also given in extra",
			symbol: "parse_config",
			ch:     lunad.Change{Extra: map[string]string{"Symbol": "parse_config"}},
			wantMsg: "ack config.py symbol parse_config\n\n" +
				"Luna-Artifact: a0000001\nLuna-Op: ack\nLuna-Version: 2\nLuna-Agent: Ada\nLuna-Symbol: parse_config",
			wantXtra: map[string]string{"Symbol": "parse_config"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, id := ackStore(t)
			before := head(t, s)
			ref := c.ref
			if ref == "" {
				ref = id
			}
			var extraBefore map[string]string
			if c.ch.Extra != nil {
				extraBefore = map[string]string{}
				for k, v := range c.ch.Extra {
					extraBefore[k] = v
				}
			}
			res, err := s.Ack(ctx, ref, c.symbol, c.ch)
			if err != nil {
				t.Fatal(err)
			}
			if res.Replayed || res.Version.Op != lunad.OpAck || res.Version.Number != 2 || res.Artifact.Version != 2 {
				t.Fatalf("result %+v", res)
			}
			if !equalMaps(res.Version.Extra, c.wantXtra) {
				t.Fatalf("result extra %v, want %v", res.Version.Extra, c.wantXtra)
			}
			if c.ch.Extra != nil && !equalMaps(c.ch.Extra, extraBefore) {
				t.Fatalf("caller's Extra modified: %v", c.ch.Extra)
			}
			// What git itself says: one commit on top, same tree, exact message.
			if got := head(t, s); got != res.Version.Commit {
				t.Fatalf("HEAD %s, result commit %s", got, res.Version.Commit)
			}
			if parent := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD~1")); parent != before {
				t.Fatalf("parent %s, want %s", parent, before)
			}
			git(t, s.root, "diff", "--quiet", "HEAD~1", "HEAD") // fails the test on a difference
			if a, b := git(t, s.root, "rev-parse", "HEAD^{tree}"), git(t, s.root, "rev-parse", "HEAD~1^{tree}"); a != b {
				t.Fatalf("tree changed: %s vs %s", a, b)
			}
			if msg := strings.TrimRight(git(t, s.root, "log", "-1", "--format=%B"), "\n"); msg != c.wantMsg {
				t.Fatalf("message\n%s\nwant\n%s", msg, c.wantMsg)
			}
			if c.wantXtra["Symbol"] != "" {
				got := strings.TrimSpace(git(t, s.root, "log", "-1", "--format=%(trailers:key=Luna-Symbol,valueonly)"))
				if got != c.wantXtra["Symbol"] {
					t.Fatalf("git reads Luna-Symbol %q", got)
				}
			}
			if got := strings.TrimSpace(git(t, s.root, "log", "-1", "--format=%(trailers:key=Luna-Op,valueonly)")); got != "ack" {
				t.Fatalf("git reads Luna-Op %q", got)
			}
			// History and reads.
			hist, err := s.History(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != 2 {
				t.Fatalf("history %+v", hist)
			}
			v := hist[1]
			if v.Op != lunad.OpAck || v.Number != 2 || v.Commit != res.Version.Commit || v.Extra["Symbol"] != c.wantXtra["Symbol"] || !equalMaps(v.Extra, c.wantXtra) {
				t.Fatalf("history entry %+v", v)
			}
			b, a, err := s.Read(ctx, id, "")
			if err != nil || string(b) != ackContent || a.Version != 2 {
				t.Fatalf("read after ack: %q %+v %v", b, a, err)
			}
			disk, _ := os.ReadFile(filepath.Join(s.root, "config.py"))
			if string(disk) != ackContent {
				t.Fatalf("working tree %q", disk)
			}
			checkRepo(t, s) // fsck --strict, status clean
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestAckErrors(t *testing.T) {
	ctx := context.Background()
	s, id := ackStore(t)
	if _, err := s.Ack(ctx, id, "", lunad.Change{IdempotencyKey: "used"}); err != nil {
		t.Fatal(err)
	}
	other, err := s.Create(ctx, lunad.CreateSpec{Title: "other", Path: "other.md", Content: []byte("x\n")})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		ref    string
		symbol string
		ch     lunad.Change
		want   error
		msg    string
	}{
		{"unknown id", "zzzzzzzz", "", lunad.Change{}, lunad.ErrNotFound, "zzzzzzzz"},
		{"unknown path", "nope.md", "parse_config", lunad.Change{}, lunad.ErrNotFound, ""},
		{"newline in symbol", id, "parse\nconfig", lunad.Change{}, lunad.ErrInvalid, "one line"},
		{"trailing newline in symbol", id, "parse_config\n", lunad.Change{}, lunad.ErrInvalid, "control character"},
		{"tab in symbol", id, "parse\tconfig", lunad.Change{}, lunad.ErrInvalid, "control character"},
		{"NUL in symbol", id, "parse\x00config", lunad.Change{}, lunad.ErrInvalid, "control character"},
		{"300-byte symbol", id, strings.Repeat("s", 300), lunad.Change{}, lunad.ErrInvalid, "limit is 200"},
		{"invalid UTF-8 symbol", id, "parse_\xff\xfeconfig", lunad.Change{}, lunad.ErrInvalid, "UTF-8 (byte 6)"},
		{"blank symbol", id, "   ", lunad.Change{}, lunad.ErrInvalid, "blank"},
		{"symbol only in extra", id, "", lunad.Change{Extra: map[string]string{"Symbol": "parse_config"}}, lunad.ErrInvalid, "symbol argument"},
		{"symbol differs from extra", id, "a", lunad.Change{Extra: map[string]string{"Symbol": "b"}}, lunad.ErrInvalid, "symbol argument"},
		{"bad agent", id, "", lunad.Change{Agent: "a\nb"}, lunad.ErrInvalid, "agent"},
		{"stale base", id, "", lunad.Change{BaseVersion: 1}, lunad.ErrConflict, "version 2"},
		{"key used for another artifact", other.Artifact.ID, "", lunad.Change{IdempotencyKey: "used"}, lunad.ErrConflict, "already used"},
	}
	before := head(t, s)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Ack(ctx, c.ref, c.symbol, c.ch)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want %v mentioning %q", err, c.want, c.msg)
			}
			if h := head(t, s); h != before {
				t.Fatalf("HEAD moved to %s", h)
			}
		})
	}
	if hist, _ := s.History(ctx, id); len(hist) != 2 {
		t.Fatalf("history %+v", hist)
	}
	checkRepo(t, s)
}

func TestAckIdempotent(t *testing.T) {
	ctx := context.Background()
	s, id := ackStore(t)
	first, err := s.Ack(ctx, id, "parse_config", lunad.Change{IdempotencyKey: "ack-1"})
	if err != nil {
		t.Fatal(err)
	}
	after := head(t, s)
	cases := []struct {
		name   string
		ref    string
		symbol string
	}{
		{"same call", id, "parse_config"},
		{"by path", "config.py", "parse_config"},
		{"same symbol with spaces", id, " parse_config "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			again, err := s.Ack(ctx, c.ref, c.symbol, lunad.Change{IdempotencyKey: "ack-1"})
			if err != nil {
				t.Fatal(err)
			}
			if !again.Replayed || again.Version.Commit != first.Version.Commit || again.Version.Number != 2 || again.Version.Extra["Symbol"] != "parse_config" {
				t.Fatalf("replay %+v, first %+v", again, first)
			}
			if h := head(t, s); h != after {
				t.Fatalf("replay committed: HEAD %s, want %s", h, after)
			}
		})
	}
	// Another symbol, or an edit, with the key is another request: a
	// conflict, nothing is committed.
	if r, err := s.Ack(ctx, id, "other", lunad.Change{IdempotencyKey: "ack-1"}); !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), "was already used for ack of") {
		t.Fatalf("ack of another symbol with the key: %+v %v", r, err)
	}
	if r, err := s.Edit(ctx, id, lunad.Change{IdempotencyKey: "ack-1", Input: []byte("p")}, replace("p", "q")); !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), "this request is to edit") {
		t.Fatalf("edit with an ack's key: %+v %v", r, err)
	}
	if h := head(t, s); h != after {
		t.Fatalf("HEAD moved to %s", h)
	}
	checkRepo(t, s)
}

func TestAckUndoRedo(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r, err := s.Create(ctx, lunad.CreateSpec{Title: "n", Path: "n.txt", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	id := r.Artifact.ID
	// Only acks after the first state: nothing to undo.
	if _, err := s.Ack(ctx, id, "", lunad.Change{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Undo(ctx, id, lunad.Change{}); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("undo of an ack: %v", err)
	}
	current := func(t *testing.T) string { t.Helper(); return currentContent(t, s, id, "n.txt") }
	ack := func(sym string) func() (lunad.Result, error) {
		return func() (lunad.Result, error) { return s.Ack(ctx, id, sym, lunad.Change{}) }
	}
	steps := []struct {
		name   string
		op     func() (lunad.Result, error)
		want   string
		ver    int
		target int // Luna-Target-Version of an undo or redo
	}{
		{"edit", func() (lunad.Result, error) { return s.Edit(ctx, id, lunad.Change{}, replace("one", "two")) }, "two\n", 3, 0},
		{"ack after edit", ack("x"), "two\n", 4, 0},
		{"ack again", ack(""), "two\n", 5, 0},
		{"undo reverts the edit", func() (lunad.Result, error) { return s.Undo(ctx, id, lunad.Change{}) }, "one\n", 6, 2},
		{"ack after undo", ack("x"), "one\n", 7, 0},
		{"redo survives the ack", func() (lunad.Result, error) { return s.Redo(ctx, id, lunad.Change{}) }, "two\n", 8, 3},
		{"ack after redo", ack(""), "two\n", 9, 0},
		{"undo the redone edit", func() (lunad.Result, error) { return s.Undo(ctx, id, lunad.Change{}) }, "one\n", 10, 2},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res, err := st.op()
			if err != nil {
				t.Fatal(err)
			}
			if got := current(t); got != st.want || res.Version.Number != st.ver {
				t.Fatalf("content %q v%d, want %q v%d", got, res.Version.Number, st.want, st.ver)
			}
			if st.target > 0 {
				msg := git(t, s.root, "log", "-1", "--format=%B")
				if want := "Luna-Target-Version: " + strconv.Itoa(st.target) + "\n"; !strings.Contains(msg, want) {
					t.Fatalf("message %q lacks %q", msg, want)
				}
			}
		})
	}
	// Back at the first state: further undos refuse, acks still do not count.
	if _, err := s.Undo(ctx, id, lunad.Change{}); !errors.Is(err, lunad.ErrInvalid) {
		t.Fatalf("undo at first state: %v", err)
	}
	if _, err := s.Redo(ctx, id, lunad.Change{}); err != nil {
		t.Fatalf("redo after undo and acks: %v", err)
	}
	if got := current(t); got != "two\n" {
		t.Fatalf("after redo: %q", got)
	}
	checkRepo(t, s)
}

func TestAckCommitsHumanChangeFirst(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		symbol string
	}{
		{"all references", ""},
		{"symbol", "parse_config"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, id := ackStore(t)
			typed := ackContent + "\ndef other():\n    pass\n"
			writeFile(t, s.root, "config.py", typed) // a person types, not in git yet
			res, err := s.Ack(ctx, id, c.symbol, lunad.Change{Agent: "reviewer"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Version.Number != 3 || res.Version.Op != lunad.OpAck {
				t.Fatalf("result %+v, want the ack as v3 (the human edit is v2)", res.Version)
			}
			hist, _ := s.History(ctx, id)
			if len(hist) != 3 || hist[1].Op != lunad.OpHuman || hist[1].Agent != "Ada" || hist[2].Op != lunad.OpAck || hist[2].Agent != "reviewer" {
				t.Fatalf("history %+v", hist)
			}
			if got := versions(t, s, id); got[1] != typed || got[2] != typed {
				t.Fatalf("versions %q", got)
			}
			// The human commit changed the file; the ack changed nothing.
			git(t, s.root, "diff", "--quiet", "HEAD~1", "HEAD")
			if out := git(t, s.root, "diff", "--name-only", "HEAD~2", "HEAD~1"); out != "config.py\n" {
				t.Fatalf("human commit changed %q", out)
			}
			if b, _ := os.ReadFile(filepath.Join(s.root, "config.py")); string(b) != typed {
				t.Fatalf("person's change lost: %q", b)
			}
			checkRepo(t, s)
		})
	}
}

// Acks from many callers are grouped into batches of empty commits.
func TestAckConcurrent(t *testing.T) {
	ctx := context.Background()
	s, id := ackStore(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Ack(ctx, id, "sym"+strings.Repeat("x", i), lunad.Change{})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	hist, _ := s.History(ctx, id)
	if len(hist) != n+1 {
		t.Fatalf("%d versions, want %d", len(hist), n+1)
	}
	for i, v := range hist[1:] {
		if v.Op != lunad.OpAck || v.Number != i+2 {
			t.Fatalf("version %+v", v)
		}
	}
	first := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD~"+strconv.Itoa(n)+"^{tree}"))
	if got := strings.TrimSpace(git(t, s.root, "rev-parse", "HEAD^{tree}")); got != first {
		t.Fatalf("acks changed the tree: %s vs %s", got, first)
	}
	checkRepo(t, s)
}

func TestCacheDir(t *testing.T) {
	s := newStore(t)
	dir := s.CacheDir()
	if want := filepath.Join(s.root, ".git", "luna", "cache"); dir != want {
		t.Fatalf("CacheDir %s, want %s", dir, want)
	}
	rel, err := filepath.Rel(filepath.Join(s.root, ".git"), dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		t.Fatalf("CacheDir %s is not under the git dir (%s, %v)", dir, rel, err)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		t.Fatalf("CacheDir %s: %v", dir, err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		t.Fatalf("CacheDir mode %v, want 0700", perm)
	}
	// Anything in it may go, the directory included: it comes back.
	writeFile(t, dir, "idx/x", "derived")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(s.CacheDir()); err != nil || !fi.IsDir() {
		t.Fatalf("CacheDir not recreated: %v", err)
	}
	checkRepo(t, s)
}
