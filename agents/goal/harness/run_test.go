package harness

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/sandbox"
)

// workspace is a new directory holding copies of the named samples, and
// the spec of a command run at its top.
func workspace(t *testing.T, samples ...string) sandbox.Spec {
	t.Helper()
	root := t.TempDir()
	for _, name := range samples {
		if err := os.CopyFS(filepath.Join(root, name), os.DirFS(filepath.Join("testdata", name))); err != nil {
			t.Fatal(err)
		}
	}
	return sandbox.Spec{Root: root, Home: t.TempDir(), Env: goEnv(t)}
}

// files lists the paths under root.
func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		out = append(out, strings.TrimPrefix(p, root))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunSamples runs the real go test and pytest on the sample projects
// through Run, with a Runner that really runs them.
func TestRunSamples(t *testing.T) {
	base := workspace(t, "gosample", "pysample")
	before := files(t, base.Root)
	r := &execRunner{}
	gotest := []string{"go", "-C", "gosample", "test", "./..."}
	pytest := []string{pytestPath(t), "-q", "pysample"}
	s, results, err := Run(context.Background(), r, base, [][]string{gotest, pytest})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("counts of both runners", func(t *testing.T) {
		got := [4]int{s.Passed, s.Failed, s.Errored, s.Skipped}
		// go: TestAdd, TestDiv/exact; TestSub, TestDiv/rounds_down,
		// TestStore; broken; TestMul. pytest: one of each.
		if want := [4]int{2 + 1, 3 + 1, 1 + 1, 1 + 1}; got != want || s.OK {
			t.Errorf("passed, failed, errored, skipped = %v, OK %v; want %v, false", got, s.OK, want)
		}
	})
	t.Run("commands as given, with their exits", func(t *testing.T) {
		if len(results) != 2 || len(s.Commands) != 2 {
			t.Fatalf("%d results, %d commands; want 2", len(results), len(s.Commands))
		}
		for i, want := range [][]string{gotest, pytest} {
			c := s.Commands[i]
			if !reflect.DeepEqual(c.Argv, want) || c.Dir != "." || c.ExitCode != 1 || c.Duration <= 0 || c.Duration != results[i].Duration || c.OutputCut != 0 {
				t.Errorf("command %d = %+v; want %q in . with exit 1 and the result's duration", i, c, want)
			}
		}
	})
	t.Run("what the runner was asked", func(t *testing.T) {
		g, p := r.specs[0], r.specs[1]
		if want := []string{"go", "-C", "gosample", "test", "-json", "./..."}; !reflect.DeepEqual(g.Argv, want) || len(g.Binds) != 0 {
			t.Errorf("go test ran as %q with binds %v; want %q, none", g.Argv, g.Binds, want)
		}
		if len(p.Binds) != 1 || !p.Binds[0].Writable {
			t.Fatalf("pytest's binds %+v; want its report directory, writable", p.Binds)
		}
		report := filepath.Join(p.Binds[0].Path, "junit-2.xml")
		if want := []string{pytest[0], "--junitxml=" + report, "-p", "no:cacheprovider", "-q", "pysample"}; !reflect.DeepEqual(p.Argv, want) {
			t.Errorf("pytest ran as %q; want %q", p.Argv, want)
		}
		if p.Env["PYTHONDONTWRITEBYTECODE"] != "1" || p.Env["GOTOOLCHAIN"] != "local" || g.Env["PYTHONDONTWRITEBYTECODE"] != "" {
			t.Errorf("env: pytest %v, go test %v; want PYTHONDONTWRITEBYTECODE=1 on pytest's only, the base's on both", p.Env, g.Env)
		}
		if _, err := os.Stat(p.Binds[0].Path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the report directory outlived Run: %v", err)
		}
	})
	t.Run("nothing left in the workspace", func(t *testing.T) {
		if after := files(t, base.Root); !slices.Equal(before, after) {
			t.Errorf("the workspace changed:\nbefore %q\nafter  %q", before, after)
		}
	})
	t.Run("what the model sees", func(t *testing.T) {
		// The order of failures across go test's packages is the run's.
		golden(t, "compact/samples.txt", strings.ReplaceAll(Compact(byName(s)), base.Root, "$WS"))
	})
}

// TestRunVerdicts runs commands whose verdict is not a list of tests.
func TestRunVerdicts(t *testing.T) {
	python := "/usr/bin/python3"
	cases := []struct {
		name     string
		samples  []string
		dir      string
		cap      int
		setup    func(t *testing.T, base sandbox.Spec)
		commands func(t *testing.T) [][]string
		want     [4]int // passed, failed, errored, skipped
		ok       bool
		failures []string // each failure's name and message, "name: message"; "…" at the end: its head
	}{
		{
			name: "other runners by their exit code",
			commands: func(*testing.T) [][]string {
				return [][]string{{"true"}, {python, "-c", "print('2 checks failed'); exit(3)"}}
			},
			want:     [4]int{1, 1, 0, 0},
			failures: []string{python + ` -c "print('2 checks failed'); exit(3)": exit status 3` + "\n2 checks failed"},
		},
		{
			name:     "all passing",
			samples:  []string{"gosample"},
			dir:      "gosample",
			commands: func(*testing.T) [][]string { return [][]string{{"go", "test", "-run", "TestAdd", "./calc"}, {"true"}} },
			want:     [4]int{2, 0, 0, 0},
			ok:       true,
		},
		{
			name:     "go test refusing its flags",
			samples:  []string{"gosample"},
			dir:      "gosample",
			commands: func(*testing.T) [][]string { return [][]string{{"go", "test", "-count=x", "./calc"}} },
			want:     [4]int{0, 0, 1, 0},
			failures: []string{"go test -count=x ./calc: exit status 2\n" + `invalid value "x" for flag -count: parse error` + "\nusage: go test [build/test flags] [packages] [build/test flags & test binary flags]\nRun 'go help test' and 'go help testflag' for details."},
		},
		{
			name:     "go test outside a module",
			samples:  []string{"pysample"},
			commands: func(*testing.T) [][]string { return [][]string{{"go", "test", "./..."}} },
			want:     [4]int{0, 0, 1, 0},
			failures: []string{"./...: build failed\npattern ./...: directory prefix . does not contain main module or its selected dependencies"},
		},
		{
			name:     "pytest refusing its options",
			samples:  []string{"pysample"},
			commands: func(t *testing.T) [][]string { return [][]string{{pytestPath(t), "--no-such-option"}} },
			want:     [4]int{0, 0, 1, 0},
			failures: []string{"/usr/bin/pytest-3 --no-such-option: exit status 4\nERROR: usage: pytest-3 [options] [file_or_dir] [file_or_dir] [...]\npytest-3: error: unrecognized arguments: --no-such-option\n  inifile: None\n  rootdir: $WS"},
		},
		{
			name:     "pytest on a module that does not import",
			samples:  []string{"pybroken"},
			dir:      "pybroken",
			commands: func(t *testing.T) [][]string { return [][]string{{pytestPath(t), "-q"}} },
			want:     [4]int{0, 0, 1, 0},
			failures: []string{"test_shapes: collection failure\n  File \"$WS/pybroken/shapes.py\", line 4\n    def area(w, h)\n                  ^\nSyntaxError: expected ':'"},
		},
		{
			// The tests replace the report with a symlink to a file
			// outside (a JUnit report saying SECRET): the harness does
			// not follow it.
			name:    "pytest's report replaced by a symlink",
			samples: []string{"pysample"},
			dir:     "pysample",
			setup: func(t *testing.T, base sandbox.Spec) {
				secret := filepath.Join(t.TempDir(), "secret.xml")
				write(t, secret, `<testsuite><testcase name="SECRET"><failure message="SECRET"/></testcase></testsuite>`)
				write(t, filepath.Join(base.Dir, "conftest.py"), "import os\n\n\ndef pytest_unconfigure(config):\n"+
					"    os.remove(config.option.xmlpath)\n    os.symlink("+strconv.Quote(secret)+", config.option.xmlpath)\n")
			},
			commands: func(t *testing.T) [][]string { return [][]string{{pytestPath(t), "-q", "-k", "test_add"}, {"true"}} },
			want:     [4]int{1, 0, 1, 0},
			failures: []string{"/usr/bin/pytest-3 -q -k test_add: exit status 0\npytest's JUnit report cannot be opened (a regular file is expected): open $REPORT: too many levels of symbolic links\n…"},
		},
		{
			name:     "output cut by the runner's cap",
			samples:  []string{"gosample"},
			dir:      "gosample",
			cap:      4096,
			commands: func(*testing.T) [][]string { return [][]string{{"go", "test", "./..."}} },
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := workspace(t, c.samples...)
			base.Dir = filepath.Join(base.Root, c.dir)
			if c.setup != nil {
				c.setup(t, base)
			}
			commands := c.commands(t)
			r := &execRunner{cap: c.cap}
			s, results, err := Run(context.Background(), r, base, commands)
			if err != nil {
				t.Fatal(err)
			}
			if len(results) != len(commands) {
				t.Fatalf("%d results for %d commands", len(results), len(commands))
			}
			if c.cap > 0 {
				// Counts from a cut stream are partial; a test whose end
				// was cut out is not said to have stopped.
				if s.Commands[0].OutputCut == 0 || !strings.Contains(Compact(s), "bytes of output cut: counts may be partial") {
					t.Errorf("the cut is not told: %+v\n%s", s.Commands[0], Compact(s))
				}
				for _, f := range s.Failures {
					if strings.HasPrefix(f.Message, "did not finish") {
						t.Errorf("%s: %s", f.Name, f.Message)
					}
				}
				return
			}
			got := [4]int{s.Passed, s.Failed, s.Errored, s.Skipped}
			if got != c.want || s.OK != c.ok {
				t.Errorf("passed, failed, errored, skipped = %v, OK %v; want %v, %v", got, s.OK, c.want, c.ok)
			}
			var failures []string
			for _, f := range s.Failures {
				m := strings.ReplaceAll(f.Name+": "+f.Message, base.Root, "$WS")
				if len(r.specs[0].Binds) > 0 {
					m = strings.ReplaceAll(m, filepath.Join(r.specs[0].Binds[0].Path, "junit-1.xml"), "$REPORT")
				}
				failures = append(failures, elapsed.ReplaceAllString(m, "in $$TIME"))
			}
			if !slices.EqualFunc(failures, c.failures, func(got, want string) bool {
				head, cut := strings.CutSuffix(want, "…")
				return got == want || cut && strings.HasPrefix(got, head)
			}) {
				t.Errorf("failures:\ngot  %q\nwant %q", failures, c.failures)
			}
		})
	}
}

// elapsed is pytest's time taken.
var elapsed = regexp.MustCompile(`in [0-9.]+s`)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name     string
		ctx      context.Context
		dir      string
		commands [][]string
		want     error
		wantMsg  string
		ran      int // commands the runner was asked to run
		results  int // results returned
	}{
		{name: "no commands", want: lunad.ErrInvalid, wantMsg: "no test commands to run; set [tests] commands in .luna/config.toml or pass --test"},
		{name: "an empty command", commands: [][]string{{"true"}, {}}, want: lunad.ErrInvalid, wantMsg: "a test command is empty"},
		{name: "pytest with its own report", commands: [][]string{{"true"}, {"pytest", "--junitxml=r.xml"}}, want: lunad.ErrInvalid, wantMsg: "sets --junitxml itself"},
		{name: "a directory the runner refuses", dir: "/", commands: [][]string{{"true"}}, want: lunad.ErrInvalid, wantMsg: "test command true: ", ran: 1},
		{name: "a program that does not exist", commands: [][]string{{"true"}, {"no-such-program-lunad"}}, want: exec.ErrNotFound, wantMsg: "test command no-such-program-lunad: ", ran: 2, results: 1},
		{name: "cancelled", ctx: cancelled, commands: [][]string{{"true"}}, want: context.Canceled, wantMsg: "test command true not run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := workspace(t)
			if c.dir != "" {
				base.Dir = c.dir
			}
			ctx := c.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			r := &execRunner{}
			s, results, err := Run(ctx, r, base, c.commands)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.wantMsg) {
				t.Fatalf("error %v; want one wrapping %v with %q", err, c.want, c.wantMsg)
			}
			if len(r.specs) != c.ran || len(results) != c.results || len(s.Commands) != c.results {
				t.Errorf("%d run, %d results, %d commands; want %d run, %d of each", len(r.specs), len(results), len(s.Commands), c.ran, c.results)
			}
		})
	}
}
