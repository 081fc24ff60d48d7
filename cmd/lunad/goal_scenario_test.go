package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon/rpc"
)

// sharedSandboxHome is the goals' commands' home every test of the package
// shares (LUNAD_SANDBOX_HOME), so that go's build cache in it compiles
// the standard library once per test binary, not once per goal. It lies
// beside the binary under test, which TestMain removes.
var sharedSandboxHome = sync.OnceValue(func() string {
	dir := filepath.Join(filepath.Dir(lunadBin), "sandbox-home")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		panic(err)
	}
	return dir
})

// goalProject is a sample project of testdata/goal with one failing test,
// and its test command.
type goalProject struct {
	name  string
	tests string // [tests] commands, TOML
}

var (
	goProject     = goalProject{"go", `[["go", "test", "./..."]]`}
	pythonProject = goalProject{"python", `[["pytest", "-q"]]`}
)

// goalWS is a workspace made by lunad init in the git repository of the
// project p (which adopts its files), whose daemon (a real lunad serve process, which the test
// starts) calls the model server at url; withTests configures p's tests
// in [tests]. The configuration is committed: a goal starts from a clean
// workspace.
func goalWS(t *testing.T, p goalProject, url string, withTests bool) *ws {
	t.Helper()
	w := newDir(t)
	src := filepath.Join("testdata", "goal", p.name)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.git("init", "-q", "-b", "main")
	w.git("add", "-A")
	w.git("commit", "-q", "-m", "the "+p.name+" project")
	w.ok("init")
	cfg := fmt.Sprintf("[llm]\nprovider = \"openai\"\nbase_url = %q\nmodel = \"gpt-test\"\n", url)
	if withTests {
		cfg += "\n[tests]\ncommands = " + p.tests + "\n"
	}
	if err := os.WriteFile(filepath.Join(w.dir, ".luna", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	w.git("add", "-A")
	w.git("commit", "-q", "-m", "configure the model and the tests")
	w.env = append(w.env, "OPENAI_API_KEY="+scenarioKey, "LUNAD_SANDBOX_HOME="+sharedSandboxHome())
	return w
}

// goal runs lunad goal --json, which must exit 0, and returns its result
// and its progress (stderr).
func (w *ws) goal(args ...string) (lunad.GoalResult, string) {
	w.t.Helper()
	r := w.run(append([]string{"goal"}, append(args, "--json")...)...)
	if r.code != 0 {
		w.t.Fatalf("want success:\n%s", r)
	}
	var res lunad.GoalResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		w.t.Fatalf("lunad goal --json: %v\n%s", err, r)
	}
	return res, r.stderr
}

// goalLog is the goal branch's commits, oldest first, each as
// "AUTHOR|LUNA-ACTION|LUNA-RUN|SUBJECT".
func (w *ws) goalLog(base, tip string) []string {
	w.t.Helper()
	out := w.git("log", "--reverse", "--format=%an|%(trailers:key=Luna-Action,valueonly,separator=)|%(trailers:key=Luna-Run,valueonly,separator=)|%s", base+".."+tip)
	return strings.Split(strings.TrimSpace(out), "\n")
}

// TestGoalScenario is the goal scenario end to end (make failing tests pass), on a sample Go
// project and a sample Python project, each with one failing test: a real
// daemon process, its goal agents calling a real HTTP server that speaks
// OpenAI's chat completions, commands and tests in the real bwrap sandbox.
// `lunad goal "make the tests pass"` ends finished with the tests green
// and 2 commits on luna/goal/RUN (git log shows each one's Luna-Action),
// the user's branch untouched and the report kept; goal show prints the
// report and the trace; goal accept fast-forwards the user's branch to the
// goal's; a second goal, discarded, leaves no branch or worktree.
func TestGoalScenario(t *testing.T) {
	for _, p := range []goalProject{goProject, pythonProject} {
		t.Run(p.name, func(t *testing.T) {
			m := &testModel{Key: scenarioKey}
			srv := openAIServer(t, m)
			w := goalWS(t, p, srv.URL+"/v1", true)
			d := w.serve()
			defer func() {
				if t.Failed() {
					t.Logf("the daemon's log:\n%s", d.stderr)
				}
			}()
			base, branch := w.head(), strings.TrimSpace(w.git("branch", "--show-current"))

			res, progress := w.goal("make the tests pass")
			if res.Outcome != lunad.GoalFinished || res.TestsBefore == nil || res.TestsBefore.OK || res.TestsAfter == nil || !res.TestsAfter.OK {
				t.Fatalf("result %+v\nprogress:\n%s", res, progress)
			}
			if res.Branch != "luna/goal/"+res.Run || res.Base != base || res.Steps != 6 || res.Report != "report.md" || !strings.HasPrefix(res.Sandbox, "bwrap ") {
				t.Errorf("result: branch %s, base %s (want %s), steps %d, report %q, sandbox %q", res.Branch, res.Base, base, res.Steps, res.Report, res.Sandbox)
			}
			for _, want := range []string{"goal " + res.Run + ": started on luna/goal/" + res.Run + " (from " + branch + " at " + base[:8] + ")",
				"  tests at the start: FAIL", "  step 1/30: search \"a - b\" → ok", "  step 3/30: edit_artifact calc.", " → ok, changed calc.",
				"    committed ", "  tests after step 3: ok", "  step 5/30: run_tests → ok", "  step 6/30: finish → ok", "  finished"} {
				if !strings.Contains(progress, want) {
					t.Errorf("the progress lacks %q:\n%s", want, progress)
				}
			}

			// The goal's branch: a commit per change, with its action.
			if w.head() != base || !strings.Contains(w.git("status", "--porcelain"), "") {
				t.Fatalf("the user's branch moved: HEAD %s, base %s", w.head(), base)
			}
			log := w.goalLog(base, res.Branch)
			want := []string{"goal|edit_artifact|" + res.Run, "goal|write_file|" + res.Run}
			if len(log) != len(want) || len(res.Commits) != len(want) {
				t.Fatalf("git log %s..%s:\n%s\nresult commits %v", base, res.Branch, strings.Join(log, "\n"), res.Commits)
			}
			for i, l := range log {
				if !strings.HasPrefix(l, want[i]+"|") {
					t.Errorf("commit %d: %q, want %s|…", i+1, l, want[i])
				}
			}
			if tip := strings.TrimSpace(w.git("rev-parse", res.Branch)); tip != res.Head || tip != res.Commits[1] {
				t.Errorf("branch tip %s, result head %s, commits %v", tip, res.Head, res.Commits)
			}
			if st := w.git("status", "--porcelain", "--untracked-files=all"); st != "" {
				t.Fatalf("the user's checkout changed:\n%s", st)
			}

			// The report and the trace.
			report := w.ok("goal", "show", res.Run)
			for _, want := range []string{"# Goal: make the tests pass", "- Outcome: **finished**", "| before | FAIL |", "| after (step 5) | ok |"} {
				if !strings.Contains(report, want) {
					t.Errorf("goal show lacks %q:\n%s", want, report)
				}
			}
			files, err := lunad.GoalFilesOf(w.dir, res.Run)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(files.Report); err != nil || string(b) != report {
				t.Errorf("the report file %s: %v", files.Report, err)
			}
			var doc lunad.GoalTrace
			w.jsonOut(&doc, "goal", "show", res.Run)
			var tools []string
			for _, s := range doc.Trace {
				tools = append(tools, s.Action.Tool)
			}
			if doc.Result.Run != res.Run || !slices.Equal(tools, []string{"search", "read_artifact", "edit_artifact", "write_file", "run_tests", "finish"}) {
				t.Errorf("goal show --json: result run %s, trace %v", doc.Result.Run, tools)
			}
			if list := w.ok("goal", "list"); !strings.Contains(list, res.Run) || !strings.Contains(list, "open") {
				t.Errorf("goal list:\n%s", list)
			}

			// A second attempt, from the same commit, discarded.
			second, _ := w.goal("make the tests pass")
			if second.Outcome != lunad.GoalFinished || len(second.Commits) != 2 || second.Base != base {
				t.Fatalf("the second goal: %+v", second)
			}
			if out := w.ok("goal", "discard", second.Run); !strings.Contains(out, "discarded goal "+second.Run) {
				t.Errorf("goal discard: %s", out)
			}
			if report := w.ok("goal", "show", second.Run); !strings.Contains(report, "# Goal: make the tests pass") {
				t.Errorf("goal show of the discarded goal:\n%s", report)
			}
			if b := w.git("branch", "--list", second.Branch); b != "" {
				t.Errorf("the discarded goal's branch is still there: %s", b)
			}
			if _, err := os.Stat(filepath.Join(w.dir, ".git", "luna", "worktrees", second.Run)); !os.IsNotExist(err) {
				t.Errorf("the discarded goal's worktree is still there: %v", err)
			}

			// Accepted: the user's branch takes the goal's commits.
			if out := w.ok("goal", "accept", res.Run); !strings.Contains(out, "accepted goal "+res.Run+": "+branch+" is at "+res.Head[:8]) {
				t.Errorf("goal accept: %s", out)
			}
			if w.head() != res.Head || !slices.Equal(w.goalLog(base, "HEAD"), log) {
				t.Fatalf("after accept HEAD is %s (want %s):\n%s", w.head(), res.Head, w.git("log", "--oneline", "-5"))
			}
			if b := w.git("branch", "--list", res.Branch); b != "" {
				t.Errorf("the accepted goal's branch is still there: %s", b)
			}
			if f, _ := os.ReadFile(filepath.Join(w.dir, "calc."+map[string]string{"go": "go", "python": "py"}[p.name])); !strings.Contains(string(f), "a + b") {
				t.Errorf("the working tree does not have the fix:\n%s", f)
			}
			if list := w.ok("goal", "list"); !strings.Contains(list, "accepted") || !strings.Contains(list, "discarded") {
				t.Errorf("goal list:\n%s", list)
			}
			// git status clean and fsck --strict, the daemon stopped (it
			// packs objects in the background: git would see a pack
			// before its index).
			if err := d.stop(t, syscall.SIGTERM); err != nil {
				t.Errorf("lunad serve: %v", err)
			}
			w.clean()
		})
	}
}

// TestGoalBadInput: a goal that cannot start says what to fix and starts
// nothing; a goal without tests runs and its report says none ran.
func TestGoalBadInput(t *testing.T) {
	m := &testModel{Key: scenarioKey}
	srv := openAIServer(t, m)

	t.Run("dirty workspace", func(t *testing.T) {
		w := goalWS(t, pythonProject, srv.URL+"/v1", true)
		// Saves stay uncommitted (the daemon would record them otherwise).
		w.env = append(w.env, "LUNAD_RECORD_SAVES=false")
		w.serve()
		if err := os.WriteFile(filepath.Join(w.dir, "calc.py"), []byte("def add(a, b):\n    return a + b\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		head := w.head()
		r := w.run("goal", "make the tests pass")
		if r.code != 1 || !strings.Contains(r.stderr, "no goal was started") || !strings.Contains(r.stderr, "calc.py") {
			t.Fatalf("want exit 1 naming calc.py:\n%s", r)
		}
		if w.head() != head || w.git("branch", "--list", "luna/goal/*") != "" || strings.TrimSpace(w.ok("goal", "list")) != "RUN  STATUS  BRANCH  STATE  UPDATED  GOAL" {
			t.Fatalf("something was started: HEAD %s (was %s), branches %q", w.head(), head, w.git("branch", "--list"))
		}
	})

	t.Run("no tests configured", func(t *testing.T) {
		w := goalWS(t, pythonProject, srv.URL+"/v1", false)
		w.serve()
		res, progress := w.goal("make the tests pass")
		if res.Outcome != lunad.GoalFinished || res.TestsBefore != nil || res.TestsAfter != nil || len(res.Commits) != 2 {
			t.Fatalf("result %+v\n%s", res, progress)
		}
		if !strings.Contains(progress, "no tests configured") {
			t.Errorf("the progress does not say no tests run:\n%s", progress)
		}
		report := w.ok("goal", "show", res.Run)
		if !strings.Contains(strings.ToLower(report), "no tests") {
			t.Errorf("the report does not say no tests ran:\n%s", report)
		}
	})

	t.Run("usage", func(t *testing.T) {
		w := goalWS(t, pythonProject, srv.URL+"/v1", true)
		for _, c := range []struct {
			code int
			want string
			args []string
		}{
			{1, "the goal is empty", []string{"goal", "  "}},
			{1, "--max-steps -1", []string{"goal", "x", "--max-steps", "-1"}},
			{1, "its ' quote is not closed", []string{"goal", "x", "--test", "pytest 'a"}},
			{1, "--dry-run and --plan together", []string{"goal", "x", "--dry-run", "--plan"}},
			{2, "unknown form: goal show", []string{"goal", "show"}},
			{2, "takes no --max-steps", []string{"goal", "show", "R", "--max-steps", "3"}},
			{5, "no run", []string{"goal", "show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"}},
		} {
			w.fail(c.code, c.want, c.args...)
		}
	})
}

// TestGoalPlanAndDryRun: --plan prints the model's plan and does nothing;
// --dry-run lets the model propose its actions, checks each with the
// policy and does none of them. Both exit 0 and commit nothing.
func TestGoalPlanAndDryRun(t *testing.T) {
	m := &testModel{Key: scenarioKey}
	srv := openAIServer(t, m)
	w := goalWS(t, pythonProject, srv.URL+"/v1", true)
	w.serve()
	head := w.head()

	r := w.run("goal", "make the tests pass", "--plan")
	if r.code != 0 || !strings.Contains(r.stdout, ": planned\n") || !strings.Contains(r.stdout, "plan:\n  1. Search the code for the subtraction in add.\n  2. Read") ||
		!strings.Contains(r.stdout, "0 commits") || !strings.Contains(r.stderr, "  plan ready\n") {
		t.Fatalf("lunad goal --plan:\n%s", r)
	}
	res, progress := w.goal("make the tests pass", "--dry-run")
	if res.Outcome != lunad.GoalDryRun || len(res.Commits) != 0 || res.TestsBefore != nil || res.Steps < 4 {
		t.Fatalf("--dry-run: %+v\n%s", res, progress)
	}
	if !strings.Contains(progress, "edit_artifact calc.py → skipped") || !strings.Contains(progress, "write_file test_add.py → skipped") {
		t.Errorf("the dry run's progress:\n%s", progress)
	}
	if w.head() != head || !strings.Contains(w.workFile("calc.py"), "a - b") {
		t.Fatalf("a plan or a dry run changed the workspace: HEAD %s (was %s)", w.head(), head)
	}
}

// TestGoalPolicy: the daemon checks each action with the workspace's
// .luna/policy.toml; an action it wants confirmed is denied — the daemon
// has no terminal to ask on —, and the model is told so, with the rule.
func TestGoalPolicy(t *testing.T) {
	m := &testModel{Key: scenarioKey}
	srv := openAIServer(t, m)
	w := goalWS(t, pythonProject, srv.URL+"/v1", true)
	if err := os.WriteFile(filepath.Join(w.dir, ".luna", "policy.toml"), []byte("[[confirm]]\nname = \"new-tests\"\ntools = [\"write_file\"]\npaths = [\"test_*.py\"]\nreason = \"new tests are reviewed first\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.git("add", "-A")
	w.git("commit", "-q", "-m", "the policy")
	w.serve()
	res, progress := w.goal("make the tests pass")
	if res.Outcome != lunad.GoalFinished || len(res.Commits) != 1 || len(res.Denials) != 1 || res.Denials[0].Rule != "new-tests" || res.Denials[0].Tool != "write_file" {
		t.Fatalf("result %+v\n%s", res, progress)
	}
	if want := "step 4/30: write_file test_add.py → denied: denied by rule new-tests: new tests are reviewed first; no one confirmed it"; !strings.Contains(progress, want) {
		t.Errorf("the progress lacks %q:\n%s", want, progress)
	}
	if report := w.ok("goal", "show", res.Run); !strings.Contains(report, "new-tests") {
		t.Errorf("the report does not name the denial:\n%s", report)
	}
}

// TestGoalKilled: the daemon SIGKILLed in the middle of a goal, then
// started again, resumes the goal where it was: it finishes, each step's
// change is one commit on the goal's branch (none twice, none half), the
// worktree is the branch's tip, and git fsck --strict finds nothing wrong.
func TestGoalKilled(t *testing.T) {
	held, release := make(chan int, 1), make(chan struct{})
	m := &testModel{Key: scenarioKey, Hold: func(call int) {
		if call == 5 { // the model is asked for step 5, after two commits
			held <- call
			<-release
		}
	}}
	srv := openAIServer(t, m)
	w := goalWS(t, pythonProject, srv.URL+"/v1", true)
	d := w.serve()
	req, err := lunad.GoalSpec{Goal: "make the tests pass", Tests: [][]string{{"pytest", "-q"}}}.Request()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := rpc.Connect(ctx, w.dir, rpc.ConnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.StartRun(ctx, req)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatalf("the goal never asked for step 5:\n%s", d.stderr)
	}
	d.cmd.Process.Kill()
	d.wait(t)
	close(release) // the killed daemon's request is answered to no one

	d2 := w.serve()
	c, err = rpc.Connect(ctx, w.dir, rpc.ConnectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done, err := c.WaitRun(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := lunad.GoalResultOf(done)
	if err != nil || res.Outcome != lunad.GoalFinished || !res.TestsAfter.OK {
		t.Fatalf("after the restart: %+v, %v (run %s: %s)", res, err, done.Status, done.Error)
	}
	log := w.goalLog(res.Base, res.Branch)
	if len(log) != 2 || !strings.HasPrefix(log[0], "goal|edit_artifact|") || !strings.HasPrefix(log[1], "goal|write_file|") {
		t.Fatalf("the goal's branch after the restart:\n%s", strings.Join(log, "\n"))
	}
	wt := filepath.Join(w.dir, ".git", "luna", "worktrees", info.ID)
	if st := gitIn(t, wt, w.home, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("the goal's worktree is not its branch's tip:\n%s", st)
	}
	var doc lunad.GoalTrace
	w.jsonOut(&doc, "goal", "show", info.ID)
	for i, s := range doc.Trace {
		if s.Step != i+1 {
			t.Fatalf("trace steps: %+v", doc.Trace)
		}
	}
	if err := d2.stop(t, syscall.SIGTERM); err != nil {
		t.Errorf("lunad serve: %v", err)
	}
	w.git("fsck", "--strict", "--no-progress")
}

var goalTranscript = flag.String("goaltranscript", "", "TestGoalTranscript: write the session's terminal output to this file (docs/goals.md quotes it)")

// TestGoalTranscript runs the Python scenario as a person would — lunad
// doctor, lunad goal without --json, goal show, git log of the goal's
// branch, goal accept — and checks what the terminal shows. With
// -goaltranscript FILE it writes the session to FILE.
func TestGoalTranscript(t *testing.T) {
	m := &testModel{Key: scenarioKey}
	srv := openAIServer(t, m)
	w := goalWS(t, pythonProject, srv.URL+"/v1", true)
	w.serve()
	var session strings.Builder
	shell := func(cmd string, r result) {
		fmt.Fprintf(&session, "$ %s\n%s%s", cmd, r.stderr, r.stdout)
	}
	doctor := w.run("doctor")
	shell("lunad doctor", doctor)
	r := w.run("goal", "make the tests pass")
	shell(`lunad goal "make the tests pass"`, r)
	id := ""
	if m := regexp.MustCompile(`(?m)^goal (\S+): finished$`).FindStringSubmatch(r.stdout); m != nil {
		id = m[1]
	}
	if doctor.code != 0 || r.code != 0 || id == "" {
		t.Fatalf("lunad doctor:\n%s\nlunad goal:\n%s", doctor, r)
	}
	shell("lunad goal show "+id, w.run("goal", "show", id))
	const format = "%h %an | %(trailers:key=Luna-Action,valueonly,separator=) | %(trailers:key=Luna-Model,valueonly,separator=) | %(trailers:key=Luna-Prompt,valueonly,separator=) | %s"
	fmt.Fprintf(&session, "$ git log --format='%s' main..luna/goal/%s\n%s", format, id, w.git("log", "--format="+format, "main..luna/goal/"+id))
	shell("lunad goal accept "+id, w.run("goal", "accept", id))
	fmt.Fprintf(&session, "$ git log --oneline -3\n%s", w.git("log", "--oneline", "-3"))
	out := session.String()
	for _, want := range []string{"sandbox: usable", "goals: can run", "goal " + id + ": started on luna/goal/" + id, "  step 3/30: edit_artifact calc.py → ok, changed calc.py",
		"tests:    FAIL (1 passed, 1 failed, 0 errored) → ok (3 passed, 0 failed, 0 errored)", "next:     lunad goal accept " + id,
		"# Goal: make the tests pass", "goal | edit_artifact | gpt-test | goal@", "goal | write_file | gpt-test | goal@", "accepted goal " + id + ": main is at ", "(2 commits from luna/goal/" + id + ")"} {
		if !strings.Contains(out, want) {
			t.Errorf("the session lacks %q:\n%s", want, out)
		}
	}
	if *goalTranscript != "" {
		if err := os.WriteFile(*goalTranscript, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
