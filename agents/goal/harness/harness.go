package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/sandbox"
)

// Runner runs one command; *sandbox.Runner is one. A command that exits
// non-zero, is killed or hits a limit is a Result; an error means it
// could not be run at all (a spec the sandbox refuses, a cancelled
// context).
type Runner interface {
	Run(ctx context.Context, s sandbox.Spec) (sandbox.Result, error)
}

// maxReport bounds the JUnit report the harness reads.
const maxReport = 16 << 20

// Run runs the test commands one after the other with r, each as base
// says (Root, Dir — Root when empty —, Home, Env, limits, …; base.Argv
// is not used), and sums their verdicts: go test runs with -json added
// (if absent) and its stream is parsed (ParseGoTest); pytest runs with
// --junitxml=FILE and -p no:cacheprovider added and
// PYTHONDONTWRITEBYTECODE=1 set, so it leaves nothing in the workspace,
// FILE lying in a directory of the harness's own bound writable into
// the sandbox (a sandbox.Bind, at its own path) and parsed
// (ParseJUnit); any other command counts as one test, passed when it
// exits 0. A parsed command that fails without a failure to show (go
// test of a package that does not exist, pytest's usage errors, a
// report that cannot be read) is one errored test, its message the end
// of its output. OK says every command exited 0 and no test failed or
// errored (pytest's report could be read); Commands holds each
// command as it was given (without the harness's additions), its
// directory relative to Root, exit code, duration and the bytes its
// output cap cut (counts parsed from a cut output may be partial);
// their Step is left to the caller. The Results are the Runner's, one
// per command run.
//
// Errors: no commands, an empty one, or a pytest command with its own
// --junitxml wrap lunad.ErrInvalid and run nothing; a Runner's error
// stops the run and is returned wrapped, naming the command, with the
// summary and results of the commands run before it.
func Run(ctx context.Context, r Runner, base sandbox.Spec, commands [][]string) (lunad.TestSummary, []sandbox.Result, error) {
	s := lunad.TestSummary{OK: true, Commands: []lunad.GoalCommand{}}
	if len(commands) == 0 {
		return s, nil, fmt.Errorf("%w: no test commands to run; set [tests] commands in .luna/config.toml or pass --test", lunad.ErrInvalid)
	}
	scratch := ""
	for _, argv := range commands {
		inv, err := rewrite(argv, "")
		if err != nil {
			return s, nil, err
		}
		if inv.kind == pytest && scratch == "" {
			if scratch, err = os.MkdirTemp("", "luna-harness-"); err != nil {
				return s, nil, fmt.Errorf("making the directory for pytest's JUnit reports (TMPDIR): %w", err)
			}
			defer os.RemoveAll(scratch)
		}
	}
	if base.Dir == "" {
		base.Dir = base.Root
	}
	dir, err := filepath.Rel(base.Root, base.Dir)
	if err != nil || strings.HasPrefix(dir, "..") {
		dir = base.Dir
	}
	results := make([]sandbox.Result, 0, len(commands))
	for i, argv := range commands {
		if err := ctx.Err(); err != nil {
			return s, results, fmt.Errorf("test command %s not run: %w", commandLine(argv), err)
		}
		report := ""
		if scratch != "" {
			report = filepath.Join(scratch, fmt.Sprintf("junit-%d.xml", i+1))
		}
		inv, _ := rewrite(argv, report) // checked above
		res, err := r.Run(ctx, specFor(base, inv, scratch))
		if err != nil {
			return s, results, fmt.Errorf("test command %s: %w", commandLine(argv), err)
		}
		results = append(results, res)
		s.Commands = append(s.Commands, lunad.GoalCommand{
			Argv: clone(argv), Dir: dir, ExitCode: res.ExitCode, Ended: res.Ended,
			Duration: res.Duration, OutputCut: res.Stdout.Cut + res.Stderr.Cut,
		})
		exited0 := res.ExitCode == 0 && res.Ended == ""
		part := verdict(inv, argv, report, res, exited0)
		s.OK = s.OK && exited0 && part.Failed+part.Errored == 0
		add(&s, part)
	}
	return s, results, nil
}

// specFor is base running inv (pytest: with the report directory bound
// at its own path, PYTHONDONTWRITEBYTECODE set).
func specFor(base sandbox.Spec, inv invocation, scratch string) sandbox.Spec {
	spec := base
	spec.Argv = inv.argv
	spec.Env = make(map[string]string, len(base.Env)+len(inv.env))
	for k, v := range base.Env {
		spec.Env[k] = v
	}
	for k, v := range inv.env {
		spec.Env[k] = v
	}
	if inv.kind == pytest {
		spec.Binds = append(append([]sandbox.Bind(nil), base.Binds...), sandbox.Bind{Path: scratch, Writable: true})
	}
	return spec
}

// verdict is one command's part of the summary.
func verdict(inv invocation, argv []string, report string, res sandbox.Result, exited0 bool) lunad.TestSummary {
	var part lunad.TestSummary
	var note string
	output := res.Stdout.Text + "\n" + res.Stderr.Text
	switch inv.kind {
	case goTest:
		p := newGoParser()
		_ = p.read(strings.NewReader(res.Stdout.Text)) // a string reader does not fail
		part = p.summary(res.Stdout.Cut > 0)
		output = res.Stderr.Text
	case pytest:
		data, err := readReport(report)
		if err == nil && data != nil {
			part, err = ParseJUnit(data)
		}
		if err != nil {
			note = err.Error()
		}
	default:
		if exited0 {
			part.Passed = 1
			return part
		}
		part.Failed = 1
		part.Failures = []lunad.TestFailure{{Name: commandLine(argv), Message: commandMessage(res, "", output)}}
		return part
	}
	if note == "" && (exited0 || part.Failed+part.Errored > 0) {
		return part
	}
	part.Errored++
	part.Failures = append([]lunad.TestFailure{{Name: commandLine(argv), Message: commandMessage(res, note, output)}}, part.Failures...)
	return part
}

// commandMessage says how a command ended, why its verdict is missing
// (note) and the end of its output.
func commandMessage(res sandbox.Result, note, output string) string {
	var how string
	switch {
	case res.Ended != "":
		how = "stopped by lunad: " + res.Ended
	case res.Signal != "":
		how = "killed by " + res.Signal
	default:
		how = fmt.Sprintf("exit status %d", res.ExitCode)
	}
	lines := []string{how}
	if note != "" {
		lines = append(lines, note)
	}
	if tail := tailLines(output); tail != "" {
		lines = append(lines, tail)
	}
	return headLines(strings.Join(lines, "\n"))
}

// add sums part into s, keeping the first MaxFailures failures.
func add(s *lunad.TestSummary, part lunad.TestSummary) {
	s.Passed += part.Passed
	s.Failed += part.Failed
	s.Errored += part.Errored
	s.Skipped += part.Skipped
	for _, f := range part.Failures {
		if len(s.Failures) < MaxFailures {
			s.Failures = append(s.Failures, f)
		}
	}
}

// readReport reads the JUnit report pytest wrote: nil when there is
// none (pytest stopped before writing it). It follows no symlink and
// reads only a regular file, at most maxReport bytes: the command that
// wrote it runs the workspace's code and could have put anything there.
func readReport(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pytest's JUnit report cannot be opened (a regular file is expected): %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("pytest's JUnit report: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: pytest's JUnit report is not a regular file (%s)", lunad.ErrInvalid, info.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReport+1))
	if err != nil {
		return nil, fmt.Errorf("reading pytest's JUnit report: %w", err)
	}
	if len(data) > maxReport {
		return nil, fmt.Errorf("%w: pytest's JUnit report is larger than %d MiB; run fewer tests per command (split [tests] commands in .luna/config.toml)", lunad.ErrInvalid, maxReport>>20)
	}
	return data, nil
}
