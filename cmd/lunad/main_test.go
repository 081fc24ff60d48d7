package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunad/lunad/sandbox/shim/shimtest"
)

// lunadBin is the binary under test, built once by TestMain.
var lunadBin string

func TestMain(m *testing.M) {
	removeShim := shimtest.Install() // lunad-shim next to this test binary, for goals run in-process
	code := buildAndRun(m)
	removeShim()
	os.Exit(code)
}

func buildAndRun(m *testing.M) int {
	// Fuzzing (the coordinator and each of its workers) needs no binary.
	flag.Parse()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		return m.Run()
	}
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "lunad-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	lunadBin = filepath.Join(dir, "lunad")
	build := exec.Command("go", "build", "-o", lunadBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building lunad:", err)
		return 1
	}
	// lunad-shim next to lunad, as `make build` puts it.
	if _, err := shimtest.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// env is the environment of every lunad and git process the tests run:
// a private HOME, no system git config, a fixed author.
func env(home string, extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"LANG=C",
		"LUNAD_AUTHOR_NAME=Ada Lovelace",
		"LUNAD_AUTHOR_EMAIL=ada@example.com",
		"LUNAD_LOCK_TIMEOUT=5s",
	}, extra...)
}

// ws is a workspace directory and the environment to run lunad in it.
type ws struct {
	t    *testing.T
	dir  string
	home string
	env  []string // extra environment
}

// newDir returns a ws for an empty directory (no workspace yet).
func newDir(t *testing.T) *ws {
	t.Helper()
	tmp := t.TempDir()
	w := &ws{t: t, dir: filepath.Join(tmp, "w"), home: filepath.Join(tmp, "home")}
	for _, d := range []string{w.dir, w.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// newWS returns an initialised, empty workspace.
func newWS(t *testing.T) *ws {
	t.Helper()
	w := newDir(t)
	w.ok("init")
	return w
}

// newWSWith returns an initialised workspace holding one artifact at path,
// and the artifact's ID.
func newWSWith(t *testing.T, path, content string) (*ws, string) {
	t.Helper()
	w := newWS(t)
	return w, w.create(path, content)
}

// subtest runs f as the subtest name of t, with w reporting to it.
func (w *ws) subtest(t *testing.T, name string, f func(t *testing.T)) bool {
	t.Helper()
	return t.Run(name, func(t *testing.T) {
		parent := w.t
		w.t = t
		defer func() { w.t = parent }()
		f(t)
	})
}

// result is one lunad run.
type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("lunad %q: exit %d\nstdout:\n%s\nstderr:\n%s", r.args, r.code, r.stdout, r.stderr)
}

// run runs lunad with --dir w.dir appended (unless noDir) and stdin.
func (w *ws) runIn(stdin string, noDir bool, args ...string) result {
	w.t.Helper()
	if !noDir {
		args = append(args, "--dir", w.dir)
	}
	cmd := exec.Command(lunadBin, args...)
	cmd.Dir = w.dir
	cmd.Env = env(w.home, w.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("run lunad: %v", err)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		w.t.Fatalf("lunad panicked:\n%s", r)
	}
	return r
}

func (w *ws) run(args ...string) result {
	w.t.Helper()
	return w.runIn("", false, args...)
}

// ok runs lunad, fails the test unless it exits 0, and returns stdout.
func (w *ws) ok(args ...string) string {
	w.t.Helper()
	r := w.run(args...)
	if r.code != 0 {
		w.t.Fatalf("want success:\n%s", r)
	}
	return r.stdout
}

// okIn is ok with standard input.
func (w *ws) okIn(stdin string, args ...string) string {
	w.t.Helper()
	r := w.runIn(stdin, false, args...)
	if r.code != 0 {
		w.t.Fatalf("want success:\n%s", r)
	}
	return r.stdout
}

// fail runs lunad and checks its exit code and that stderr mentions want.
func (w *ws) fail(code int, want string, args ...string) result {
	w.t.Helper()
	r := w.run(args...)
	w.checkFail(r, code, want)
	return r
}

func (w *ws) checkFail(r result, code int, want string) {
	w.t.Helper()
	if r.code != code {
		w.t.Fatalf("want exit %d:\n%s", code, r)
	}
	if !strings.HasPrefix(r.stderr, "lunad: ") || !strings.Contains(r.stderr, want) {
		w.t.Fatalf("want stderr starting with \"lunad: \" and mentioning %q:\n%s", want, r)
	}
	if r.stdout != "" {
		w.t.Fatalf("want no stdout on failure:\n%s", r)
	}
}

// runMain runs m in-process as main does: with stdin and args, its error
// reported on its stderr.
func runMain(m *Main, stdin string, args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	m.Stdin, m.Stdout, m.Stderr = strings.NewReader(stdin), &out, &errb
	if err = m.Run(context.Background(), args); err != nil {
		m.reportError(err)
	}
	return out.String(), errb.String(), err
}

// jsonOut runs lunad with --json and decodes stdout into v.
func (w *ws) jsonOut(v any, args ...string) {
	w.t.Helper()
	out := w.ok(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		w.t.Fatalf("lunad %q --json: %v\n%s", args, err, out)
	}
}

// file writes a file (outside the workspace unless name is relative to
// w.dir's parent) and returns its path.
func (w *ws) file(name, content string) string {
	w.t.Helper()
	p := filepath.Join(filepath.Dir(w.dir), "in", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// put writes a file in the workspace, its directories made.
func (w *ws) put(name, content string) {
	w.t.Helper()
	p := filepath.Join(w.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// create makes an artifact and returns its ID.
func (w *ws) create(path, content string, args ...string) string {
	w.t.Helper()
	out := w.ok(append([]string{"create", "--title", "T " + path, "--path", path, "--content-file", w.file("create-"+strings.ReplaceAll(path, "/", "_"), content)}, args...)...)
	id := strings.TrimSpace(out)
	if id == "" || strings.ContainsAny(id, " \n") {
		w.t.Fatalf("create printed %q, want one ID", out)
	}
	return id
}

// show returns an artifact's content as lunad prints it.
func (w *ws) show(ref string) string {
	w.t.Helper()
	return w.ok("show", ref)
}

// bothModes runs f as two subtests: lunad working in-process, and through
// a running `lunad serve` (f starts it when withDaemon).
func bothModes(t *testing.T, f func(t *testing.T, withDaemon bool)) {
	t.Helper()
	t.Run("without daemon", func(t *testing.T) { f(t, false) })
	t.Run("with daemon", func(t *testing.T) { f(t, true) })
}
