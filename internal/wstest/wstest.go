package wstest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/workspace"
)

// Src is a small Python file with a definition and a call of it.
const Src = "def parse_config(path):\n    with open(path) as f:\n        return toml.load(f)\n\n\ndef main():\n    print(parse_config('a.toml'))\n"

// NewService serves a new workspace in a temporary directory, with a clock
// that ticks a second per commit, IDs d0000001, d0000002… and Ada as the
// person; it is closed when the test ends.
func NewService(t *testing.T) *workspace.Service {
	t.Helper()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	s, _, err := workspace.Init(t.TempDir(), gitstore.Options{
		Clock: func() time.Time { clock = clock.Add(time.Second); return clock },
		NewID: func() string { n++; return fmt.Sprintf("d%07d", n) },
		Human: gitstore.Signature{Name: "Ada", Email: "ada@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Create makes an artifact at path and returns its ID.
func Create(t *testing.T, s lunad.Writer, path, content string) string {
	t.Helper()
	r, err := s.Create(context.Background(), lunad.CreateSpec{Title: path, Path: path, Content: []byte(content)})
	if err != nil {
		t.Fatal(err)
	}
	return r.Artifact.ID
}

// Read returns an artifact's current content.
func Read(t *testing.T, s lunad.Reader, ref string) string {
	t.Helper()
	b, _, err := s.Read(context.Background(), ref, "")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// MustEdit replaces search with replace in an artifact (one block).
func MustEdit(t *testing.T, s lunad.Writer, id, search, replace string) {
	t.Helper()
	req := lunad.EditRequest{ID: id, BlocksText: "<<<<<<< SEARCH\n" + search + "=======\n" + replace + ">>>>>>> REPLACE\n"}
	if _, err := s.Edit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
}

// StaleSet summarises Stale as "from -> to#symbol state" lines.
func StaleSet(t *testing.T, s lunad.Referencer) []string {
	t.Helper()
	refs, err := s.Stale(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range refs {
		to := ""
		if r.To != nil {
			to = r.To.Path + "#" + r.To.Symbol
		}
		out = append(out, r.From.Path+" "+r.Kind+" -> "+to+" "+string(r.State))
	}
	return out
}

// GitRun runs the git CLI in dir, as a person would, and returns its stdout.
func GitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := GitCmd(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// GitCmd runs the git CLI in dir, as a person would.
func GitCmd(dir string, args ...string) (string, error) { return Run(dir, "git", args...) }

// Run runs a command in dir with the environment of a person's git.
func Run(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Grace", "GIT_AUTHOR_EMAIL=grace@example.com", "GIT_COMMITTER_NAME=Grace", "GIT_COMMITTER_EMAIL=grace@example.com")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// Save writes a file of the workspace's working tree, as an editor would.
func Save(t *testing.T, root, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
