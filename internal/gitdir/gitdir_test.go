package gitdir_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/gitdir"
)

// layout writes files (path → content; a path ending in / is a directory)
// under a fresh directory and returns it.
func layout(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if p[len(p)-1] == '/' {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFind(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		from  string // the directory asked about, under the layout
		want  lunad.Checkout
		err   string // a substring of the error; "" for none
	}{
		{name: "main checkout", files: map[string]string{"repo/.git/HEAD": "ref: refs/heads/main\n", "repo/src/": ""},
			from: "repo/src", want: lunad.Checkout{Root: "repo", GitDir: "repo/.git", CommonDir: "repo/.git"}},
		{name: "linked worktree", files: map[string]string{"main/.git/worktrees/wt/HEAD": "ref: refs/heads/b\n",
			"main/.git/worktrees/wt/commondir": "../..\n", "wt/.git": "gitdir: ../main/.git/worktrees/wt\n", "wt/a/": ""},
			from: "wt/a", want: lunad.Checkout{Root: "wt", GitDir: "main/.git/worktrees/wt", CommonDir: "main/.git"}},
		{name: "submodule", files: map[string]string{"super/.git/modules/sub/HEAD": "ref: refs/heads/main\n",
			"super/sub/.git": "gitdir: ../.git/modules/sub\n"},
			from: "super/sub", want: lunad.Checkout{Root: "super/sub", GitDir: "super/.git/modules/sub", CommonDir: "super/.git/modules/sub"}},
		{name: "no checkout", files: map[string]string{"plain/": ""}, from: "plain", err: "no git repository at or above"},
		{name: ".git file without gitdir", files: map[string]string{"bad/.git": "hello\n"}, from: "bad", err: `without a "gitdir:" line`},
		{name: "pruned worktree", files: map[string]string{"gone/.git": "gitdir: ../main/.git/worktrees/gone\n"}, from: "gone",
			err: "holds no HEAD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := layout(t, tt.files)
			got, err := gitdir.Find(filepath.Join(dir, tt.from))
			if tt.err != "" {
				if !errors.Is(err, lunad.ErrNotWorkspace) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Find = %+v, %v; want ErrNotWorkspace saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := lunad.Checkout{Root: filepath.Join(dir, tt.want.Root), GitDir: filepath.Join(dir, tt.want.GitDir), CommonDir: filepath.Join(dir, tt.want.CommonDir)}
			if got != want {
				t.Errorf("Find = %+v, want %+v", got, want)
			}
			if got.Linked() != (want.GitDir != want.CommonDir) {
				t.Errorf("Linked() = %v for %+v", got.Linked(), got)
			}
			root, err := gitdir.Root(filepath.Join(dir, tt.from))
			if err != nil || root != want.Root {
				t.Errorf("Root = %q, %v; want %q", root, err, want.Root)
			}
		})
	}
}
