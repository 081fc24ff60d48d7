package watch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// A file deleted by hand, or by a git rm committed by hand, is recorded as
// the artifact's removal, the person's; references to it are broken by
// name, and undo brings it back.
func TestWatchRecordsDeletions(t *testing.T) {
	for _, how := range []string{"deleted", "git rm"} {
		t.Run(how, func(t *testing.T) {
			ctx := context.Background()
			s := newService(t)
			cfg := create(t, s, "config.py", src)
			create(t, s, "guide.md", "# Guide\n\nSee [config](config.py).\n")
			w := startWatch(t, s, Options{RecordSaves: true})
			if how == "deleted" {
				if err := os.Remove(filepath.Join(s.Root(), "config.py")); err != nil {
					t.Fatal(err)
				}
			} else {
				gitRun(t, s.Root(), "rm", "-q", "config.py")
				gitRun(t, s.Root(), "commit", "-q", "-m", "drop config")
			}
			e := w.await("removed config.py", func(e lunad.Event) bool { return e.Kind == "removed" && slices.Contains(e.IDs, cfg) })
			if e.Commit == "" {
				t.Fatalf("event without commit: %+v", e)
			}
			if got := gitRun(t, s.Root(), "log", "-1", "--format=%an|%s|%(trailers:key=Luna-Op,valueonly,separator=)"); got != "Ada|remove config.py (deleted outside lunad)|remove\n" {
				t.Fatalf("git log -1: %q", got)
			}
			if !strings.Contains(w.log.String(), "recorded a file deleted by hand as removed") {
				t.Fatalf("log:\n%s", w.log.String())
			}
			a, err := s.Artifact(ctx, cfg)
			if err != nil || a.Status != lunad.StatusRemoved {
				t.Fatalf("artifact: %+v %v", a, err)
			}
			if got := staleSet(t, s); !slices.Equal(got, []string{"guide.md link -> config.py# broken"}) {
				t.Fatalf("stale: %v", got)
			}
			if _, err := s.Undo(ctx, lunad.RefRequest{Ref: cfg}); err != nil {
				t.Fatal(err)
			}
			if got := read(t, s, "config.py"); got != src {
				t.Fatalf("after undo: %q", got)
			}
			if got := staleSet(t, s); len(got) != 0 {
				t.Fatalf("stale after undo: %v", got)
			}
		})
	}
}
