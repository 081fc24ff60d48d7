package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

// serveTest serves svc on its socket until the test ends and returns a
// function that stops the daemon and reports Serve's error.
func serveTest(t *testing.T, svc *workspace.Service, opts ServeOptions) (stop func() error) {
	t.Helper()
	ln, err := Listen(svc)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, svc, ln, opts) }()
	var once bool
	var serr error
	stop = func() error {
		if !once {
			once = true
			cancel()
			select {
			case serr = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Serve did not return after its context was canceled")
			}
		}
		return serr
	}
	t.Cleanup(func() { stop() })
	return stop
}

// clientTest connects a Client to the daemon of the workspace at root.
func clientTest(t *testing.T, root string) *Client {
	t.Helper()
	ws, err := Connect(context.Background(), root, ConnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws.(*Client)
}

// TestWorkspaceSuite runs one scenario against the in-process Service and
// against a Client of a daemon serving an identical workspace over a real
// socket: each step checks its results, and the two transcripts (every
// result and every error message) must be identical.
func TestWorkspaceSuite(t *testing.T) {
	targets := []struct {
		name string
		open func(t *testing.T) (ws, other lunad.Workspace)
	}{
		{"service", func(t *testing.T) (lunad.Workspace, lunad.Workspace) {
			svc := newService(t)
			serveTest(t, svc, ServeOptions{})
			return svc, clientTest(t, svc.Root())
		}},
		{"client", func(t *testing.T) (lunad.Workspace, lunad.Workspace) {
			svc := newService(t)
			serveTest(t, svc, ServeOptions{})
			return clientTest(t, svc.Root()), clientTest(t, svc.Root())
		}},
	}
	transcripts := make([][]string, len(targets))
	for i, target := range targets {
		t.Run(target.name, func(t *testing.T) {
			ws, other := target.open(t)
			transcripts[i] = runSuite(t, ws, other)
		})
	}
	if t.Failed() {
		return
	}
	a, b := transcripts[0], transcripts[1]
	if len(a) < 40 {
		t.Fatalf("short transcript: %d steps", len(a))
	}
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			t.Fatalf("the Client differs from the workspace.Service at step %d:\nservice: %s\nclient:  %s", i, at(a, i), at(b, i))
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// suiteState is what the scenario's steps share.
type suiteState struct {
	ws, other lunad.Workspace
	code, doc string // artifact IDs
	log       []string
}

// record adds a step's outcome to the transcript: its result as JSON, or
// its error's message and the sentinels it is.
func (s *suiteState) record(step string, v any, err error) {
	if err != nil {
		var is []string
		for _, st := range sentinels {
			if errors.Is(err, st.err) {
				is = append(is, st.name)
			}
		}
		s.log = append(s.log, fmt.Sprintf("%s: error %q is %v", step, err.Error(), is))
		return
	}
	b, merr := json.Marshal(v)
	if merr != nil {
		panic(merr)
	}
	s.log = append(s.log, step+": "+string(b))
}

const suiteDoc = "# Notes\n\n`parse_config` reads the configuration.\n"

func runSuite(t *testing.T, ws, other lunad.Workspace) []string {
	ctx := context.Background()
	s := &suiteState{ws: ws, other: other}
	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"list empty", func(t *testing.T) {
			arts, err := ws.List(ctx)
			s.record("list", arts, err)
			if err != nil || len(arts) != 0 {
				t.Fatalf("%v %v", arts, err)
			}
		}},
		{"create", func(t *testing.T) {
			r, err := ws.Create(ctx, lunad.CreateSpec{Title: "config", Path: "config.py", Content: []byte(src), Change: lunad.Change{Agent: "coder"}})
			s.record("create code", r, err)
			if err != nil || r.Artifact.Path != "config.py" || r.Version.Number != 1 || r.Version.Agent != "coder" {
				t.Fatalf("%+v %v", r, err)
			}
			s.code = r.Artifact.ID
			r, err = ws.Create(ctx, lunad.CreateSpec{Title: "notes", Path: "notes.md", Content: []byte(suiteDoc)})
			s.record("create doc", r, err)
			if err != nil {
				t.Fatal(err)
			}
			s.doc = r.Artifact.ID
			_, err = ws.Create(ctx, lunad.CreateSpec{Title: "again", Path: "notes.md"})
			s.record("create existing", nil, err)
			if !errors.Is(err, lunad.ErrExists) {
				t.Fatalf("create over notes.md: %v", err)
			}
		}},
		{"list", func(t *testing.T) {
			arts, err := ws.List(ctx)
			s.record("list", arts, err)
			if err != nil || len(arts) != 2 || arts[0].ID != s.code && arts[1].ID != s.code {
				t.Fatalf("%+v %v", arts, err)
			}
			a, err := ws.Artifact(ctx, "notes.md")
			s.record("artifact", a, err)
			if err != nil || a.ID != s.doc {
				t.Fatalf("%+v %v", a, err)
			}
		}},
		{"edit with a SEARCH miss keeps the hint", func(t *testing.T) {
			_, err := ws.Edit(ctx, lunad.EditRequest{ID: s.code, Blocks: []lunad.Block{{Search: "def parse_yaml(path):\n", Replace: "def parse(path):\n"}}})
			s.record("edit miss", nil, err)
			var nm *editor.NoMatchError
			if !errors.Is(err, lunad.ErrNotApplied) || !errors.Is(err, editor.ErrNoMatch) || !errors.As(err, &nm) {
				t.Fatalf("error %v (%T)", err, err)
			}
			if len(nm.Hints) != 1 || nm.Hints[0].Line != 1 || nm.Hints[0].Text != "def parse_config(path):" || nm.Score < 0.5 ||
				!strings.Contains(err.Error(), "did not apply") || !strings.Contains(err.Error(), "the closest line is 1") {
				t.Fatalf("hints %+v in %q", nm, err)
			}
		}},
		{"edit errors", func(t *testing.T) {
			_, err := ws.Edit(ctx, lunad.EditRequest{ID: s.code, BlocksText: "<<<<<<< SEARCH\nx\n"})
			s.record("edit bad blocks", nil, err)
			var pe *editor.ParseError
			if !errors.Is(err, lunad.ErrInvalid) || !errors.Is(err, editor.ErrBadBlocks) || !errors.As(err, &pe) || pe.Err != editor.ErrBadBlocks {
				t.Fatalf("error %v", err)
			}
			_, err = ws.Edit(ctx, lunad.EditRequest{ID: s.code, Rewrite: true, Content: []byte("x\x00")})
			s.record("edit binary", nil, err)
			var te *editor.TextError
			if !errors.Is(err, lunad.ErrInvalid) || !errors.As(err, &te) || te.Err != editor.ErrBinary {
				t.Fatalf("error %v", err)
			}
			req := lunad.EditRequest{ID: s.code, Rewrite: true, Content: []byte("x\n")}
			req.BaseVersion = 7
			_, err = ws.Edit(ctx, req)
			s.record("edit conflict", nil, err)
			if !errors.Is(err, lunad.ErrConflict) {
				t.Fatalf("error %v", err)
			}
			_, err = ws.Edit(ctx, lunad.EditRequest{ID: "nosuchid", Rewrite: true, Content: []byte("x\n")})
			s.record("edit unknown", nil, err)
			if !errors.Is(err, lunad.ErrNotFound) {
				t.Fatalf("error %v", err)
			}
			// Bytes that are not UTF-8 reach the store as they are.
			_, err = ws.Edit(ctx, lunad.EditRequest{ID: s.code, Blocks: []lunad.Block{{Search: "\xff\n", Replace: "y\n"}}})
			s.record("edit not UTF-8", nil, err)
			if !errors.As(err, &te) || te.Err != editor.ErrInvalidUTF8 {
				t.Fatalf("error %v", err)
			}
		}},
		{"edit", func(t *testing.T) {
			req := lunad.EditRequest{ID: s.code, BlocksText: "config.py\n<<<<<<< SEARCH\n        return toml.load(f)\n=======\n        return tomllib.load(f)\n>>>>>>> REPLACE\n"}
			req.Agent, req.Message, req.IdempotencyKey, req.BaseVersion = "coder", "use tomllib", "k1", 1
			r, err := ws.Edit(ctx, req)
			s.record("edit", r, err)
			if err != nil || r.Version.Number != 2 || len(r.Matches) != 1 || r.Matches[0].Tier != string(editor.TierExact) {
				t.Fatalf("%+v %v", r, err)
			}
			again, err := ws.Edit(ctx, req)
			s.record("edit replayed", again, err)
			if err != nil || !again.Replayed || again.Version.Commit != r.Version.Commit {
				t.Fatalf("%+v %v", again, err)
			}
			// The same blocks as pairs are the same request; other blocks
			// with the key are not.
			pairs := req
			pairs.BlocksText, pairs.Blocks = "", []lunad.Block{{Search: "        return toml.load(f)\n", Replace: "        return tomllib.load(f)\n"}}
			again, err = ws.Edit(ctx, pairs)
			s.record("edit replayed as pairs", again, err)
			if err != nil || !again.Replayed || again.Version.Commit != r.Version.Commit {
				t.Fatalf("%+v %v", again, err)
			}
			other := req
			other.BlocksText = strings.Replace(req.BlocksText, "tomllib.load", "json.load", 1)
			_, err = ws.Edit(ctx, other)
			s.record("edit with a used key", nil, err)
			if !errors.Is(err, lunad.ErrConflict) || !strings.Contains(err.Error(), `idempotency key "k1" was already used for edit of `+s.code+" by coder at "+r.Version.Commit[:12]) {
				t.Fatalf("other blocks with the key: %v", err)
			}
		}},
		{"stale", func(t *testing.T) {
			refs, err := ws.Stale(ctx)
			s.record("stale", refs, err)
			if err != nil || len(refs) != 1 || refs[0].State != lunad.RefStale || refs[0].To == nil || refs[0].To.Symbol != "parse_config" {
				t.Fatalf("%+v %v", refs, err)
			}
		}},
		{"refs", func(t *testing.T) {
			rep, err := ws.Refs(ctx, s.doc)
			s.record("refs", rep, err)
			if err != nil || len(rep.Outgoing) == 0 || rep.Outgoing[0].State != lunad.RefStale {
				t.Fatalf("%+v %v", rep, err)
			}
			out, err := ws.Outgoing(ctx, s.doc)
			s.record("outgoing", out, err)
			if err != nil || len(out) != len(rep.Outgoing) {
				t.Fatalf("%+v %v", out, err)
			}
			rep, err = ws.Refs(ctx, s.code)
			s.record("refs code", rep, err)
			if err != nil || len(rep.Incoming) != 1 {
				t.Fatalf("%+v %v", rep, err)
			}
		}},
		{"symbols", func(t *testing.T) {
			a, syms, err := ws.Symbols(ctx, s.code)
			s.record("symbols", []any{a, syms}, err)
			if err != nil || a.ID != s.code || len(syms) != 2 || syms[0].Name != "parse_config" || syms[1].Name != "main" {
				t.Fatalf("%+v %v", syms, err)
			}
			hits, err := ws.SearchSymbols(ctx, "PARSE", 10)
			s.record("search symbols", hits, err)
			if err != nil || len(hits) != 1 || hits[0].ID != s.code {
				t.Fatalf("%+v %v", hits, err)
			}
		}},
		{"at", func(t *testing.T) {
			pt, err := ws.At(ctx, s.doc, strings.Index(suiteDoc, "parse_config")+3)
			s.record("at ref", pt, err)
			if err != nil || pt.Ref == nil || pt.Ref.To == nil || pt.Ref.To.Symbol != "parse_config" || pt.Ref.State != lunad.RefStale {
				t.Fatalf("%+v %v", pt, err)
			}
			pt, err = ws.At(ctx, s.code, 6)
			s.record("at definition", pt, err)
			if err != nil || pt.Symbol == nil || pt.Symbol.Name != "parse_config" || len(pt.Dependents) != 1 {
				t.Fatalf("%+v %v", pt, err)
			}
			_, err = ws.At(ctx, s.code, 1<<20)
			s.record("at outside", nil, err)
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("error %v", err)
			}
		}},
		{"ack", func(t *testing.T) {
			r, err := ws.Ack(ctx, lunad.AckRequest{Ref: s.doc, Symbol: "parse_config", Change: lunad.Change{Agent: "reviewer"}})
			s.record("ack", r, err)
			if err != nil || r.Version.Op != lunad.OpAck {
				t.Fatalf("%+v %v", r, err)
			}
			_, err = ws.Ack(ctx, lunad.AckRequest{Ref: s.doc, Symbol: "nothing_like_it"})
			s.record("ack unknown symbol", nil, err)
			if !errors.Is(err, lunad.ErrNotFound) {
				t.Fatalf("error %v", err)
			}
			refs, err := ws.Stale(ctx)
			s.record("stale after ack", refs, err)
			if err != nil || len(refs) != 0 {
				t.Fatalf("%+v %v", refs, err)
			}
		}},
		{"undo redo restore", func(t *testing.T) {
			r, err := ws.Undo(ctx, lunad.RefRequest{Ref: s.code})
			s.record("undo", r, err)
			if err != nil || r.Version.Op != lunad.OpUndo || r.Version.Number != 3 {
				t.Fatalf("%+v %v", r, err)
			}
			content, _, err := ws.Read(ctx, s.code, "")
			s.record("read after undo", string(content), err)
			if err != nil || string(content) != src {
				t.Fatalf("%q %v", content, err)
			}
			r, err = ws.Redo(ctx, lunad.RefRequest{Ref: s.code})
			s.record("redo", r, err)
			if err != nil || r.Version.Op != lunad.OpRedo || r.Version.Number != 4 {
				t.Fatalf("%+v %v", r, err)
			}
			r, err = ws.Restore(ctx, lunad.RestoreRequest{Ref: s.code, Version: 1, Change: lunad.Change{Message: "back to the start"}})
			s.record("restore", r, err)
			if err != nil || r.Version.Op != lunad.OpRestore || r.Version.Number != 5 {
				t.Fatalf("%+v %v", r, err)
			}
			_, err = ws.Restore(ctx, lunad.RestoreRequest{Ref: s.code, Version: 1})
			s.record("restore again", nil, err)
			if !errors.Is(err, lunad.ErrNotApplied) {
				t.Fatalf("error %v", err)
			}
		}},
		{"history diff read", func(t *testing.T) {
			h, err := ws.History(ctx, s.code)
			s.record("history", h, err)
			if err != nil || len(h) != 5 {
				t.Fatalf("%+v %v", h, err)
			}
			d, err := ws.Diff(ctx, s.code, 1, 2)
			s.record("diff", d, err)
			if err != nil || !strings.Contains(d, "+        return tomllib.load(f)\n") {
				t.Fatalf("%q %v", d, err)
			}
			content, a, err := ws.Read(ctx, s.code, "2")
			s.record("read v2", []any{string(content), a}, err)
			if err != nil || !strings.Contains(string(content), "tomllib") {
				t.Fatalf("%q %v", content, err)
			}
			_, _, err = ws.Read(ctx, s.code, "99")
			s.record("read v99", nil, err)
			if !errors.Is(err, lunad.ErrNotFound) {
				t.Fatalf("error %v", err)
			}
		}},
		{"move archive link", func(t *testing.T) {
			r, err := ws.Move(ctx, lunad.MoveRequest{Ref: s.doc, Path: "docs/notes.md"})
			s.record("move", r, err)
			if err != nil || r.Artifact.Path != "docs/notes.md" {
				t.Fatalf("%+v %v", r, err)
			}
			r, err = ws.Link(ctx, lunad.LinkRequest{Src: s.doc, Dst: s.code, Kind: "depends_on", Change: lunad.Change{Extra: map[string]string{"Ticket": "LUNA-4"}}})
			s.record("link", r, err)
			if err != nil || len(r.Artifact.Links) != 1 || r.Version.Extra["Ticket"] != "LUNA-4" {
				t.Fatalf("%+v %v", r, err)
			}
			r, err = ws.Archive(ctx, lunad.RefRequest{Ref: s.doc})
			s.record("archive", r, err)
			if err != nil || r.Artifact.Status != lunad.StatusArchived {
				t.Fatalf("%+v %v", r, err)
			}
		}},
		{"branches", func(t *testing.T) {
			b, err := ws.Branch(ctx, lunad.BranchRequest{Name: "feature"})
			s.record("branch", b, err)
			if err != nil || b.Name != "feature" {
				t.Fatalf("%+v %v", b, err)
			}
			b, err = ws.Switch(ctx, "feature")
			s.record("switch", b, err)
			if err != nil || !b.Current {
				t.Fatalf("%+v %v", b, err)
			}
			bs, err := ws.Branches(ctx)
			s.record("branches", bs, err)
			if err != nil || len(bs) != 2 {
				t.Fatalf("%+v %v", bs, err)
			}
			_, err = ws.Switch(ctx, "nope")
			s.record("switch unknown", nil, err)
			if !errors.Is(err, lunad.ErrNotFound) {
				t.Fatalf("error %v", err)
			}
		}},
		{"subscribe sees an event from another client", func(t *testing.T) {
			sctx, cancel := context.WithCancel(ctx)
			events, err := ws.Subscribe(sctx)
			if err != nil {
				t.Fatal(err)
			}
			r, err := other.Create(ctx, lunad.CreateSpec{Title: "from elsewhere", Path: "other.md", Content: []byte("hi\n")})
			s.record("create by the other client", r, err)
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.After(10 * time.Second)
			for found := false; !found; {
				select {
				case e, ok := <-events:
					if !ok {
						t.Fatal("events closed")
					}
					found = e.Kind == "created" && len(e.IDs) == 1 && e.IDs[0] == r.Artifact.ID && e.Commit == r.Version.Commit
				case <-deadline:
					t.Fatal("no event for the other client's create")
				}
			}
			cancel()
			for range events { // closed once ctx is done
			}
		}},
	}
	for _, st := range steps {
		if !t.Run(st.name, st.run) {
			t.FailNow()
		}
	}
	return s.log
}

// TestWaitingClientLetsDaemonStop: a client waiting for a long run does not
// hold up the daemon's shutdown (each wait call is bounded; the client
// asks again), and the run goes on being waited for while the daemon runs.
func TestWaitingClientLetsDaemonStop(t *testing.T) {
	svc := newService(t)
	wstest.AddWorkflows(t, svc.Root())
	stop := serveTest(t, svc, ServeOptions{})
	c := clientTest(t, svc.Root())
	ctx := context.Background()
	run, err := c.StartRun(ctx, lunad.RunRequest{Workflow: "review", Params: map[string]string{"sleep": "30"}})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := c.WaitRun(ctx, run.ID)
		waited <- err
	}()
	time.Sleep(3 * waitSlice) // the client has asked more than once
	select {
	case err := <-waited:
		t.Fatalf("WaitRun returned before the run finished: %v", err)
	default:
	}
	start := time.Now()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*waitSlice {
		t.Fatalf("the daemon took %v to stop with a client waiting", d)
	}
	svc.Close() // stops the run's agent
	<-waited
}
