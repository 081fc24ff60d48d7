package lunad

import (
	"encoding/json"
	"fmt"
	"strings"
)

// goalStageState is the part of a goal stage's output GoalProgress reads:
// every stage of the goal workflow outputs the goal's state (package
// agents/goal), whose fields below are a contract — the step count and
// limit, the latest steps in full (the last one is the step an act stage
// just took), the latest test result and the step it followed, and the
// plan of a --plan goal.
type goalStageState struct {
	Steps     int          `json:"steps"`
	MaxSteps  int          `json:"max_steps"`
	Recent    []GoalStep   `json:"recent"`
	Tests     *TestSummary `json:"tests"`
	TestsStep int          `json:"tests_step"`
	Tested    bool         `json:"tested"`
	Plan      string       `json:"plan"`
	Outcome   string       `json:"outcome"`
}

// GoalProgress words an event of a goal's run for a person following it,
// a line per step: "step 3/30: edit_artifact calc.go → ok, changed
// calc.go", "step 4/30: run_command curl example.com → denied by rule
// no-network: …", "tests after step 3: ok — 2 passed (go test ./...
// exit 0)", "committed a1b2c3d4: calc.go". Events of the engine's own
// (a stage starting, its succeeding, the run's end) are worded as
// RunEvent.Progress does; "" for those not worth a line.
func GoalProgress(e RunEvent) string {
	switch e.Type {
	case EventStageStarted:
		if e.Attempt > 1 {
			return e.Progress()
		}
		return ""
	case EventStageCommitted:
		return goalCommitted(e)
	case EventStageSucceeded:
	default:
		return e.Progress()
	}
	var st goalStageState
	if json.Unmarshal(e.Output, &st) != nil {
		return e.Progress()
	}
	switch e.Stage {
	case "begin":
		switch {
		case st.Plan != "":
			return "plan ready"
		case st.Tests != nil:
			return "tests at the start: " + TestVerdict(*st.Tests)
		case st.Outcome == "":
			return "no tests configured: none will run (--test, or [tests] commands in .luna/config.toml)"
		}
		return ""
	case "act":
		if len(st.Recent) == 0 {
			return ""
		}
		return goalStepLine(st.Recent[len(st.Recent)-1], st.MaxSteps)
	case "test":
		if st.Tests == nil {
			return ""
		}
		return fmt.Sprintf("tests after step %d: %s", st.TestsStep, TestVerdict(*st.Tests))
	case "report":
		return "report written"
	}
	return e.Progress()
}

// goalCommitted is the line of a STAGE_COMMITTED: the commit and paths.
func goalCommitted(e RunEvent) string {
	if len(e.Writes) == 0 {
		return ""
	}
	var paths []string
	commit := ""
	for _, w := range e.Writes {
		paths = append(paths, w.Path)
		if commit == "" {
			commit = w.Commit
		}
	}
	return fmt.Sprintf("  committed %s: %s", short(commit), strings.Join(paths, ", "))
}

// goalStepLine is one step: its action, in brief, and how it went.
func goalStepLine(s GoalStep, max int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %d", s.Step)
	if max > 0 {
		fmt.Fprintf(&b, "/%d", max)
	}
	fmt.Fprintf(&b, ": %s", s.Action.Tool)
	if what := actionBrief(s.Action); what != "" {
		b.WriteString(" " + what)
	}
	o := s.Observation
	b.WriteString(" → " + o.Status)
	switch o.Status {
	case "denied", "error":
		if line := oneLine(o.Output, 160); line != "" {
			b.WriteString(": " + line)
		}
	}
	if o.ExitCode != nil {
		fmt.Fprintf(&b, ", exit %d", *o.ExitCode)
	}
	if len(o.Files) > 0 {
		b.WriteString(", changed " + strings.Join(o.Files, ", "))
	}
	if o.Tests != nil {
		b.WriteString(", tests " + TestVerdict(*o.Tests))
	}
	return b.String()
}

// actionBrief is an action's arguments in a few words: its path, its
// command line, its query.
func actionBrief(a GoalAction) string {
	var args struct {
		Path  string   `json:"path"`
		Argv  []string `json:"argv"`
		Cwd   string   `json:"cwd"`
		Query string   `json:"query"`
		Patch string   `json:"patch"`
	}
	if json.Unmarshal(a.Args, &args) != nil {
		return ""
	}
	switch {
	case len(args.Argv) > 0:
		s := oneLine(strings.Join(args.Argv, " "), 100)
		if args.Cwd != "" && args.Cwd != "." {
			s += " (in " + oneLine(args.Cwd, 60) + ")"
		}
		return s
	case args.Path != "":
		return oneLine(args.Path, 100)
	case args.Query != "":
		return fmt.Sprintf("%q", oneLine(args.Query, 60))
	case args.Patch != "":
		var files []string
		for _, l := range strings.Split(args.Patch, "\n") {
			if f, ok := strings.CutPrefix(l, "+++ "); ok && len(files) < 5 {
				f = strings.TrimPrefix(strings.Fields(f + " x")[0], "b/")
				files = append(files, oneLine(f, 60))
			}
		}
		return strings.Join(files, ", ")
	}
	return ""
}

// TestVerdict is a test run in a line: "ok — 2 passed (go test ./...
// exit 0)", "FAIL — 1 passed, 1 failed: TestAdd (go test ./... exit 1)".
func TestVerdict(s TestSummary) string {
	var b strings.Builder
	if s.OK {
		b.WriteString("ok")
	} else {
		b.WriteString("FAIL")
	}
	var counts []string
	for _, c := range []struct {
		n    int
		what string
	}{{s.Passed, "passed"}, {s.Failed, "failed"}, {s.Errored, "errored"}, {s.Skipped, "skipped"}} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(counts) > 0 {
		b.WriteString(" — " + strings.Join(counts, ", "))
	}
	if len(s.Failures) > 0 {
		var names []string
		for i, f := range s.Failures {
			if i == 3 {
				names = append(names, "…")
				break
			}
			names = append(names, oneLine(f.Name, 80))
		}
		b.WriteString(": " + strings.Join(names, ", "))
	}
	var cmds []string
	for _, c := range s.Commands {
		line := fmt.Sprintf("%s exit %d", oneLine(strings.Join(c.Argv, " "), 80), c.ExitCode)
		if c.Ended != "" {
			line += " (" + c.Ended + ")"
		}
		cmds = append(cmds, line)
	}
	if len(cmds) > 0 {
		b.WriteString(" (" + strings.Join(cmds, "; ") + ")")
	}
	return b.String()
}

// oneLine is s's first line, its control characters dropped, cut at n
// bytes (on a character boundary) with "…".
func oneLine(s string, n int) string {
	s = strings.TrimSpace(firstLine(s))
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// short is a commit's first 8 hex digits.
func short(commit string) string {
	if len(commit) > 8 {
		return commit[:8]
	}
	return commit
}
