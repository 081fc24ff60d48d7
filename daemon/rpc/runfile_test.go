package rpc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/wstest"
)

// filesAgent stores two stage files beside its stage's event.
const filesAgent = `import json, sys
json.load(sys.stdin)
print(json.dumps({"status": "ok", "output": {"steps": 1}, "files": {"report.md": "# Report\n", "trace/0001.json": "{\"step\": 1}\n"}}))
`

// TestRunFileOverTheSocket: a stage file of a run's event read through a
// client of the daemon is the Service's; a missing file, an event the run
// does not have, a name that is no stage file's and an unknown run are
// refused with their sentinels.
func TestRunFileOverTheSocket(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	agent := filepath.Join(t.TempDir(), "agent.py")
	if err := os.WriteFile(agent, []byte(filesAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	wf := "name = \"files\"\nversion = \"1\"\nstart = \"write\"\n[stages.write]\ncommand = [\"" + wstest.Python(t) + "\", \"" + agent + "\"]\n[[stages.write.next]]\nto = \"end\"\n"
	if err := os.MkdirAll(filepath.Join(svc.Root(), ".luna", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(svc.Root(), ".luna", "workflows", "files.toml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	serveTest(t, svc, ServeOptions{})
	c := clientTest(t, svc.Root())
	info := wstest.RunToEnd(t, c, lunad.RunRequest{Workflow: "files"})
	seq := 0
	for _, e := range info.Events {
		if e.Type == lunad.EventStageSucceeded {
			seq = e.Seq
		}
	}
	for _, name := range []string{"report.md", "trace/0001.json"} {
		got, err := c.RunFile(ctx, info.ID, seq, name)
		want, werr := svc.RunFile(ctx, info.ID, seq, name)
		if err != nil || werr != nil || string(got) != string(want) || len(got) == 0 {
			t.Errorf("%s: through the client %q, %v; the service's %q, %v", name, got, err, want, werr)
		}
	}
	for _, tc := range []struct {
		name, id, file string
		seq            int
		want           error
	}{
		{"no such file", info.ID, "nope.md", seq, lunad.ErrNotFound},
		{"no such event", info.ID, "report.md", 999, lunad.ErrNotFound},
		{"not a stage file's name", info.ID, "../response.json", seq, lunad.ErrInvalid},
		{"absolute", info.ID, "/etc/passwd", seq, lunad.ErrInvalid},
		{"unknown run", "20260101-000000-000000", "report.md", 1, lunad.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := c.RunFile(ctx, tc.id, tc.seq, tc.file)
			if !errors.Is(err, tc.want) || b != nil {
				t.Fatalf("RunFile(%s, %d, %q) = %q, %v; want %v", tc.id, tc.seq, tc.file, b, err, tc.want)
			}
			if tc.name == "unknown run" {
				var nf *lunad.RunNotFoundError
				if !errors.As(err, &nf) || !strings.Contains(err.Error(), tc.id) {
					t.Fatalf("want a RunNotFoundError naming the run: %v", err)
				}
			}
		})
	}
}
