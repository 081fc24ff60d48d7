package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestExitCodes checks the exit code and message of each kind of failure,
// and that a failed command commits nothing.
func TestExitCodes(t *testing.T) {
	w, id := newWSWith(t, "notes.md", "alpha\nbeta\ngamma\n")
	w.ok("edit", id, "--search-file", w.file("s", "beta"), "--replace-file", w.file("r", "BETA"), "--idempotency-key", "used")
	other := w.create("other.md", "other\n")
	s, r := w.file("s2", "gamma"), w.file("r2", "GAMMA")

	for _, tc := range []struct {
		name string
		code int
		want string // in stderr
		args []string
	}{
		// 2: usage
		{"no command", 2, "no command", nil},
		{"unknown command", 2, `unknown command "frobnicate"`, []string{"frobnicate"}},
		{"unknown flag", 2, "flag provided but not defined: -frob", []string{"list", "--frob"}},
		{"unknown global flag", 2, "unknown flag --frob", []string{"--frob", "list"}},
		{"missing argument", 2, "show needs ID", []string{"show"}},
		{"extra argument", 2, `unexpected argument "extra"`, []string{"show", id, "extra"}},
		{"edit without an edit", 2, "give exactly one of", []string{"edit", id}},
		{"edit with two edits", 2, "give exactly one of", []string{"edit", id, "--patch-file", s, "--content-file", r}},
		{"search without replace", 2, "--search-file and --replace-file go together", []string{"edit", id, "--search-file", s}},
		{"two flags read stdin", 2, "both read standard input", []string{"edit", id, "--search-file", "-", "--replace-file", "-"}},
		{"bad base version", 2, `invalid value "x" for flag -base-version`, []string{"edit", id, "--content-file", r, "--base-version", "x"}},
		{"diff version not a number", 2, `FROM "one" is not a version number`, []string{"diff", id, "one"}},
		{"diff version zero", 2, `FROM "0" is not a version number`, []string{"diff", id, "0"}},
		{"restore without version", 2, "restore needs a version", []string{"restore", id}},
		{"restore bad version", 2, "not a version number", []string{"restore", id + "@x"}},
		{"create without title", 2, "create needs --title", []string{"create"}},
		{"help for unknown command", 2, "unknown command", []string{"help", "nope"}},
		{"bad --json value", 2, "invalid", []string{"list", "--json=maybe"}},
		// 3: conflict
		{"stale base version", 3, "is at version 2 but the edit was made against version 1", []string{"edit", id, "--search-file", s, "--replace-file", r, "--base-version", "1"}},
		{"idempotency key of another artifact", 3, `idempotency key "used" was already used`, []string{"edit", other, "--content-file", r, "--idempotency-key", "used"}},
		// 4: not applied
		{"search not found", 4, "did you mean", []string{"edit", id, "--search-file", w.file("s3", "gama"), "--replace-file", r}},
		{"edit changes nothing", 4, "changes nothing", []string{"edit", id, "--content-file", w.file("same", "alpha\nBETA\ngamma\n")}},
		{"restore to the current state", 4, "already has the state of version 2", []string{"restore", id + "@2"}},
		// 5: not found
		{"show unknown ID", 5, `no artifact "zzzzzzzz"`, []string{"show", "zzzzzzzz"}},
		{"edit unknown ID", 5, "no artifact", []string{"edit", "zzzzzzzz", "--content-file", r}},
		{"log unknown ID", 5, "no artifact", []string{"log", "nope.md"}},
		{"undo unknown ID", 5, "no artifact", []string{"undo", "zzzzzzzz"}},
		{"show unknown version", 5, "has no version 9", []string{"show", id + "@9"}},
		{"show unknown commit", 5, "no version or commit", []string{"show", id + "@deadbeef"}},
		{"restore unknown version", 5, "has no version 9", []string{"restore", id + "@9"}},
		{"diff unknown version", 5, "no version 9", []string{"diff", id, "9"}},
		{"diff of a first version", 5, "has no version before 1", []string{"diff", other}},
		{"switch to unknown branch", 5, "branch nope", []string{"switch", "nope"}},
		{"link to unknown artifact", 5, "no artifact", []string{"link", id, "zzzzzzzz"}},
		// 1: other errors, with a message saying what to do
		{"nothing to redo", 1, "nothing to redo", []string{"redo", other}},
		{"nothing to undo", 1, "nothing to undo", []string{"undo", other}},
		{"branch exists", 1, "already exists", []string{"branch", "main"}},
		{"bad branch name", 1, "branch name", []string{"branch", "a..b"}},
		{"branch name with a .lock component", 1, `component "main.lock" ends with '.lock'`, []string{"branch", "main.lock/y"}},
		{"branch name with a 300-byte component", 1, "component is 300 bytes; file systems allow 255", []string{"branch", strings.Repeat("b", 300)}},
		{"bad link kind", 1, "link kind", []string{"link", id, other, "--kind", "Bad Kind"}},
		{"bad status", 1, `status "done"`, []string{"create", "--title", "x", "--status", "done"}},
		{"bad type", 1, `type "markdown"`, []string{"create", "--title", "x", "--type", "markdown"}},
		{"title with newline", 1, "the title must be one line", []string{"create", "--title", "a\nb"}},
		{"100k-character title", 1, "the title is 100000 bytes; the limit is 256", []string{"create", "--title", strings.Repeat("t", 100000)}},
		{"300-byte path component", 1, "is 300 bytes; file systems allow 255", []string{"create", "--title", "x", "--path", "d/" + strings.Repeat("a", 297) + ".md"}},
		{"agent with angle brackets", 1, "agent name", []string{"edit", id, "--content-file", r, "--agent", "x <y>"}},
		{"message forging a trailer", 1, "Luna- trailer", []string{"edit", id, "--content-file", r, "--message", "ok\n\nLuna-Op: create"}},
		{"content file missing", 1, "no such file", []string{"edit", id, "--content-file", filepath.Join(w.dir, "..", "missing")}},
		{"blocks written for another file", 1, "block 1 names other.md, but the artifact being edited is notes.md", []string{"edit", id, "--blocks-file", w.file("b-other", "other.md\n<<<<<<< SEARCH\ngamma\n=======\nGAMMA\n>>>>>>> REPLACE\n")}},
		{"patch headers naming another file", 1, "the patch's header names ../../etc/passwd, but the artifact being edited is notes.md", []string{"edit", id, "--patch-file", w.file("p-passwd", "--- ../../etc/passwd\n+++ ../../etc/passwd\n@@ -3 +3 @@\n-gamma\n+GAMMA\n")}},
		{"patch with a negative count", 1, "whose count is negative", []string{"edit", id, "--patch-file", w.file("p-neg", "@@ -3,-5 +3 @@\n-gamma\n+GAMMA\n")}},
		{"empty blocks file", 1, "is empty", []string{"edit", id, "--blocks-file", w.file("empty", "")}},
		{"move onto an existing path", 1, "already tracked", []string{"mv", id, "other.md"}},
	} {
		w.subtest(t, tc.name, func(t *testing.T) {
			head := w.head()
			res := w.run(tc.args...)
			if tc.args == nil {
				res = w.runIn("", true) // no arguments at all
			}
			w.checkFail(res, tc.code, tc.want)
			if tc.want == "did you mean" && !regexp.MustCompile(`(?m)^did you mean lines? \d+(-\d+)? .*\n +\d+ \| `).MatchString(res.stderr) {
				t.Fatalf("no hint lines:\n%s", res.stderr)
			}
			w.wantHead(head)
			w.clean()
		})
	}
	w.subtest(t, "exit codes of repeated writes", func(t *testing.T) {
		w.ok("link", id, other)
		w.fail(1, "already links", "link", id, other)
		w.ok("archive", other)
		w.fail(1, "already archived", "archive", other)
	})
}

// TestBadInput feeds paths and contents lunad must refuse: each fails
// with a clear message and changes nothing.
func TestBadInput(t *testing.T) {
	w, id := newWSWith(t, "README.md", "# Read me\n")
	outside := t.TempDir()
	for _, tc := range []struct {
		name string
		want string
		args []string
	}{
		{"path with ..", "leads out of the workspace", []string{"--path", "../x.md"}},
		{"path with inner ..", "not clean", []string{"--path", "a/../../x.md"}},
		{"absolute path", "is absolute", []string{"--path", filepath.Join(outside, "x.md")}},
		{".git", "points into .git", []string{"--path", ".git/x"}},
		{".GIT", "points into .git", []string{"--path", ".GIT/x"}},
		{".git with a trailing space", "points into .git", []string{"--path", ".git /x"}},
		{".git with a trailing dot", "points into .git", []string{"--path", ".git./x"}},
		{"8.3 short name of .git", "points into .git", []string{"--path", "git~1/x"}},
		{".luna", "points into .luna", []string{"--path", ".luna/x.md"}},
		{"control character", "control character", []string{"--path", "a\x01b.md"}},
		{"newline", "control character", []string{"--path", "a\nb.md"}},
		{"backslash", "backslash", []string{"--path", `a\b.md`}},
		{"invalid UTF-8 path", "not valid UTF-8", []string{"--path", "a\xff.md"}},
		{"empty component", "not clean", []string{"--path", "a//b.md"}},
		{"case collision", "collides with README.md", []string{"--path", "readme.md"}},
		{"existing path", "already tracked", []string{"--path", "README.md"}},
		{"invalid UTF-8 content", "not valid UTF-8", []string{"--path", "u.md", "--content-file", w.file("bad-utf8", "ok\n\xff\xfe\n")}},
		{"binary content", "binary", []string{"--path", "b.md", "--content-file", w.file("bin", "PNG\x00\x01\x02")}},
		{"symlink parent outside", "symlink", []string{"--path", "out/x.md"}},
	} {
		w.subtest(t, "create/"+tc.name, func(t *testing.T) {
			if tc.name == "symlink parent outside" {
				link := filepath.Join(w.dir, "out")
				if err := os.Symlink(outside, link); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(link)
			}
			head := w.head()
			w.fail(1, tc.want, append([]string{"create", "--title", "x"}, tc.args...)...)
			w.wantHead(head)
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Fatalf("wrote outside the workspace: %v", ents)
			}
			if tc.name == "symlink parent outside" {
				os.Remove(filepath.Join(w.dir, "out"))
			}
			w.clean()
		})
	}
	for _, tc := range []struct {
		name string
		want string
		args []string
	}{
		{"edit to invalid UTF-8", "UTF-8", []string{"edit", id, "--content-file", w.file("bad-utf8", "ok\n\xff\xfe\n")}},
		{"edit to binary", "binary", []string{"edit", id, "--content-file", w.file("bin", "PNG\x00\x01\x02")}},
		{"move out of the workspace", "leads out of the workspace", []string{"mv", id, "../x.md"}},
		{"move into .git", "points into .git", []string{"mv", id, ".git/hooks/pre-commit"}},
		{"move absolute", "is absolute", []string{"mv", id, "/tmp/x.md"}},
		{"move onto a case twin", "collides", []string{"mv", id, "Readme.md"}}, // same dir, other case
		{"content larger than the limit", "larger than the limit", []string{"edit", id, "--content-file", w.file("big", strings.Repeat("x", 9<<20))}},
		{"content file is a directory", "is a directory", []string{"edit", id, "--content-file", outside}},
	} {
		w.subtest(t, tc.name, func(t *testing.T) {
			head := w.head()
			w.fail(1, tc.want, tc.args...)
			w.wantHead(head)
			if got := w.show(id); got != "# Read me\n" {
				t.Fatalf("content changed: %q", got)
			}
			w.clean()
		})
	}
}

// TestNotWorkspace: commands outside a workspace say to run lunad init.
func TestNotWorkspace(t *testing.T) {
	w := newDir(t)
	for _, args := range [][]string{{"list"}, {"show", "x.md"}, {"create", "--title", "x"}, {"branches"}} {
		w.subtest(t, args[0], func(t *testing.T) {
			w.fail(1, "lunad init", args...)
		})
	}
	w.subtest(t, "git repository not yet adopted", func(t *testing.T) {
		w.git("init", "-q")
		w.fail(1, "lunad init", "list")
	})
}

func TestExitCodeMapping(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errHelpShown, 0},
		{usageErrorf("x"), 2},
		{fmt.Errorf("wrapped: %w", usageErrorf("x")), 2},
		{fmt.Errorf("%w: base moved", lunad.ErrConflict), 3},
		{fmt.Errorf("%w: no match", lunad.ErrNotApplied), 4},
		{fmt.Errorf("%w: no artifact", lunad.ErrNotFound), 5},
		{lunad.ErrInvalid, 1},
		{lunad.ErrLocked, 1},
		{lunad.ErrDirty, 1},
		{lunad.ErrNotWorkspace, 1},
		{lunad.ErrExists, 1},
		{errors.New("disk on fire"), 1},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
