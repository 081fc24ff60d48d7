package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// existingRepo makes a repository with the git CLI: history, text files,
// a binary file, a symlink and invalid UTF-8.
func existingRepo(t *testing.T) string {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "trunk")
	writeFile(t, dir, "README.md", "# My Project\n\nText.\n")
	writeFile(t, dir, "src/config.py", "def parse_config(p):\n    return {}\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	writeFile(t, dir, "src/main.go", "package main\n\nfunc main() {}\n")
	writeFile(t, dir, "logo.png", "\x89PNG\r\n\x1a\n\x00\x00")
	writeFile(t, dir, "latin1.txt", "caf\xe9\n")
	os.Symlink("README.md", filepath.Join(dir, "link.md"))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "second")
	return dir
}

func TestAdoptExistingRepo(t *testing.T) {
	ctx := context.Background()
	dir := existingRepo(t)
	before := strings.TrimSpace(git(t, dir, "rev-list", "HEAD"))
	s, rep, err := Init(dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var paths []string
	for _, a := range rep.Adopted {
		paths = append(paths, a.Path+" "+a.Type+" "+a.Title)
	}
	want := []string{"README.md text/markdown My Project", "src/config.py code/python config.py", "src/main.go code/go main.go"}
	if strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Fatalf("adopted %q", paths)
	}
	var skipped []string
	for _, sk := range rep.Skipped {
		skipped = append(skipped, sk.Path+": "+sk.Reason)
	}
	sort.Strings(skipped)
	if len(skipped) != 3 || !strings.HasPrefix(skipped[0], "latin1.txt: not valid UTF-8") ||
		!strings.HasPrefix(skipped[1], "link.md: not a regular file") || skipped[2] != "logo.png: binary" {
		t.Fatalf("skipped %q", skipped)
	}
	// History is kept: the old commits are still ancestors, unchanged.
	after := strings.TrimSpace(git(t, dir, "rev-list", "HEAD"))
	if !strings.HasSuffix(after, before) || strings.Count(after, "\n") != strings.Count(before, "\n")+1 {
		t.Fatalf("history rewritten:\nbefore %s\nafter %s", before, after)
	}
	if br := strings.TrimSpace(git(t, dir, "branch", "--show-current")); br != "trunk" {
		t.Fatalf("branch %q", br)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 3 || list[0].Version != 1 {
		t.Fatalf("list %+v %v", list, err)
	}
	// Adopting again adopts only what is new.
	writeFile(t, dir, "notes.md", "# Notes\n")
	git(t, dir, "add", "notes.md")
	git(t, dir, "commit", "-q", "-m", "notes by hand")
	s.Close()
	s2, rep2, err := Init(dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if len(rep2.Adopted) != 1 || rep2.Adopted[0].Path != "notes.md" || rep2.Adopted[0].ID == list[0].ID {
		t.Fatalf("re-adopt %+v", rep2.Adopted)
	}
	// Edits after a hand-made git commit see its content.
	r, err := s2.Edit(ctx, "src/config.py", lunad.Change{Agent: "coder"}, replace("{}", "{'a': 1}"))
	if err != nil || r.Version.Number != 2 {
		t.Fatalf("edit adopted: %+v %v", r, err)
	}
	checkRepo(t, s2)
}

func TestOpenNotWorkspace(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, testOptions()); err == nil || !strings.Contains(err.Error(), "lunad init") {
		t.Fatalf("open plain dir: %v", err)
	}
	git(t, dir, "init", "-q")
	writeFile(t, dir, "a.txt", "a\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "x")
	if _, err := Open(dir, testOptions()); err == nil || !strings.Contains(err.Error(), "not a lunad workspace") {
		t.Fatalf("open plain repo: %v", err)
	}
}
