package policy

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// HiddenUnder are the paths under root (absolute) that Denied's patterns
// match, for the sandbox to hide from commands (sandbox.Spec.Hidden):
// each file or directory whose workspace-relative path a pattern
// matches, the topmost only (a matched directory hides what it holds).
// .git is not walked: what is committed there stays readable through
// git. An error (root cannot be read) means the paths are unknown, and
// the command must not run.
func (s SandboxSettings) HiddenUnder(root string) ([]string, error) {
	if len(s.Denied) == 0 {
		return nil, nil
	}
	var hidden []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == ".git" {
			return fs.SkipDir
		}
		if !matchAny(s.Denied, rel) {
			return nil
		}
		hidden = append(hidden, path)
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("finding the paths the policy denies under %s, which commands must not see: %w", root, err)
	}
	return hidden, nil
}
