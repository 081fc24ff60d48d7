package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
)

// TestIsolatedRunOverTheSocket: an isolated run started, accepted and
// discarded through a client of the daemon: the answers are the
// Service's, and its typed refusal (BranchMovedError) and a dirty start's
// ErrDirty cross the socket with their facts.
func TestIsolatedRunOverTheSocket(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	create(t, svc, "notes/a.md", "# A\n\nfrom main\n")
	wstest.AddIsolated(t, svc.Root())
	if err := svc.SyncGitIndex(ctx); err != nil {
		t.Fatal(err)
	}
	serveTest(t, svc, ServeOptions{})
	c := clientTest(t, svc.Root())
	start := func() lunad.RunInfo {
		t.Helper()
		info, err := c.StartRun(ctx, lunad.RunRequest{Workflow: "iso"})
		if err != nil {
			t.Fatal(err)
		}
		if info.Branch != "luna/iso/"+info.ID || info.BaseBranch != "main" || info.Base == "" {
			t.Fatalf("started: branch %q base %q base_branch %q", info.Branch, info.Base, info.BaseBranch)
		}
		if info, err = c.WaitRun(ctx, info.ID); err != nil || info.Status != lunad.RunCompleted {
			t.Fatalf("run: %s %v", info.Status, err)
		}
		return info
	}
	same := func(what string, got lunad.RunInfo, id string) {
		t.Helper()
		want, err := svc.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Fatalf("%s through the client:\n%s\nthe service's:\n%s", what, a, b)
		}
	}

	first := start()
	create(t, svc, "notes/later.md", "main moved\n")
	_, err := c.AcceptRun(ctx, first.ID)
	var bm *lunad.BranchMovedError
	if !errors.As(err, &bm) || !errors.Is(err, lunad.ErrConflict) || bm.Run != first.ID || bm.RunBranch != first.Branch || bm.Base != first.Base || bm.Branch != "main" {
		t.Fatalf("accept after main moved, through the client: %v (%+v)", err, bm)
	}
	if _, serr := svc.AcceptRun(ctx, first.ID); serr == nil || serr.Error() != err.Error() {
		t.Fatalf("the client's message %q, the service's %v", err, serr)
	}
	dis, err := c.DiscardRun(ctx, first.ID)
	if err != nil || !dis.Discarded {
		t.Fatalf("discard: %v %v", dis.Discarded, err)
	}
	same("discard", dis, first.ID)
	if again, err := c.DiscardRun(ctx, first.ID); err != nil || len(again.Events) != len(dis.Events) {
		t.Fatalf("discard again: %v", err)
	}

	second := start()
	acc, err := c.AcceptRun(ctx, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	same("accept", acc, second.ID)
	if tip := strings.TrimSpace(wstest.GitRun(t, svc.Root(), "rev-parse", "main")); acc.Accepted != tip {
		t.Fatalf("accepted %s, main at %s", acc.Accepted, tip)
	}
	if _, err := c.AcceptRun(ctx, "nope"); !errors.Is(err, lunad.ErrNotFound) {
		t.Fatalf("accept an unknown run: %v", err)
	}

	wstest.Save(t, svc.Root(), "notes/a.md", "not committed\n")
	if _, err := c.StartRun(ctx, lunad.RunRequest{Workflow: "iso"}); !errors.Is(err, lunad.ErrDirty) || !strings.Contains(err.Error(), "notes/a.md") {
		t.Fatalf("a dirty start through the client: %v", err)
	}
}
