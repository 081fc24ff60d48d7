package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

// isoSession is a client of a server over a real workspace with the
// isolated workflow iso (wstest.AddIsolated) and the review workflow,
// which is not isolated.
type isoSession struct {
	t    *testing.T
	cs   *sdk.ClientSession
	svc  *workspace.Service
	root string
}

func connectIso(t *testing.T) *isoSession {
	t.Helper()
	svc, dir := newService(t, func(o *gitstore.Options) {
		var mu sync.Mutex
		clock := o.Clock
		o.Clock = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock() }
	})
	wstest.Create(t, svc, "notes/a.md", "# A\n\nfrom main\n")
	wstest.AddIsolated(t, dir)
	wstest.AddWorkflows(t, dir)
	if err := svc.SyncGitIndex(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), svc, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return &isoSession{t: t, cs: connectTo(t, srv, nil), svc: svc, root: dir}
}

// run runs workflow to its end.
func (s *isoSession) run(workflow string) lunad.RunInfo {
	s.t.Helper()
	info := wstest.RunToEnd(s.t, s.svc, lunad.RunRequest{Workflow: workflow})
	if info.Status != lunad.RunCompleted {
		s.t.Fatalf("run %s: %s (%s)", info.ID, info.Status, info.Error)
	}
	return info
}

func (s *isoSession) rev(name string) string {
	s.t.Helper()
	return strings.TrimSpace(wstest.GitRun(s.t, s.root, "rev-parse", name))
}

// branches lists the run branches left.
func (s *isoSession) branches() string {
	s.t.Helper()
	return wstest.GitRun(s.t, s.root, "branch", "--list", "luna/*")
}

// TestSettleTools: accept_run fast-forwards the branch a finished isolated
// run was made from to the run's branch and removes that branch (again:
// the same answer); discard_run deletes the run's branch and leaves main
// as it is; refusals change nothing and say what to do — a branch that
// moved names both commits and the git merge that keeps the work, an
// unknown run the tool that lists the runs.
func TestSettleTools(t *testing.T) {
	s := connectIso(t)

	t.Run("accept", func(t *testing.T) {
		info := s.run("iso")
		tip := s.rev(info.Branch)
		for i := range 2 { // accepting again returns the run
			var out settleOut
			if r := call(t, s.cs, "accept_run", map[string]any{"id": info.ID}, &out); r.IsError {
				t.Fatalf("call %d: %s", i+1, text(r))
			}
			want := settleOut{Run: info.ID, Workflow: "iso", Branch: info.Branch, BaseBranch: "main", Accepted: tip,
				Message: fmt.Sprintf("accepted run %s: main is at %.12s now, with the run's work; %s and its worktree are removed", info.ID, tip, info.Branch)}
			if out != want {
				t.Fatalf("call %d: %+v\nwant %+v", i+1, out, want)
			}
		}
		if s.rev("main") != tip || s.branches() != "" {
			t.Fatalf("main at %s (want %s), branches %q", s.rev("main"), tip, s.branches())
		}
		if got := wstest.Read(t, s.svc, "notes/new.md"); got != "new\n" {
			t.Fatalf("main's notes/new.md: %q", got)
		}
	})

	t.Run("discard", func(t *testing.T) {
		main := s.rev("main")
		info := s.run("iso")
		for i := range 2 {
			var out settleOut
			if r := call(t, s.cs, "discard_run", map[string]any{"id": info.ID}, &out); r.IsError {
				t.Fatalf("call %d: %s", i+1, text(r))
			}
			if !out.Discarded || out.Accepted != "" || out.Branch != info.Branch ||
				out.Message != fmt.Sprintf("discarded run %s: %s and its worktree are deleted; main is untouched", info.ID, info.Branch) {
				t.Fatalf("call %d: %+v", i+1, out)
			}
		}
		if s.rev("main") != main || s.branches() != "" {
			t.Fatalf("main at %s (want %s), branches %q", s.rev("main"), main, s.branches())
		}
		wantError(t, call(t, s.cs, "accept_run", map[string]any{"id": info.ID}, nil),
			"nothing was changed: invalid input: run "+info.ID+" was discarded")
	})

	t.Run("branch moved", func(t *testing.T) {
		base := s.rev("main")
		info := s.run("iso")
		wstest.Create(t, s.svc, "notes/later.md", "made on main meanwhile\n")
		now := s.rev("main")
		wantError(t, call(t, s.cs, "accept_run", map[string]any{"id": info.ID}, nil),
			fmt.Sprintf("conflict, nothing was changed: branch main moved since run %s started, from %s to %s, so a fast-forward would drop its new commits; "+
				"to keep the run's work, the person merges its branch with git (git merge %s, on main); or drop it with discard_run {\"id\": %q}", info.ID, base, now, info.Branch, info.ID))
		if s.rev("main") != now || s.rev(info.Branch) == now {
			t.Fatal("a refused accept moved a branch")
		}
		call(t, s.cs, "discard_run", map[string]any{"id": info.ID}, nil)
	})

	t.Run("uncommitted changes", func(t *testing.T) {
		info := s.run("iso")
		wstest.Save(t, s.root, "notes/a.md", "# A\n\nchanged by hand\n")
		wantError(t, call(t, s.cs, "accept_run", map[string]any{"id": info.ID}, nil),
			"nothing was changed: the branch's files have uncommitted changes the accept would overwrite; the person commits or discards them, then call again.", "notes/a.md")
		if s.branches() == "" {
			t.Fatal("the run's branch went with a refused accept")
		}
		wstest.Save(t, s.root, "notes/a.md", wstest.Read(t, s.svc, "notes/a.md"))
		call(t, s.cs, "discard_run", map[string]any{"id": info.ID}, nil)
	})

	t.Run("refusals", func(t *testing.T) {
		review := s.run("review")
		for _, tc := range []struct {
			name, tool, id, want string
		}{
			{"unknown run", "accept_run", "nope", `nothing was changed: no run "nope"; see run_status {} for the runs`},
			{"unknown run discarded", "discard_run", "nope", `nothing was changed: no run "nope"; see run_status {} for the runs`},
			{"not isolated", "accept_run", review.ID, "nothing was changed: invalid input: run " + review.ID + " is not isolated"},
			{"not isolated discarded", "discard_run", review.ID, "nothing was changed: invalid input: run " + review.ID + " is not isolated"},
			{"no id", "accept_run", "", "invalid input"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantError(t, call(t, s.cs, tc.tool, map[string]any{"id": tc.id}, nil), tc.want)
			})
		}
	})
	wstest.GitRun(t, s.root, "fsck", "--strict", "--no-progress")
}
