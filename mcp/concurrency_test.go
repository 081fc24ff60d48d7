package mcp

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConcurrentClients: four clients edit at once — each its own
// artifact, and all of them one shared artifact with base_version. Every
// edit is one commit by its client or a conflict that names the current
// version; none is lost, and git fsck --strict passes.
func TestConcurrentClients(t *testing.T) {
	svc, dir := newService(t, nil)
	ctx := context.Background()
	srv, err := New(ctx, svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const clients, edits = 4, 8
	sessions := make([]*sdk.ClientSession, clients)
	for i := range sessions {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		if sessions[i], err = sdk.NewClient(&sdk.Implementation{Name: fmt.Sprintf("agent-%d", i), Version: "1"}, nil).Connect(ctx, ct, legacy); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sessions[i].Close() })
	}
	var shared writeOut
	call(t, sessions[0], "create_artifact", map[string]any{"title": "shared", "type": "text/plain", "path": "shared.txt", "content": "0\n"}, &shared)

	var wg sync.WaitGroup
	landed := make([]int, clients) // shared-artifact edits that landed, per client
	errs := make(chan string, clients*edits*2)
	for i, cs := range sessions {
		wg.Go(func() {
			var own writeOut
			if res := call(t, cs, "create_artifact", map[string]any{"title": fmt.Sprint("own ", i), "type": "text/plain", "path": fmt.Sprintf("own-%d.txt", i), "content": "0\n"}, &own); res.IsError {
				errs <- text(res)
				return
			}
			for n := range edits {
				if res := call(t, cs, "edit_artifact", map[string]any{"id": own.ID, "changes": []map[string]string{{"search": fmt.Sprintf("%d\n", n), "replace": fmt.Sprintf("%d\n", n+1)}}}, nil); res.IsError {
					errs <- text(res)
				}
				// The shared artifact: read, then edit against what was read.
				var r readOut
				call(t, cs, "read_artifact", map[string]any{"id": shared.ID}, &r)
				res := call(t, cs, "edit_artifact", map[string]any{"id": shared.ID, "base_version": r.Version,
					"changes": []map[string]string{{"search": r.Content, "replace": r.Content + fmt.Sprintf("agent-%d\n", i)}}}, nil)
				switch {
				case !res.IsError:
					landed[i]++
				case !strings.Contains(text(res), "conflict, nothing was written") && !strings.Contains(text(res), "is at version"):
					errs <- text(res)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	total := 0
	for _, n := range landed {
		total += n
	}
	var r readOut
	call(t, sessions[0], "read_artifact", map[string]any{"id": shared.ID}, &r)
	if lines := strings.Count(r.Content, "\n"); lines != 1+total || r.Version != 1+total {
		t.Errorf("shared artifact: %d lines at version %d, want %d landed edits (each one line, one version)", lines, r.Version, total)
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("fsck", "--strict")
	for i := range clients {
		author := fmt.Sprintf("agent-%d", i)
		want := 1 + edits + landed[i] // create, own edits, shared edits that landed
		if i == 0 {
			want++ // and the shared artifact's creation
		}
		if got := strings.Count(git("log", "--format=%an", "--author=^"+author+" "), "\n"); got != want {
			t.Errorf("%s authored %d commits, want %d", author, got, want)
		}
	}
}
