package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/gitdir"
)

// AdoptReport says what Init did.
type AdoptReport struct {
	Root    string           `json:"root"`
	Created bool             `json:"created"` // a new git repository was made
	Adopted []lunad.Artifact `json:"adopted"` // tracked files that became artifacts now
	Skipped []Skipped        `json:"skipped,omitempty"`
}

// Skipped is a tracked file that did not become an artifact, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Init makes a workspace at dir, or adopts the git repository at or above
// it: every tracked text file not yet an artifact becomes one, in one
// "adopt" commit on top of the existing history (nothing is rewritten).
// Running it again adopts files tracked since. Binary, non-UTF-8, oversized
// files, symlinks and submodules are skipped with a reason.
func Init(dir string, opts Options) (*Store, AdoptReport, error) {
	var rep AdoptReport
	if _, err := gitdir.Root(dir); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, rep, fmt.Errorf("init: %w", err)
		}
		if err := gitInit(filepath.Join(dir, ".git")); err != nil {
			return nil, rep, fmt.Errorf("init: git init %s: %w", dir, err)
		}
		rep.Created = true
	}
	s, err := openRepo(dir, opts)
	if err != nil {
		return nil, rep, err
	}
	rep.Root = s.root
	_, err = s.submit(context.Background(), func(t *txn) (lunad.Result, error) {
		return lunad.Result{}, t.adopt(&rep)
	})
	if err == nil {
		s.mu.Lock()
		err = s.recover()
		s.mu.Unlock()
	}
	if err != nil {
		s.release()
		return nil, rep, err
	}
	return s, rep, nil
}

func (t *txn) adopt(rep *AdoptReport) error {
	s := t.s
	known := map[string]bool{}
	ids, err := s.listIDs(t.root)
	if err != nil {
		return err
	}
	for id := range ids {
		m, err := t.meta(id)
		if err != nil {
			return err
		}
		known[m.Path] = true
	}
	// The files to examine are listed first, so that progress has a total.
	type file struct {
		p string
		n node
	}
	var todo []file
	err = s.walkFiles(t.root, "", func(p string, n node) error {
		if !strings.HasPrefix(p, lunaDir+"/") && !known[p] {
			todo = append(todo, file{p, n})
		}
		return nil
	})
	if err != nil {
		return err
	}
	changes := map[string]fileChange{}
	for i, f := range todo {
		if err := t.adoptFile(f.p, f.n, ids, changes, rep); err != nil {
			return err
		}
		if s.opts.AdoptProgress != nil {
			s.opts.AdoptProgress(i+1, len(todo))
		}
	}
	if _, err := s.lookup(t.root, workspaceFile); err == nil && len(rep.Adopted) == 0 {
		return nil // already a workspace, nothing new
	}
	h, err := s.objs.write(plumbing.BlobObject, []byte(workspaceJSON))
	if err != nil {
		return err
	}
	changes[workspaceFile] = fileChange{hash: h, mode: modeFile}
	sig, agent := s.author("")
	rec := record{Op: lunad.OpAdopt, Agent: agent, Subject: fmt.Sprintf("adopt %d files as artifacts", len(rep.Adopted))}
	if _, err := t.commit(changes, rec, "", sig); err != nil {
		return err
	}
	for i := range rep.Adopted {
		rep.Adopted[i].Version = 1
		rep.Adopted[i].Commit = t.tip.String()
	}
	return nil
}

// adoptFile makes the tracked file p an artifact in changes, or tells in
// rep why it is skipped.
func (t *txn) adoptFile(p string, n node, ids map[string]bool, changes map[string]fileChange, rep *AdoptReport) error {
	s := t.s
	skip := func(why string) error {
		rep.Skipped = append(rep.Skipped, Skipped{Path: p, Reason: why})
		return nil
	}
	if n.mode != modeFile && n.mode != modeExec {
		return skip("not a regular file (symlink or submodule)")
	}
	if err := checkPath(p); err != nil {
		return skip(err.Error())
	}
	b, err := s.readBlob(n.hash)
	if err != nil {
		return err
	}
	switch {
	case len(b) > s.opts.MaxContent:
		return skip(fmt.Sprintf("larger than %d bytes", s.opts.MaxContent))
	case strings.IndexByte(string(b), 0) >= 0:
		return skip("binary")
	case !utf8.Valid(b):
		return skip("not valid UTF-8")
	}
	id := s.opts.NewID()
	for ids[id] || !validID(id) {
		if !validID(id) {
			return fmt.Errorf("%w: generated ID %q is not lowercase base32", lunad.ErrInvalid, id)
		}
		id = s.opts.NewID()
	}
	ids[id] = true
	m := meta{ID: id, Path: p, Type: TypeForPath(p), Title: titleOf(p, b), Status: lunad.StatusActive}
	if err := t.putMeta(changes, m); err != nil {
		return err
	}
	rep.Adopted = append(rep.Adopted, m.artifact())
	return nil
}

// gitInit lays out an empty repository as `git init` does, on branch main.
func gitInit(gitDir string) error {
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "info", "hooks"} {
		if err := os.MkdirAll(filepath.Join(gitDir, d), 0o755); err != nil {
			return err
		}
	}
	config := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
	if err := os.WriteFile(filepath.Join(gitDir, "config"), []byte(config), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(gitDir, "description"), []byte("Unnamed repository; edit this file 'description' to name the repository.\n"), 0o644); err != nil {
		return err
	}
	return writeHead(gitDir, "refs/heads/main")
}

// walkFiles calls fn for every non-tree entry below the tree root.
func (s *Store) walkFiles(root plumbing.Hash, prefix string, fn func(string, node) error) error {
	if root.IsZero() {
		return nil
	}
	entries, err := s.readTree(root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := prefix + e.Name
		if e.Mode == modeDir {
			if err := s.walkFiles(e.Hash, p+"/", fn); err != nil {
				return err
			}
			continue
		}
		if err := fn(p, node{hash: e.Hash, mode: e.Mode}); err != nil {
			return err
		}
	}
	return nil
}

// titleOf is a Markdown file's first heading, else its file name.
func titleOf(p string, b []byte) string {
	if TypeForPath(p) == "text/markdown" {
		for _, line := range strings.SplitN(string(b), "\n", 50) {
			if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok && checkTrailerValue("", strings.TrimSpace(t)) == nil {
				return strings.TrimSpace(t)
			}
		}
	}
	return filepath.Base(p)
}
