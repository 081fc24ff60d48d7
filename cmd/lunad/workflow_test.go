package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestAdopt adopts a repository made with the git CLI: history is kept,
// text files become artifacts, binary files and symlinks are skipped.
func TestAdopt(t *testing.T) {
	w := newDir(t)
	w.git("init", "-q", "-b", "trunk")
	write := func(name, content string) {
		p := filepath.Join(w.dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Project\n\nHello.\n")
	w.git("add", ".")
	w.git("commit", "-q", "-m", "first")
	first := w.head()
	write("cmd/main.go", "package main\n\nfunc main() {}\n")
	write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00")
	if err := os.Symlink("README.md", filepath.Join(w.dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	w.git("add", ".")
	w.git("commit", "-q", "-m", "second")
	write("README.md", "# Project\n\nHello, world.\n")
	w.git("commit", "-q", "-am", "third")
	third := w.head()

	var rep initJSON
	w.jsonOut(&rep, "init")
	if rep.Created || rep.Root != w.dir {
		t.Fatalf("init: %+v", rep)
	}
	var adopted []string
	for _, a := range rep.Adopted {
		adopted = append(adopted, a.Path+" "+a.Type)
	}
	slices.Sort(adopted)
	if strings.Join(adopted, ",") != "README.md text/markdown,cmd/main.go code/go" {
		t.Fatalf("adopted %v", adopted)
	}
	skipped := map[string]string{}
	for _, s := range rep.Skipped {
		skipped[s.Path] = s.Reason
	}
	if len(skipped) != 2 || !strings.Contains(skipped["logo.png"], "binary") || !strings.Contains(skipped["link.md"], "symlink") {
		t.Fatalf("skipped %v", rep.Skipped)
	}
	for _, old := range []string{first, third} {
		w.git("merge-base", "--is-ancestor", old, "HEAD")
	}
	if got := strings.TrimSpace(w.git("rev-parse", "HEAD^")); got != third {
		t.Fatalf("adopt commit's parent %s, want %s", got, third)
	}
	if got := strings.TrimSpace(w.git("branch", "--show-current")); got != "trunk" {
		t.Fatalf("branch %s", got)
	}
	wantTrailers(t, w.trailers(), map[string]string{"Luna-Op": "adopt", "Luna-Agent": "Ada Lovelace"})
	w.clean()

	var arts []lunad.Artifact
	w.jsonOut(&arts, "list")
	if len(arts) != 2 || arts[0].Path != "README.md" || arts[0].Title != "Project" || arts[1].Path != "cmd/main.go" || arts[0].Version != 1 {
		t.Fatalf("list: %+v", arts)
	}
	out := w.ok("edit", "cmd/main.go", "--search-file", w.file("s", "func main() {}"), "--replace-file", w.file("r", "func main() { run() }"))
	if !strings.HasPrefix(out, arts[1].ID+" v2 ") {
		t.Fatalf("edit adopted: %q", out)
	}
	if got := w.git("show", "HEAD:cmd/main.go"); got != "package main\n\nfunc main() { run() }\n" {
		t.Fatalf("git show: %q", got)
	}
	// Binary file and symlink are untouched.
	if got := w.git("show", "HEAD:logo.png"); got != "\x89PNG\r\n\x1a\n\x00\x00\x00" {
		t.Fatalf("logo.png: %q", got)
	}
	if target, err := os.Readlink(filepath.Join(w.dir, "link.md")); err != nil || target != "README.md" {
		t.Fatalf("link.md: %q %v", target, err)
	}
	w.clean()

	w.subtest(t, "init again adopts nothing new", func(t *testing.T) {
		head := w.head()
		if out := w.ok("init"); !strings.Contains(out, "adopted 0 files") {
			t.Fatalf("init again:\n%s", out)
		}
		if w.head() != head {
			t.Fatal("second init committed")
		}
	})
	w.subtest(t, "init adopts files tracked since", func(t *testing.T) {
		write("docs/new.txt", "new\n")
		w.git("add", "docs/new.txt")
		w.git("commit", "-q", "-m", "new file")
		out := w.ok("init")
		if !strings.Contains(out, "adopted 1 file\n") || !strings.Contains(out, "docs/new.txt") {
			t.Fatalf("init:\n%s", out)
		}
		w.clean()
	})
}

// TestUndoRedoRestore walks the undo stack and checks each state with
// lunad show, git show and the working tree.
func TestUndoRedoRestore(t *testing.T) {
	w, id := newWSWith(t, "doc.md", "a\n")
	w.ok("edit", id, "--content-file", w.file("b", "b\n"))
	w.ok("edit", id, "--content-file", w.file("c", "c\n"))
	state := func(version int, content string) {
		t.Helper()
		var arts []lunad.Artifact
		w.jsonOut(&arts, "list")
		if arts[0].Version != version {
			t.Fatalf("version %d, want %d", arts[0].Version, version)
		}
		w.wantContent(id, "doc.md", content)
		w.clean()
	}
	state(3, "c\n")
	for _, step := range []struct {
		args    []string
		version int
		content string
		target  string
	}{
		{[]string{"undo", id}, 4, "b\n", "2"},
		{[]string{"undo", id, "--agent", "fixer"}, 5, "a\n", "1"},
		{[]string{"redo", id}, 6, "b\n", "2"},
		{[]string{"redo", id}, 7, "c\n", "3"},
		{[]string{"restore", id + "@1", "--message", "back to the start"}, 8, "a\n", "1"},
		{[]string{"restore", "doc.md", "3"}, 9, "c\n", "3"},
	} {
		w.subtest(t, strings.Join(step.args[:1], " "), func(t *testing.T) {
			out := w.ok(step.args...)
			if !strings.HasPrefix(out, id+" v") || !strings.Contains(out, w.head()[:8]) {
				t.Fatalf("%v: %q", step.args, out)
			}
			state(step.version, step.content)
			wantTrailers(t, w.trailers(), map[string]string{"Luna-Op": map[string]string{"undo": "undo", "redo": "redo", "restore": "restore"}[step.args[0]],
				"Luna-Target-Version": step.target})
		})
	}
	if _, msg := w.lastCommit(); strings.Contains(msg, "back to the start") {
		t.Fatal("message of the wrong commit")
	}
	w.fail(1, "nothing to redo", "redo", id)
}

// TestBranches: branch, switch and branches move HEAD and the working tree.
func TestBranches(t *testing.T) {
	w, id := newWSWith(t, "plan.md", "main plan\n")
	mainHead := w.head()
	out := w.ok("branch", "feature/x")
	if out != "branch feature/x at "+mainHead[:8]+"\n" {
		t.Fatalf("branch: %q", out)
	}
	if out := w.ok("switch", "feature/x"); out != "switched to feature/x at "+mainHead[:8]+"\n" {
		t.Fatalf("switch: %q", out)
	}
	if got := strings.TrimSpace(w.git("branch", "--show-current")); got != "feature/x" {
		t.Fatalf("git branch --show-current: %s", got)
	}
	w.ok("edit", id, "--content-file", w.file("f", "feature plan\n"))
	other := w.create("feature-only.md", "only here\n")
	featureHead := w.head()
	w.clean()

	var bs []lunad.Branch
	w.jsonOut(&bs, "branches")
	if len(bs) != 2 || bs[0] != (lunad.Branch{Name: "feature/x", Commit: featureHead, Current: true}) || bs[1] != (lunad.Branch{Name: "main", Commit: mainHead}) {
		t.Fatalf("branches: %+v", bs)
	}

	w.ok("switch", "main")
	if got := strings.TrimSpace(w.git("branch", "--show-current")); got != "main" {
		t.Fatalf("git branch --show-current: %s", got)
	}
	if got := w.workFile("plan.md"); got != "main plan\n" {
		t.Fatalf("plan.md on main: %q", got)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "feature-only.md")); !os.IsNotExist(err) {
		t.Fatalf("feature-only.md on main: %v", err)
	}
	w.fail(5, "no artifact", "show", other)
	w.clean()

	var b lunad.Branch
	w.jsonOut(&b, "branch", "from-feature", "--from", "feature/x")
	if b.Name != "from-feature" || b.Commit != featureHead || b.Current {
		t.Fatalf("branch --from: %+v", b)
	}
	w.ok("branch", "from-commit", "--from", mainHead[:10])
	if got := strings.TrimSpace(w.git("rev-parse", "from-commit")); got != mainHead {
		t.Fatalf("from-commit at %s", got)
	}

	w.ok("switch", "from-feature")
	if got := w.workFile("plan.md"); got != "feature plan\n" {
		t.Fatalf("plan.md on from-feature: %q", got)
	}
	w.clean()

	w.subtest(t, "switch refuses to overwrite changes", func(t *testing.T) {
		os.WriteFile(filepath.Join(w.dir, "plan.md"), []byte("typed by hand\n"), 0o644)
		w.fail(1, "plan.md", "switch", "main")
		if got := strings.TrimSpace(w.git("branch", "--show-current")); got != "from-feature" {
			t.Fatalf("switched anyway: %s", got)
		}
		if got := w.workFile("plan.md"); got != "typed by hand\n" {
			t.Fatalf("change lost: %q", got)
		}
	})
}

// TestCRLF: an edit of a CRLF file keeps CRLF line endings.
func TestCRLF(t *testing.T) {
	w, id := newWSWith(t, "win.txt", "one\r\ntwo\r\nthree\r\n")
	w.ok("edit", id, "--search-file", w.file("s", "two\n"), "--replace-file", w.file("r", "TWO\nand a half\n"))
	w.wantContent(id, "win.txt", "one\r\nTWO\r\nand a half\r\nthree\r\n")
	w.clean()
}

// TestHumanChanges: a person's change in the working tree is committed as
// theirs before the agent's edit applies on top of it.
func TestHumanChanges(t *testing.T) {
	w, id := newWSWith(t, "n.md", "first line\nsecond line\n")
	os.WriteFile(filepath.Join(w.dir, "n.md"), []byte("first line, edited by hand\nsecond line\n"), 0o644)
	w.ok("edit", id, "--search-file", w.file("s", "second line"), "--replace-file", w.file("r", "second line, by the agent"), "--agent", "bot")
	if got := w.show(id); got != "first line, edited by hand\nsecond line, by the agent\n" {
		t.Fatalf("content %q", got)
	}
	log := w.git("log", "-2", "--format=%an|%(trailers:key=Luna-Op,valueonly)")
	if log != "bot|edit\n\nAda Lovelace|human\n\n" {
		t.Fatalf("log:\n%q", log)
	}
	w.clean()
}
