package goal

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/sandbox"
)

// allow is a policy that allows everything; deny one that denies
// writes.
type allow struct{}

func (allow) Check(string, policy.Action) policy.Decision {
	return policy.Decision{Verdict: policy.Allow}
}

// shell runs a command's argv as the test writes it: a function that
// changes the worktree the way a command would.
type shell struct {
	do  func(dir string) error
	ran int
}

func (s *shell) Run(_ context.Context, spec sandbox.Spec) (sandbox.Result, error) {
	s.ran++
	if err := s.do(spec.Dir); err != nil {
		return sandbox.Result{ExitCode: 1, Stderr: sandbox.Output{Text: err.Error(), Total: int64(len(err.Error()))}, Sandboxed: true}, nil
	}
	return sandbox.Result{Sandboxed: true, Duration: time.Second}, nil
}

type noTests struct{}

func (noTests) Run(context.Context, sandbox.Spec, [][]string) (lunad.TestSummary, []sandbox.Result, error) {
	return lunad.TestSummary{OK: true}, nil, nil
}
func (noTests) Compact(lunad.TestSummary) string { return "ok" }

func newAgents(t testing.TB, c Commands, p Policy) *Agents {
	t.Helper()
	a, err := New(Options{Providers: func(string) (llm.Provider, llm.Config, error) { return nil, llm.Config{}, nil }, Commands: c, Tests: noTests{}, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func onDisk(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			if d.Type()&os.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				b = []byte("-> " + target)
			}
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

// TestCommandChanges: what a command changes in the worktree becomes the
// step's writes, the worktree put back as it was (the engine writes them
// as the step's commit); what a goal cannot commit is undone and said;
// what .git, .luna and .gitignore cover is left alone.
func TestCommandChanges(t *testing.T) {
	base := map[string]string{"a.go": "package a\n", "b.txt": "old\n", ".gitignore": "build/\n*.log\n", ".luna/workspace.json": "{}\n", ".git/HEAD": "ref: refs/heads/main\n", "gone.txt": "bye\n"}
	for _, c := range []struct {
		name   string
		do     func(dir string) error
		writes map[string]string
		notes  []string
		after  map[string]string // files that differ from base afterwards ("" absent)
	}{
		{
			name: "formatted and generated",
			do: func(dir string) error {
				os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nconst X = 1\n"), 0o644)
				os.MkdirAll(filepath.Join(dir, "gen/deep"), 0o755)
				return os.WriteFile(filepath.Join(dir, "gen/deep/x.go"), []byte("package deep\n"), 0o644)
			},
			writes: map[string]string{"a.go": "package a\n\nconst X = 1\n", "gen/deep/x.go": "package deep\n"},
		},
		{
			name: "ignored and lunad's own are left alone",
			do: func(dir string) error {
				os.MkdirAll(filepath.Join(dir, "build"), 0o755)
				os.WriteFile(filepath.Join(dir, "build/out"), []byte("bin"), 0o644)
				os.WriteFile(filepath.Join(dir, "run.log"), []byte("log\n"), 0o644)
				return os.WriteFile(filepath.Join(dir, ".git/HEAD"), []byte("x\n"), 0o644)
			},
			after: map[string]string{"build/out": "bin", "run.log": "log\n", ".git/HEAD": "x\n"},
		},
		{
			name: "binary, deleted and a link are undone",
			do: func(dir string) error {
				os.WriteFile(filepath.Join(dir, "prog"), []byte("\x7fELF\x00\x01"), 0o755)
				os.Remove(filepath.Join(dir, "gone.txt"))
				os.Remove(filepath.Join(dir, "b.txt"))
				return os.Symlink("/etc/passwd", filepath.Join(dir, "b.txt"))
			},
			notes: []string{
				"the command made b.txt a symbolic link, which a goal does not commit (lunad does not follow it): it was undone",
				"the command deleted gone.txt; a goal does not delete files yet: it was undone",
				"the command wrote binary data to prog, which a goal does not commit (build into a directory .gitignore lists): it was undone",
			},
		},
		{
			// A file with a second name: lunad's undo replaces b.txt by
			// rename, and a.go, the other name, keeps its content.
			name: "a hard link is undone, not written through",
			do: func(dir string) error {
				os.Remove(filepath.Join(dir, "b.txt"))
				return os.Link(filepath.Join(dir, "a.go"), filepath.Join(dir, "b.txt"))
			},
			notes: []string{
				"the command made a.go a file with 2 names (a hard link, maybe to a file outside the worktree), which a goal does not commit: it was undone",
				"the command made b.txt a file with 2 names (a hard link, maybe to a file outside the worktree), which a goal does not commit: it was undone",
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, base)
			sh := &shell{do: c.do}
			x := &executor{a: newAgents(t, sh, allow{}), ctx: context.Background(), dir: dir, step: 4}
			e := x.do(&llm.ToolCall{Name: ToolRun, Arguments: json.RawMessage(`{"argv":["make"]}`)})
			if sh.ran != 1 || e.Observation.Status != statusOK {
				t.Fatalf("ran %d: %+v", sh.ran, e.Observation)
			}
			got := map[string]string{}
			for _, w := range e.Writes {
				got[w.Path] = w.Content
			}
			if len(got) != len(c.writes) || !maps.Equal(got, c.writes) || !slices.Equal(e.Notes, c.notes) {
				t.Errorf("writes %v, notes %q; want %v, %q", got, e.Notes, c.writes, c.notes)
			}
			want := map[string]string{}
			for k, v := range base {
				want[k] = v
			}
			for k, v := range c.after {
				want[k] = v
			}
			if now := onDisk(t, dir); !maps.Equal(now, want) {
				t.Errorf("the worktree is\n%v\nwant\n%v", now, want)
			}
			for _, ch := range e.Changes {
				if ch.Step != 4 || ch.Undo == "" {
					t.Errorf("change %+v", ch)
				}
			}
		})
	}
}

// TestPaths: the executor's own refusals, whatever a policy allowed.
func TestPaths(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"src/a.go": "package a\n"})
	for _, c := range []struct {
		path  string
		write bool
		rel   string
		err   string
	}{
		{path: "src/a.go", rel: "src/a.go"},
		{path: "./src/../src/a.go", rel: "src/a.go"},
		{path: filepath.Join(dir, "src/a.go"), rel: "src/a.go"},
		{path: "new/file.go", write: true, rel: "new/file.go"},
		{path: "../x", err: "../x is outside the workspace"},
		{path: "/etc/passwd", err: "/etc/passwd is outside the workspace"},
		{path: ".git/hooks/pre-commit", write: true, err: ".git/hooks/pre-commit is lunad's or git's own"},
		{path: ".luna/x", write: true, err: "is lunad's or git's own"},
		{path: " ", err: "the path is empty"},
	} {
		t.Run(c.path, func(t *testing.T) {
			rel, _, err := resolve(dir, c.path, c.write)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("%q, %v; want %q", rel, err, c.err)
				}
				return
			}
			if err != nil || rel != c.rel {
				t.Fatalf("%q, %v; want %q", rel, err, c.rel)
			}
		})
	}
}

// TestFileTools: reads, searches and edits of the worktree as the model
// is shown them.
func TestFileTools(t *testing.T) {
	dir := t.TempDir()
	var long strings.Builder
	for i := 1; i <= 450; i++ {
		long.WriteString("line\n")
	}
	writeFiles(t, dir, map[string]string{"a.py": "def add(a, b):\n    return a - b\n", "long.txt": long.String(), "bin": "\x00\x01", "docs/x.md": "Add things.\n", ".gitignore": "skip/\n", "skip/a.py": "def add(): pass\n"})
	x := &executor{a: newAgents(t, &shell{}, allow{}), ctx: context.Background(), dir: dir, step: 1}
	for _, c := range []struct {
		name, tool, args string
		status, output   string
		writes           map[string]string
	}{
		{name: "read", tool: ToolRead, args: `{"path":"a.py"}`, status: "ok", output: "a.py: lines 1-2 of 2\n    1| def add(a, b):\n    2|     return a - b\n"},
		{name: "read a part", tool: ToolRead, args: `{"path":"a.py","start_line":2,"end_line":2}`, status: "ok", output: "a.py: lines 2-2 of 2\n    2|     return a - b\n"},
		{name: "read is bounded", tool: ToolRead, args: `{"path":"long.txt"}`, status: "ok", output: "long.txt: lines 1-400 of 450 (read on with start_line 401)\n"},
		{name: "read past the end", tool: ToolRead, args: `{"path":"a.py","start_line":9}`, status: "error", output: "read_artifact: a.py has 2 lines; start_line 9 is past its end"},
		{name: "read binary", tool: ToolRead, args: `{"path":"bin"}`, status: "error", output: "read_artifact: bin is not text (2 bytes of binary data)"},
		{name: "read missing", tool: ToolRead, args: `{"path":"nope.py"}`, status: "error", output: "read_artifact: there is no nope.py in the workspace"},
		{name: "list", tool: ToolRead, args: `{"path":"."}`, status: "ok", output: ". is a directory of 6 entries:\n.gitignore\na.py\nbin\ndocs/\nlong.txt\nskip/"},
		{name: "search text", tool: ToolSearch, args: `{"query":"ADD","kind":"text"}`, status: "ok", output: "2 lines in 2 files contain \"ADD\":\na.py:1: def add(a, b):\ndocs/x.md:1: Add things."},
		{name: "search without symbols", tool: ToolSearch, args: `{"query":"add","kind":"symbol"}`, status: "error", output: "search: symbol search is not available here; search with kind \"text\""},
		{name: "search kind", tool: ToolSearch, args: `{"query":"add","kind":"regex"}`, status: "error", output: "search: kind \"regex\": give \"text\" or \"symbol\""},
		{name: "edit", tool: ToolEdit, args: `{"path":"a.py","blocks":[{"search":"    return a - b\n","replace":"    return a + b\n"}]}`, status: "ok", output: "edited a.py: block 1 at lines 2-2 (exact); a.py +1 -1; committed as this step",
			writes: map[string]string{"a.py": "def add(a, b):\n    return a + b\n"}},
		{name: "edit that does not match", tool: ToolEdit, args: `{"path":"a.py","blocks":[{"search":"    return a * b\n","replace":"x\n"}]}`, status: "error", output: "edit_artifact a.py not applied (nothing changed): "},
		{name: "write the same", tool: ToolWrite, args: `{"path":"docs/x.md","content":"Add things.\n"}`, status: "error", output: "wrote docs/x.md: nothing changed: the new content is the file's content already"},
		{name: "write new", tool: ToolWrite, args: `{"path":"docs/y.md","content":"Y\n"}`, status: "ok", output: "created docs/y.md: docs/y.md +1 -0; committed as this step", writes: map[string]string{"docs/y.md": "Y\n"}},
		{name: "write NUL", tool: ToolWrite, args: `{"path":"z","content":"\u0000"}`, status: "error", output: "created z: z would not be text"},
		{name: "patch creating an existing file", tool: ToolPatch, args: `{"patch":"--- /dev/null\n+++ b/a.py\n@@ -0,0 +1 @@\n+x\n"}`, status: "error", output: "apply_patch not applied (nothing was written): the patch creates a.py (--- /dev/null, line 1), which exists"},
		{name: "run_tests without tests", tool: ToolTests, args: `{}`, status: "error", output: "run_tests: no tests are configured for this goal"},
		{name: "finish", tool: ToolFinish, args: `{"summary":" done "}`, status: "ok", output: "finished"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := x.do(&llm.ToolCall{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if e.Observation.Status != c.status || !strings.HasPrefix(e.Observation.Output, c.output) {
				t.Fatalf("%s %q; want %s %q", e.Observation.Status, e.Observation.Output, c.status, c.output)
			}
			got := map[string]string{}
			for _, w := range e.Writes {
				got[w.Path] = w.Content
			}
			if len(got)+len(c.writes) > 0 && !maps.Equal(got, c.writes) {
				t.Errorf("writes %v; want %v", got, c.writes)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.py")); string(b) != "def add(a, b):\n    return a - b\n" {
		t.Errorf("an edit wrote to the worktree itself: %q", b)
	}
}

// TestReadOnlyLink: a command is not run while a path the sandbox keeps
// read-only is a symbolic link (an earlier command's): the sandbox would
// bind what it points to, outside the worktree.
func TestReadOnlyLink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{"a.py": "x\n", "testdata/golden/x": "x\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "vendor")); err != nil {
		t.Fatal(err)
	}
	sh := &shell{do: func(string) error { return nil }}
	for _, ro := range []string{"vendor", "vendor/lib"} {
		t.Run(ro, func(t *testing.T) {
			a, err := New(Options{Providers: func(string) (llm.Provider, llm.Config, error) { return nil, llm.Config{}, nil }, Commands: sh, Tests: noTests{}, Policy: allow{}, ReadOnly: []string{"testdata/golden", ro}})
			if err != nil {
				t.Fatal(err)
			}
			x := &executor{a: a, ctx: context.Background(), dir: dir, step: 1}
			e := x.do(&llm.ToolCall{Name: ToolRun, Arguments: json.RawMessage(`{"argv":["make"]}`)})
			if want := "run_command was not run: " + ro + ", which commands see read-only, is a symbolic link or under one"; e.Observation.Status != statusError || !strings.HasPrefix(e.Observation.Output, want) || sh.ran != 0 {
				t.Fatalf("ran %d: %+v; want %q", sh.ran, e.Observation, want)
			}
		})
	}
}

// TestFileToolsRefuseLinks: the file tools neither read, list, edit nor
// write through a symbolic link (to a directory outside, to a file
// outside), nor open a FIFO; each refusal is the model's observation.
func TestFileToolsRefuseLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{"a.py": "x\n"})
	writeFiles(t, outside, map[string]string{"secret": "s\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "s.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	x := &executor{a: newAgents(t, &shell{}, allow{}), ctx: context.Background(), dir: dir, step: 1}
	for _, c := range []struct{ name, tool, args, output string }{
		{"read through a link", ToolRead, `{"path":"link/secret"}`, "read_artifact: lstat link/secret: a symbolic link is in the way"},
		{"list through a link", ToolRead, `{"path":"link"}`, "read_artifact: link is a symbolic link; lunad does not follow links"},
		{"read a link", ToolRead, `{"path":"s.txt"}`, "read_artifact: s.txt is a symbolic link; lunad does not follow links"},
		{"read a FIFO", ToolRead, `{"path":"fifo"}`, "read_artifact: open fifo: not a regular file"},
		{"write through a link", ToolWrite, `{"path":"link/new","content":"x\n"}`, "write_file: lstat link/new: a symbolic link is in the way"},
		{"write a link", ToolWrite, `{"path":"s.txt","content":"x\n"}`, "write_file: s.txt is a symbolic link; lunad does not follow links"},
		{"edit through a link", ToolEdit, `{"path":"link/secret","blocks":[{"search":"s","replace":"t"}]}`, "edit_artifact: lstat link/secret: a symbolic link is in the way"},
		{"patch through a link", ToolPatch, `{"patch":"--- a/link/secret\n+++ b/link/secret\n@@ -1 +1 @@\n-s\n+t\n"}`, "apply_patch not applied (nothing was written): lstat link/secret: a symbolic link is in the way"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := x.do(&llm.ToolCall{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if e.Observation.Status != statusError || !strings.HasPrefix(e.Observation.Output, c.output) || len(e.Writes) > 0 {
				t.Fatalf("%s %q, writes %v; want an error %q", e.Observation.Status, e.Observation.Output, e.Writes, c.output)
			}
		})
	}
	e := x.do(&llm.ToolCall{Name: ToolRead, Arguments: json.RawMessage(`{"path":"."}`)})
	if want := ". is a directory of 4 entries:\na.py\nfifo\nlink (a symbolic link, not followed)\ns.txt (a symbolic link, not followed)"; e.Observation.Output != want {
		t.Errorf("list: %q; want %q", e.Observation.Output, want)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s\n" {
		t.Errorf("the file outside is now %q", b)
	}
}

// FuzzAction: whatever tool call a model makes, a dry run's executor
// answers with an observation, writes nothing and runs nothing.
func FuzzAction(f *testing.F) {
	for _, s := range []struct{ tool, args string }{
		{ToolRead, `{"path":"a.py"}`}, {ToolEdit, `{"path":"a.py","blocks":[{"search":"x","replace":"y"}]}`},
		{ToolPatch, `{"patch":"--- a/a.py\n+++ b/a.py\n@@ @@\n-x\n+y\n"}`}, {ToolRun, `{"argv":["rm","-rf","/"]}`},
		{ToolSearch, `{"query":"a","kind":"text"}`}, {"nope", `[`}, {ToolFinish, `{"summary":1}`},
	} {
		f.Add(s.tool, s.args)
	}
	dir := f.TempDir()
	writeFiles(f, dir, map[string]string{"a.py": "x\n"})
	sh := &shell{do: func(string) error { return nil }}
	x := &executor{a: newAgents(f, sh, allow{}), ctx: context.Background(), dir: dir, step: 1, dry: true}
	f.Fuzz(func(t *testing.T, tool, args string) {
		e := x.do(&llm.ToolCall{Name: tool, Arguments: json.RawMessage(args)})
		switch e.Observation.Status {
		case statusOK, statusError, statusSkipped:
		default:
			t.Fatalf("status %q", e.Observation.Status)
		}
		if len(e.Writes) > 0 || sh.ran > 0 || e.Observation.Output == "" {
			t.Fatalf("a dry run wrote %v, ran %d: %+v", e.Writes, sh.ran, e.Observation)
		}
	})
}

// TestDiskBudgetPastAlready: a worktree past the disk budget before a
// command (a large checkout) runs commands that do not make it larger,
// and undoes one that does.
func TestDiskBudgetPastAlready(t *testing.T) {
	for _, c := range []struct {
		name string
		do   func(dir string) error
		note string
	}{
		{name: "no larger", do: func(string) error { return nil }},
		{name: "larger", do: func(dir string) error {
			os.MkdirAll(filepath.Join(dir, "build"), 0o755)
			return os.WriteFile(filepath.Join(dir, "build/out"), make([]byte, 64<<10), 0o644)
		}, note: "the command made the worktree larger ("},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{".gitignore": "build/\n", "big.txt": strings.Repeat("x", 256<<10)})
			e := runMake(t, dir, Options{Commands: &shell{do: c.do}, Disk: 16 << 10})
			if c.note == "" {
				if e.Observation.Status != statusOK || len(e.Notes) != 0 {
					t.Fatalf("%+v, notes %q", e.Observation, e.Notes)
				}
				return
			}
			if e.Observation.Status != statusError || len(e.Notes) != 1 || !strings.HasPrefix(e.Notes[0], c.note) || !strings.Contains(e.Notes[0], "past the goal's budget of 16KiB already") {
				t.Fatalf("%+v, notes %q", e.Observation, e.Notes)
			}
			if _, err := os.Lstat(filepath.Join(dir, "build")); err == nil {
				t.Error("build is still in the worktree")
			}
		})
	}
}

// TestDiskNow: Options.DiskNow, asked when each command ends, is the
// budget instead of Options.Disk — a policy edited while a goal runs
// applies to its next command —, and a result of 0 falls back to Disk.
func TestDiskNow(t *testing.T) {
	for _, c := range []struct {
		name string
		now  int64
		note string
	}{
		{name: "smaller than Disk", now: 16 << 10, note: "over the goal's budget of 16KiB"},
		{name: "larger than Disk", now: 1 << 20},
		{name: "zero: Disk", now: 0, note: "over the goal's budget of 32KiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{".gitignore": "build/\n"})
			e := runMake(t, dir, Options{Commands: &shell{do: func(dir string) error {
				os.MkdirAll(filepath.Join(dir, "build"), 0o755)
				return os.WriteFile(filepath.Join(dir, "build/out"), make([]byte, 64<<10), 0o644)
			}}, Disk: 32 << 10, DiskNow: func() int64 { return c.now }})
			if c.note == "" {
				if e.Observation.Status != statusOK || len(e.Notes) != 0 {
					t.Fatalf("%+v, notes %q", e.Observation, e.Notes)
				}
				return
			}
			if e.Observation.Status != statusError || len(e.Notes) != 1 || !strings.Contains(e.Notes[0], c.note) {
				t.Fatalf("%+v, notes %q; want %q", e.Observation, e.Notes, c.note)
			}
		})
	}
}

// runMake runs the command make in dir through the goal's executor with
// o's commands and disk budget (no model, no tests, every action allowed).
func runMake(t *testing.T, dir string, o Options) effect {
	t.Helper()
	o.Providers = func(string) (llm.Provider, llm.Config, error) { return nil, llm.Config{}, nil }
	o.Tests, o.Policy = noTests{}, allow{}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	x := &executor{a: a, ctx: context.Background(), dir: dir, step: 1}
	return x.do(&llm.ToolCall{Name: ToolRun, Arguments: json.RawMessage(`{"argv":["make"]}`)})
}
