package workflow

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lunad/lunad"
)

// Dir is where a workspace keeps its workflows, relative to its root.
const Dir = ".luna/workflows"

// Load reads every workflow of the workspace at root: the files
// .luna/workflows/*.toml (none when the directory does not exist), sorted
// by name. It returns the valid workflows even when some files are
// invalid, with a *lunad.CheckError holding the problems of all of them; an
// error reading the directory or a file is returned as it is.
func Load(root string) ([]*Workflow, error) {
	dir := filepath.Join(root, filepath.FromSlash(Dir))
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var (
		out      []*Workflow
		problems []lunad.Problem
	)
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
			continue
		}
		w, err := LoadFile(filepath.Join(dir, e.Name()))
		var ce *lunad.CheckError
		switch {
		case errors.As(err, &ce):
			problems = append(problems, ce.Problems...)
		case err != nil:
			return nil, err
		default:
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b *Workflow) int { return strings.Compare(a.Name, b.Name) })
	if len(problems) > 0 {
		return out, lunad.NewCheckError(problems)
	}
	return out, nil
}

// LoadFile reads and parses one workflow file, whose name (less .toml) must
// be the workflow's name.
func LoadFile(path string) (*Workflow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, data, strings.TrimSuffix(filepath.Base(path), ".toml"))
}
