package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// TestCommands runs every command's happy path in one workspace and checks
// what git itself then says about it.
func TestCommands(t *testing.T) {
	w := newWS(t)
	var id, other string

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"init prints root", func(t *testing.T) {
			var rep initJSON
			w.jsonOut(&rep, "init")
			if rep.Root != w.dir || rep.Created || len(rep.Adopted) != 0 || len(rep.Skipped) != 0 {
				t.Fatalf("second init: %+v", rep)
			}
		}},
		{"create prints only the ID", func(t *testing.T) {
			before := w.commitCount()
			out := w.ok("create", "--title", "Design notes", "--content-file", w.file("d.md", "# Design\n\nparse_config reads TOML.\n"),
				"--agent", "writer", "--message", "first draft")
			id = strings.TrimSpace(out)
			if !regexp.MustCompile(`^[0-9a-z]{8}\n$`).MatchString(out) {
				t.Fatalf("create output %q", out)
			}
			if w.commitCount() != before+1 {
				t.Fatal("create is not one commit")
			}
			author, msg := w.lastCommit()
			if author != "writer" || !strings.HasPrefix(msg, "create design-notes.md: first draft\n") {
				t.Fatalf("commit %q %q", author, msg)
			}
			wantTrailers(t, w.trailers(), map[string]string{"Luna-Artifact": id, "Luna-Op": "create", "Luna-Version": "1", "Luna-Agent": "writer"})
			if got := w.git("show", "HEAD:design-notes.md"); got != "# Design\n\nparse_config reads TOML.\n" {
				t.Fatalf("git show: %q", got)
			}
		}},
		{"create --json with type, path, status", func(t *testing.T) {
			var r writeJSON
			w.jsonOut(&r, "create", "--title", "Main", "--type", "code/go", "--path", "src/main.go", "--status", "draft",
				"--content-file", w.file("main.go", "package main\n"))
			other = r.ID
			if r.Path != "src/main.go" || r.Version != 1 || len(r.Commit) != 40 || r.Op != lunad.OpCreate || r.Replayed ||
				r.Artifact.Type != "code/go" || r.Artifact.Status != lunad.StatusDraft {
				t.Fatalf("create --json: %+v", r)
			}
		}},
		{"list table", func(t *testing.T) {
			out := w.ok("list")
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if len(lines) != 3 || !regexp.MustCompile(`^ID +PATH +TYPE +TITLE +STATUS +VERSION +COMMIT$`).MatchString(lines[0]) {
				t.Fatalf("list:\n%s", out)
			}
			short := w.head()[:8]
			if !regexp.MustCompile(`^`+id+` +design-notes\.md +text/markdown +Design notes +active +1 +[0-9a-f]{8}$`).MatchString(lines[1]) ||
				!regexp.MustCompile(`^`+other+` +src/main\.go +code/go +Main +draft +1 +`+short+`$`).MatchString(lines[2]) {
				t.Fatalf("list:\n%s", out)
			}
			// Columns are aligned: every row starts its PATH column at the same offset.
			col := strings.Index(lines[0], "PATH")
			for _, l := range lines[1:] {
				if l[col-2:col] != "  " || l[col] == ' ' {
					t.Fatalf("misaligned list:\n%s", out)
				}
			}
		}},
		{"list --json", func(t *testing.T) {
			var arts []lunad.Artifact
			w.jsonOut(&arts, "list")
			if len(arts) != 2 || arts[0].ID != id || arts[0].Title != "Design notes" || len(arts[1].Commit) != 40 || arts[1].Commit != w.head() {
				t.Fatalf("list --json: %+v", arts)
			}
		}},
		{"show by ID and by path", func(t *testing.T) {
			if got := w.show(id); got != "# Design\n\nparse_config reads TOML.\n" {
				t.Fatalf("show: %q", got)
			}
			if got := w.show("src/main.go"); got != "package main\n" {
				t.Fatalf("show path: %q", got)
			}
		}},
		{"edit search/replace", func(t *testing.T) {
			before := w.commitCount()
			out := w.ok("edit", id, "--search-file", w.file("s", "parse_config reads TOML.\n"), "--replace-file", w.file("r", "parse_config reads JSON.\n"),
				"--agent", "coder", "--message", "say JSON", "--idempotency-key", "k-1", "--base-version", "1")
			if !regexp.MustCompile(`^` + id + ` v2 [0-9a-f]{8} \(exact\)\n$`).MatchString(out) {
				t.Fatalf("edit output %q", out)
			}
			if !strings.Contains(out, w.head()[:8]) || w.commitCount() != before+1 {
				t.Fatalf("edit commit: %q", out)
			}
			author, msg := w.lastCommit()
			if author != "coder" || !strings.HasPrefix(msg, "edit design-notes.md: say JSON\n") {
				t.Fatalf("commit %q %q", author, msg)
			}
			wantTrailers(t, w.trailers(), map[string]string{"Luna-Artifact": id, "Luna-Op": "edit", "Luna-Version": "2",
				"Luna-Agent": "coder", "Luna-Idempotency-Key": "k-1"})
			if got := w.git("show", "HEAD:design-notes.md"); got != "# Design\n\nparse_config reads JSON.\n" {
				t.Fatalf("git show: %q", got)
			}
			if got := w.workFile("design-notes.md"); got != "# Design\n\nparse_config reads JSON.\n" {
				t.Fatalf("working tree: %q", got)
			}
		}},
		{"edit --blocks-file --json", func(t *testing.T) {
			blocks := "design-notes.md\n```\n<<<<<<< SEARCH\n# Design\n=======\n# Design notes\n>>>>>>> REPLACE\n```\n"
			var r editJSON
			w.jsonOut(&r, "edit", id, "--blocks-file", w.file("blocks", blocks))
			if r.Version != 3 || r.Commit != w.head() || r.Replayed || len(r.Matches) != 1 || r.Matches[0].Tier != "exact" ||
				r.Matches[0].StartLine != 1 || r.Matches[0].EndLine < 1 {
				t.Fatalf("edit --json: %+v", r)
			}
			author, _ := w.lastCommit()
			if author != "Ada Lovelace" {
				t.Fatalf("edit without --agent authored by %q", author)
			}
			wantTrailers(t, w.trailers(), map[string]string{"Luna-Agent": "Ada Lovelace", "Luna-Version": "3"})
		}},
		{"edit --patch-file", func(t *testing.T) {
			patch := "--- a/design-notes.md\n+++ b/design-notes.md\n@@ -1,3 +1,3 @@\n # Design notes\n \n-parse_config reads JSON.\n+parse_config reads YAML.\n"
			out := w.ok("edit", id, "--patch-file", w.file("p.diff", patch))
			if !strings.HasPrefix(out, id+" v4 ") {
				t.Fatalf("edit patch: %q", out)
			}
			if got := w.show(id); got != "# Design notes\n\nparse_config reads YAML.\n" {
				t.Fatalf("after patch: %q", got)
			}
		}},
		{"edit --content-file rewrites", func(t *testing.T) {
			out := w.ok("edit", id, "--content-file", w.file("new.md", "# Design notes\n\nrewritten\n"))
			if !regexp.MustCompile(`^` + id + ` v5 [0-9a-f]{8} \(rewrite\)\n$`).MatchString(out) {
				t.Fatalf("rewrite output %q", out)
			}
			if got := w.git("show", "HEAD:design-notes.md"); got != "# Design notes\n\nrewritten\n" {
				t.Fatalf("git show: %q", got)
			}
		}},
		{"show @version and @commit", func(t *testing.T) {
			if got := w.show(id + "@1"); got != "# Design\n\nparse_config reads TOML.\n" {
				t.Fatalf("show @1: %q", got)
			}
			var vs []lunad.Version
			w.jsonOut(&vs, "log", id)
			v2 := vs[len(vs)-2]
			if v2.Number != 2 {
				t.Fatalf("log order: %+v", vs)
			}
			if got := w.show(id + "@" + v2.Commit[:10]); got != "# Design\n\nparse_config reads JSON.\n" {
				t.Fatalf("show @commit: %q", got)
			}
			if got := w.show("design-notes.md@" + v2.Commit); got != "# Design\n\nparse_config reads JSON.\n" {
				t.Fatalf("show path@commit: %q", got)
			}
		}},
		{"show --json", func(t *testing.T) {
			var s struct {
				Artifact lunad.Artifact
				Content  string
			}
			w.jsonOut(&s, "show", id+"@2")
			if s.Artifact.ID != id || s.Artifact.Version != 2 || s.Content != "# Design\n\nparse_config reads JSON.\n" {
				t.Fatalf("show --json: %+v", s)
			}
		}},
		{"log table, newest first", func(t *testing.T) {
			out := w.ok("log", id)
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if len(lines) != 6 || !regexp.MustCompile(`^COMMIT +ARTIFACT +VERSION +OP +AGENT +TIME +KEY +MESSAGE$`).MatchString(lines[0]) {
				t.Fatalf("log:\n%s", out)
			}
			if !regexp.MustCompile(`^` + w.head()[:8] + ` +` + id + ` +5 +edit +Ada Lovelace +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +- +edit design-notes\.md$`).MatchString(lines[1]) {
				t.Fatalf("log line 1:\n%s", out)
			}
			if !regexp.MustCompile(`^[0-9a-f]{8} +` + id + ` +2 +edit +coder +\S+ +k-1 +edit design-notes\.md: say JSON$`).MatchString(lines[4]) {
				t.Fatalf("log line 4:\n%s", out)
			}
		}},
		{"log --json of the workspace", func(t *testing.T) {
			var vs []lunad.Version
			w.jsonOut(&vs, "log")
			// adopt, 2 creates, 4 edits
			if len(vs) != 7 || vs[0].Commit != w.head() || vs[len(vs)-1].Op != lunad.OpAdopt {
				t.Fatalf("log --json: %+v", vs)
			}
			for _, v := range vs {
				if v.Op == lunad.OpEdit && v.Number == 2 && (v.IdempotencyKey != "k-1" || v.Agent != "coder" || v.Time.IsZero()) {
					t.Fatalf("log entry %+v", v)
				}
			}
		}},
		{"diff forms", func(t *testing.T) {
			last := w.ok("diff", id)
			if !strings.Contains(last, "-parse_config reads YAML.") || !strings.Contains(last, "+rewritten") {
				t.Fatalf("diff previous..current:\n%s", last)
			}
			one := w.ok("diff", id, "1")
			if !strings.Contains(one, "-parse_config reads TOML.") || !strings.Contains(one, "+rewritten") {
				t.Fatalf("diff 1..current:\n%s", one)
			}
			two := w.ok("diff", id, "1", "2")
			if !strings.Contains(two, "-parse_config reads TOML.") || !strings.Contains(two, "+parse_config reads JSON.") || strings.Contains(two, "rewritten") {
				t.Fatalf("diff 1 2:\n%s", two)
			}
			var d struct {
				ID       string
				From, To int
				Diff     string
			}
			w.jsonOut(&d, "diff", id, "2")
			if d.ID != id || d.From != 2 || d.To != 5 || !strings.Contains(d.Diff, "+rewritten") {
				t.Fatalf("diff --json: %+v", d)
			}
		}},
		{"mv", func(t *testing.T) {
			out := w.ok("mv", id, "docs/design.md", "--agent", "tidy")
			if !strings.HasPrefix(out, id+" v6 ") {
				t.Fatalf("mv: %q", out)
			}
			w.git("cat-file", "-e", "HEAD:docs/design.md")
			if ls := w.git("ls-tree", "--name-only", "HEAD"); strings.Contains(ls, "design-notes.md") {
				t.Fatalf("old path still tracked:\n%s", ls)
			}
			if got := w.show("docs/design.md"); got != "# Design notes\n\nrewritten\n" {
				t.Fatalf("show after mv: %q", got)
			}
			wantTrailers(t, w.trailers(), map[string]string{"Luna-Op": "move", "Luna-Agent": "tidy"})
		}},
		{"link", func(t *testing.T) {
			var r writeJSON
			w.jsonOut(&r, "link", other, id, "--kind", "depends_on")
			if r.ID != other || r.Version != 2 || len(r.Artifact.Links) != 1 || r.Artifact.Links[0] != (lunad.Link{To: id, Kind: "depends_on"}) {
				t.Fatalf("link: %+v", r)
			}
			wantTrailers(t, w.trailers(), map[string]string{"Luna-Op": "link", "Luna-Artifact": other})
		}},
		{"archive", func(t *testing.T) {
			w.ok("archive", other)
			var arts []lunad.Artifact
			w.jsonOut(&arts, "list")
			for _, a := range arts {
				if a.ID == other && a.Status != lunad.StatusArchived {
					t.Fatalf("not archived: %+v", a)
				}
			}
			if got := w.workFile("src/main.go"); got != "package main\n" {
				t.Fatalf("archived file: %q", got)
			}
		}},
		{"branches", func(t *testing.T) {
			out := w.ok("branches")
			if !regexp.MustCompile(`^CURRENT +NAME +COMMIT\n\* +main +` + w.head()[:8] + `\n$`).MatchString(out) {
				t.Fatalf("branches:\n%s", out)
			}
		}},
		{"help", func(t *testing.T) {
			out := w.ok("help")
			for _, c := range commands {
				if !strings.Contains(out, "  "+c.name+" ") {
					t.Fatalf("help does not list %s:\n%s", c.name, out)
				}
			}
			if out := w.ok("edit", "--help"); !strings.Contains(out, "-search-file") || !strings.Contains(out, "Usage: lunad edit") {
				t.Fatalf("edit --help:\n%s", out)
			}
			if out := w.ok("help", "create"); !strings.Contains(out, "-title") {
				t.Fatalf("help create:\n%s", out)
			}
		}},
	}
	for _, s := range steps {
		if !w.subtest(t, s.name, func(t *testing.T) {
			s.run(t)
			w.clean()
		}) {
			t.FailNow()
		}
	}
}
