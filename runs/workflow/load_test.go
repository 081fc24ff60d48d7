package workflow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

func TestLoad(t *testing.T) {
	write := func(t *testing.T, root string, files map[string]string) {
		t.Helper()
		dir := filepath.Join(root, ".luna", "workflows")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name     string
		files    map[string]string // nil: no .luna/workflows at all
		want     []string          // names of the workflows loaded
		problems []string          // the error's lines, the directory cut off
	}{
		{name: "no directory", files: nil},
		{name: "empty directory", files: map[string]string{}},
		{name: "all valid, sorted by name", files: map[string]string{
			"loop.toml": validWorkflows["loop"], "linear.toml": validWorkflows["linear"], "README.md": "not a workflow"},
			want: []string{"linear", "loop"}},
		{name: "name not the file's", files: map[string]string{
			"linear.toml": validWorkflows["linear"], "other.toml": validWorkflows["loop"]},
			want:     []string{"linear"},
			problems: []string{`other.toml:1:1: name "loop" is not the file's name: rename the workflow to "other" or the file to loop.toml`}},
		{name: "invalid files do not hide the valid", files: map[string]string{
			"linear.toml": validWorkflows["linear"], "bad.toml": "name = \"bad\"\nstart = \"a\"\n[stages.a]\n", "worse.toml": "x ="},
			want: []string{"linear"},
			problems: []string{
				`bad.toml:3:1: stage "a" has neither command nor agent: give exactly one`,
				`bad.toml:3:1: stage "a" has no next: add [[stages.a.next]] with to = "end" to end the run there`,
				`worse.toml:1:3: toml: unexpected EOF; expected value`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if c.files != nil {
				write(t, root, c.files)
			}
			ws, err := Load(root)
			var names []string
			for _, w := range ws {
				names = append(names, w.Name)
				if want := filepath.Join(root, ".luna", "workflows", w.Name+".toml"); w.File != want {
					t.Errorf("File %q, want %q", w.File, want)
				}
			}
			if strings.Join(names, " ") != strings.Join(c.want, " ") {
				t.Errorf("loaded %v, want %v", names, c.want)
			}
			if c.problems == nil {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("Load error %v does not wrap ErrInvalid", err)
			}
			got := strings.ReplaceAll(err.Error(), filepath.Join(root, ".luna", "workflows")+string(filepath.Separator), "")
			if want := strings.Join(c.problems, "\n"); got != want {
				t.Errorf("Load error:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	t.Run("missing file", func(t *testing.T) {
		_, err := LoadFile(filepath.Join(t.TempDir(), "nope.toml"))
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("got %v, want ErrNotExist", err)
		}
	})
	t.Run("valid", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "linear.toml")
		os.WriteFile(path, []byte(validWorkflows["linear"]), 0o644)
		w, err := LoadFile(path)
		if err != nil || w.Name != "linear" || w.File != path {
			t.Fatalf("LoadFile = %+v, %v", w, err)
		}
	})
}
