package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/workspace"
)

// TestIndexProgress: the first index build is reported as $/progress
// (token lunad-index) to a client that takes work-done progress, whether
// the server builds the index in-process or a daemon builds it and sends
// its figures over the socket: created, begun at 0%, a first report with
// the figure the build had reached (the total told at once), then a
// report each time the percentage of artifacts parsed rises, ending at
// 100% with every artifact counted, and ended; a client without the
// capability is sent none of it.
func TestIndexProgress(t *testing.T) {
	const docs = 60
	more := make([]lunad.CreateSpec, docs)
	for i := range more {
		more[i] = lunad.CreateSpec{Title: fmt.Sprintf("Page %d", i), Path: fmt.Sprintf("docs/p%02d.md", i),
			Content: fmt.Appendf(nil, "# Page %d\n\nCall `parse_config`.\n", i)}
	}
	yes, no := true, false
	for _, through := range []struct {
		name string
		wrap func(*testing.T) func(*workspace.Service) lunad.Workspace
	}{
		{"in-process", func(*testing.T) func(*workspace.Service) lunad.Workspace { return nil }},
		{"daemon", viaDaemon},
	} {
		for _, tc := range []struct {
			name   string
			window *protocol.WindowClientCapabilities
		}{
			{"client takes progress", &protocol.WindowClientCapabilities{WorkDoneProgress: &yes}},
			{"client says no", &protocol.WindowClientCapabilities{WorkDoneProgress: &no}},
			{"client says nothing", nil},
		} {
			t.Run(through.name+"/"+tc.name, func(t *testing.T) {
				var mu sync.Mutex
				var wire []string // the lunad-index progress, in the order sent
				tap := func(body []byte) {
					var msg struct {
						Method string
						Params struct {
							Token string
							Value struct {
								Kind, Title, Message string
								Percentage           *uint32
							}
						}
					}
					if json.Unmarshal(body, &msg) != nil || msg.Method != "$/progress" || msg.Params.Token != "lunad-index" {
						return
					}
					v := msg.Params.Value
					line := v.Kind + ": " + v.Title + v.Message
					if v.Percentage != nil {
						line += fmt.Sprintf(" (%d%%)", *v.Percentage)
					}
					mu.Lock()
					wire = append(wire, line)
					mu.Unlock()
				}
				s := startConfigured(t, startConfig{more: more, caps: protocol.ClientCapabilities{Window: tc.window}, wire: tap, wrap: through.wrap(t)})
				const token = "lunad-index"
				if tc.window == nil || !*tc.window.WorkDoneProgress {
					s.cl.waitFor(t, "first diagnostics", func() bool { _, ok := s.cl.diags[s.docURI]; return ok })
					// Serve returns once the warm-up has ended.
					if err := s.srv.Shutdown(context.Background()); err != nil {
						t.Fatal(err)
					}
					s.cancel()
					err := <-s.done
					s.done <- err
					s.cl.mu.Lock()
					defer s.cl.mu.Unlock()
					if got := s.cl.progress[token]; len(got) != 0 {
						t.Fatalf("progress sent to a client without the capability: %q", got)
					}
					return
				}
				s.cl.waitFor(t, "the end of the index progress", func() bool {
					mu.Lock()
					defer mu.Unlock()
					return len(wire) > 0 && strings.HasPrefix(wire[len(wire)-1], "end")
				})
				s.cl.mu.Lock()
				created := s.cl.progress[token][0]
				s.cl.mu.Unlock()
				mu.Lock()
				got := slices.Clone(wire)
				mu.Unlock()
				checkIndexProgress(t, created, got, docs+2) // and config.py, guide.md
			})
		}
	}
}

// checkIndexProgress fails unless the lunad-index progress was created,
// begun at 0%, reported with done and its percentage rising (the first
// report may repeat 0%: it tells the total) to total at 100%, and ended.
func checkIndexProgress(t *testing.T, created string, got []string, total int) {
	t.Helper()
	if created != "create" || len(got) < 3 || got[0] != "begin: lunad: indexing references (0%)" || got[len(got)-1] != "end: " {
		t.Fatalf("index progress:\n%s", strings.Join(got, "\n"))
	}
	report := regexp.MustCompile(`^report: (\d+)/(\d+) artifacts \((\d+)%\)$`)
	lastPct, lastDone := -1, -1
	for _, line := range got[1 : len(got)-1] {
		m := report.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("report %q is not \"report: DONE/TOTAL artifacts (P%%)\"", line)
		}
		done, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		pct, _ := strconv.Atoi(m[3])
		if n != total || done <= lastDone || pct <= lastPct || pct != 100*done/total {
			t.Fatalf("report %q after %d/%d (%d%%): want a rising count of %d and its percentage", line, lastDone, total, lastPct, total)
		}
		lastDone, lastPct = done, pct
	}
	if lastDone != total || lastPct != 100 {
		t.Fatalf("last report at %d/%d (%d%%), want %d/%d (100%%)", lastDone, total, lastPct, total, total)
	}
}

// viaDaemon serves the session's workspace from a daemon on its real
// socket and gives the language server a daemon client, as `lunad lsp`
// does when a daemon serves the workspace; the daemon stops and the
// workspace closes when the test ends.
func viaDaemon(t *testing.T) func(*workspace.Service) lunad.Workspace {
	return func(svc *workspace.Service) lunad.Workspace {
		t.Helper()
		ln, err := rpc.Listen(svc)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() {
			served <- rpc.Serve(ctx, svc, ln, rpc.ServeOptions{Logger: slog.New(slog.DiscardHandler)})
		}()
		t.Cleanup(func() {
			cancel()
			if err := <-served; err != nil {
				t.Errorf("daemon: %v", err)
			}
			svc.Close()
		})
		ws, err := rpc.Connect(ctx, svc.Root(), rpc.ConnectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
}
