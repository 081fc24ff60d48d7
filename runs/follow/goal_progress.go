package follow

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lunad/lunad"
)

// GoalProgress words an event of a goal's run for a person following it,
// a line per step: "step 3/30: edit_artifact calc.go → ok, changed
// calc.go", "step 4/30: run_command curl example.com → denied by rule
// no-network: …", "tests after step 3: ok — 2 passed (go test ./...
// exit 0)", "committed a1b2c3d4: calc.go". Events of the engine's own
// (a stage starting, its succeeding, the run's end) are worded as
// Progress does; "" for those not worth a line.
func GoalProgress(e lunad.RunEvent) string {
	switch e.Type {
	case lunad.EventStageStarted:
		if e.Attempt > 1 {
			return Progress(e)
		}
		return ""
	case lunad.EventStageCommitted:
		return goalCommitted(e)
	case lunad.EventStageSucceeded:
	default:
		return Progress(e)
	}
	var st goalStageState
	if json.Unmarshal(e.Output, &st) != nil {
		return Progress(e)
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
	return Progress(e)
}

// goalCommitted is the line of a STAGE_COMMITTED: the commit and paths.
func goalCommitted(e lunad.RunEvent) string {
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
func goalStepLine(s lunad.GoalStep, max int) string {
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
func actionBrief(a lunad.GoalAction) string {
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
