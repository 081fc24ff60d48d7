package harness

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/sandbox"
)

var update = flag.Bool("update", false, "capture the sample projects' real test outputs into testdata and rewrite the golden files")

// execRunner is a test Runner that really runs the command, without a
// sandbox: os/exec in Spec.Dir with Spec.Env on top of PATH, HOME
// (Spec.Home), TMPDIR and LANG; a bind is a path that must exist (it is
// seen at its own path, as in the sandbox). When
// cap is set, each stream keeps its head and tail halves of cap bytes
// with a line saying what was cut, as sandbox.Output does. It records
// the specs it ran.
type execRunner struct {
	cap   int
	mu    sync.Mutex
	specs []sandbox.Spec
}

func (r *execRunner) Run(ctx context.Context, s sandbox.Spec) (sandbox.Result, error) {
	r.mu.Lock()
	r.specs = append(r.specs, s)
	r.mu.Unlock()
	if rel, err := filepath.Rel(s.Root, s.Dir); err != nil || strings.HasPrefix(rel, "..") || !filepath.IsAbs(s.Dir) {
		return sandbox.Result{}, fmt.Errorf("%w: directory %s is outside the workspace %s", lunad.ErrInvalid, s.Dir, s.Root)
	}
	for _, b := range s.Binds {
		if _, err := os.Stat(b.Path); err != nil {
			return sandbox.Result{}, fmt.Errorf("%w: bind %s: %v", lunad.ErrInvalid, b.Path, err)
		}
	}
	cmd := exec.CommandContext(ctx, s.Argv[0], s.Argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.Home, "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8"}
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+s.Env[k])
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := sandbox.Result{Stdout: r.output(stdout.Bytes()), Stderr: r.output(stderr.Bytes()), Warning: "execRunner: no sandbox"}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return sandbox.Result{}, err
	}
	res.Duration = time.Since(start)
	return res, nil
}

func (r *execRunner) output(b []byte) sandbox.Output {
	o := sandbox.Output{Text: string(b), Total: int64(len(b))}
	if r.cap > 0 && len(b) > r.cap {
		half := r.cap / 2
		o.Cut = int64(len(b) - 2*half)
		o.Text = fmt.Sprintf("%s\n[… %d bytes cut …]\n%s", b[:half], o.Cut, b[len(b)-half:])
	}
	return o
}

// sample copies testdata/NAME into a new temporary directory and returns
// the copy's path.
func sample(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pytestPath is Debian's pytest (python3-pytest).
func pytestPath(t testing.TB) string {
	t.Helper()
	const p = "/usr/bin/pytest-3"
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%v: install Debian's python3-pytest (apt-get install -y python3-pytest; .ci/run does)", err)
	}
	return p
}

// goEnv is what go needs in a fresh HOME: this toolchain only, the
// host's build cache (so the sample builds fast), no inherited GOFLAGS.
func goEnv(t testing.TB) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	return map[string]string{"GOTOOLCHAIN": "local", "GOFLAGS": "", "GOCACHE": strings.TrimSpace(string(out))}
}

// golden compares got with testdata/NAME, or writes it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test ./harness -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./harness -run '%s' -update rewrites it)\ngot:\n%s\nwant:\n%s", p, t.Name(), got, want)
	}
}

// captures are the real outputs the parsers' tests read: each the
// output of a real run on a sample project under -update.
var captures = map[string]func(t testing.TB) []byte{
	// go test -json of testdata/gosample: a passing, a failing and a
	// skipped test, subtests, a panic and a package that fails to build.
	// -trimpath keeps the checkout's path out of the panic's stack.
	"gotest.json": func(t testing.TB) []byte {
		dir := sample(t, "gosample")
		cmd := exec.Command("go", "test", "-json", "-trimpath", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
		out, err := cmd.Output()
		if exit := (*exec.ExitError)(nil); !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("go test -json in %s: %v (exit 1 expected: the sample has failing tests)", dir, err)
		}
		return out
	},
	// pytest's JUnit report on testdata/pysample: passed, failed,
	// errored (a fixture that raises) and skipped.
	"pytest.xml": func(t testing.TB) []byte { return capturePytest(t, "pysample") },
	// pytest's JUnit report on testdata/pybroken: a module with a syntax
	// error, a collection error.
	"pytest-collect.xml": func(t testing.TB) []byte { return capturePytest(t, "pybroken") },
}

// capturePytest runs pytest on a copy of testdata/NAME and returns its
// JUnit report, the copy's path replaced by $SAMPLE so the report does
// not depend on where it ran.
func capturePytest(t testing.TB, name string) []byte {
	dir := sample(t, name)
	report := filepath.Join(t.TempDir(), "report.xml")
	cmd := exec.Command(pytestPath(t), "-q", "--junitxml="+report, "-p", "no:cacheprovider")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("pytest in %s passed; the sample has failing tests:\n%s", dir, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(data, []byte(dir), []byte("$SAMPLE"))
}

var captured sync.Map // name → []byte, this process's captures

// capture is testdata/NAME: the real output captures[NAME] produces,
// captured again under -update.
func capture(t testing.TB, name string) []byte {
	t.Helper()
	p := filepath.Join("testdata", name)
	if !*update {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (go test ./harness -update captures it)", err)
		}
		return data
	}
	if data, ok := captured.Load(name); ok {
		return data.([]byte)
	}
	data := captures[name](t)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	captured.Store(name, data)
	return data
}
