package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/lunad/lunad/gitstore"
)

var update = flag.Bool("update", false, "rewrite the want section of testdata/scenarios/*.txtar")

// TestScenarios runs the txtar scenarios in testdata/scenarios. Each
// archive holds:
//
//   - ws/PATH files: made artifacts in archive order (`lunad create`, the
//     title is the file name), in a new workspace;
//   - in/NAME files: inputs for commands, referred to as in/NAME;
//   - script: lunad command lines, one per line ('#' starts a comment),
//     run in-process with a fixed clock, IDs and author; `git ARGS` runs the
//     real git in the workspace (a commit at a fixed time);
//   - want: the transcript: each command, its stdout and stderr, and its
//     exit code when not 0. `go test -run TestScenarios -update` rewrites it.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := runScenario(t, ar)
			want := section(ar, "want")
			if got == want {
				return
			}
			if *update {
				setSection(ar, "want", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			t.Errorf("transcript differs (go test ./cmd/lunad -run TestScenarios -update to accept)\n--- got\n%s\n--- want\n%s", got, want)
		})
	}
}

func section(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

func setSection(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}

// scenarioMain returns a Main for one command of a scenario: fixed
// author, a clock ticking one minute per commit from a fixed date, and
// sequential IDs that survive across commands.
func scenarioMain(clock *time.Time, ids *int) *Main {
	env := map[string]string{"LUNAD_AUTHOR_NAME": "Ada Lovelace", "LUNAD_AUTHOR_EMAIL": "ada@example.com", "LUNAD_LOCK_TIMEOUT": "5s"}
	return &Main{
		Getenv: func(k string) string { return env[k] },
		Options: func(o *gitstore.Options) {
			o.Clock = func() time.Time { *clock = clock.Add(time.Minute); return *clock }
			o.NewID = func() string { *ids++; return fmt.Sprintf("a%07d", *ids) }
		},
	}
}

func runScenario(t *testing.T, ar *txtar.Archive) string {
	root := t.TempDir()
	dir, in := filepath.Join(root, "ws"), filepath.Join(root, "in")
	for _, d := range []string{dir, in} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	clock, ids := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 0
	run := func(args ...string) (string, error) {
		out, errs, err := runMain(scenarioMain(&clock, &ids), "", append([]string{"--dir", dir}, args...)...)
		return out + errs, err
	}
	if out, err := run("init"); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	for _, f := range ar.Files {
		name, isWS := strings.CutPrefix(f.Name, "ws/")
		target := filepath.Join(in, strings.TrimPrefix(f.Name, "in/"))
		if !isWS && !strings.HasPrefix(f.Name, "in/") {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		if isWS {
			if out, err := run("create", "--title", filepath.Base(name), "--path", name, "--content-file", target); err != nil {
				t.Fatalf("create %s: %v\n%s", name, err, out)
			}
		}
	}
	var tr strings.Builder
	for _, line := range strings.Split(section(ar, "script"), "\n") {
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ') {
			line = line[:i]
		}
		args := strings.Fields(line)
		if len(args) == 0 {
			continue
		}
		fmt.Fprintf(&tr, "$ %s\n", strings.Join(args, " "))
		for i, a := range args {
			if rest, ok := strings.CutPrefix(a, "in/"); ok {
				args[i] = filepath.Join(in, rest)
			}
		}
		var out string
		var err error
		switch args[0] {
		case "lunad":
			out, err = run(args[1:]...)
			if code := ExitCode(err); code != 0 {
				out += fmt.Sprintf("[exit %d]\n", code)
			}
		case "git":
			// A commit made by hand has a fixed time, so that it and the
			// commits after it have the same hashes on every run.
			out = gitEnv(t, dir, root, []string{"GIT_AUTHOR_DATE=2026-01-01T01:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T01:00:00Z"}, args[1:]...)
		default:
			t.Fatalf("script line %q: commands are lunad or git", line)
		}
		tr.WriteString(out)
	}
	return tr.String()
}
