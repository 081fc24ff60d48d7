package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

// TestSettleCommands: luna.acceptRun fast-forwards main to a finished
// isolated run's branch and removes the branch; luna.discardRun (with
// {id}) deletes it and leaves main; a branch that moved is a
// RequestFailed error naming both commits, the git merge that keeps the
// work and luna.discardRun, an unknown run says which command lists the
// runs — in-process and through a real daemon, whose error carries the
// typed refusal over its socket.
func TestSettleCommands(t *testing.T) {
	ctx := context.Background()
	for _, through := range []struct {
		name string
		wrap func(*testing.T) func(*workspace.Service) lunad.Workspace
	}{
		{"in-process", func(*testing.T) func(*workspace.Service) lunad.Workspace { return nil }},
		{"daemon", viaDaemon},
	} {
		t.Run(through.name, func(t *testing.T) {
			s := startConfigured(t, startConfig{more: []lunad.CreateSpec{{Title: "A", Path: "notes/a.md", Content: []byte("# A\n\nfrom main\n")}},
				wrap: func(base *workspace.Service) lunad.Workspace {
					wstest.AddIsolated(t, base.Root())
					if err := base.SyncGitIndex(ctx); err != nil {
						t.Fatal(err)
					}
					if w := through.wrap(t); w != nil {
						return w(base)
					}
					return base
				}})
			rev := func(name string) string { return strings.TrimSpace(wstest.GitRun(t, s.root, "rev-parse", name)) }
			run := func() lunad.RunInfo {
				info := wstest.RunToEnd(t, s.svc, lunad.RunRequest{Workflow: "iso"})
				if info.Status != lunad.RunCompleted {
					t.Fatalf("run %s: %s (%s)", info.ID, info.Status, info.Error)
				}
				return info
			}
			branches := func() string { return wstest.GitRun(t, s.root, "branch", "--list", "luna/*") }

			first := run()
			tip := rev(first.Branch)
			var got lunad.RunInfo
			if err := s.runCommand("luna.acceptRun", &got, fmt.Sprintf("%q", first.ID)); err != nil {
				t.Fatal(err)
			}
			if got.ID != first.ID || got.Accepted != tip || rev("main") != tip || branches() != "" {
				t.Fatalf("accepted: %+v; main at %s, want %s; branches %q", got, rev("main"), tip, branches())
			}

			second := run()
			got = lunad.RunInfo{}
			if err := s.runCommand("luna.discardRun", &got, fmt.Sprintf(`{"id": %q}`, second.ID)); err != nil {
				t.Fatal(err)
			}
			if !got.Discarded || rev("main") != tip || branches() != "" {
				t.Fatalf("discarded: %+v; main at %s, want %s; branches %q", got, rev("main"), tip, branches())
			}

			third := run()
			wstest.Create(t, s.svc, "notes/later.md", "made on main meanwhile\n")
			now := rev("main")
			for _, tc := range []struct {
				name, cmd, arg string
				code           jsonrpc2.Code
				want           string
			}{
				{"branch moved", "luna.acceptRun", fmt.Sprintf("%q", third.ID), jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed),
					fmt.Sprintf("conflict: branch main moved since run %s started (%.12s → %.12s); nothing was changed: merge %s yourself with git (git merge %s, on main), or discard the run (luna.discardRun)", third.ID, tip, now, third.Branch, third.Branch)},
				{"unknown run", "luna.discardRun", `"nope"`, jsonrpc2.InvalidParams, `not found: no run "nope" (luna.runs lists the runs)`},
				{"accepted, then discarded", "luna.discardRun", fmt.Sprintf("%q", first.ID), jsonrpc2.InvalidParams, "invalid input: run " + first.ID + " was accepted"},
				{"no argument", "luna.acceptRun", "", jsonrpc2.InvalidParams, "invalid input: luna.acceptRun: argument 1 must be a run's ID or {id}"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					var args []string
					if tc.arg != "" {
						args = append(args, tc.arg)
					}
					err := s.runCommand(tc.cmd, nil, args...)
					var we *jsonrpc2.Error
					if !errors.As(err, &we) || we.Code != tc.code || !strings.HasPrefix(we.Message, tc.want) {
						t.Fatalf("err = %v\nwant code %d and %q", err, tc.code, tc.want)
					}
				})
			}
			if rev("main") != now || rev(third.Branch) == now {
				t.Fatal("a refused accept moved a branch")
			}
			wstest.GitRun(t, s.root, "fsck", "--strict", "--no-progress")
		})
	}
}
