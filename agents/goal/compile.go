package goal

import (
	"fmt"
	"strings"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/window"
)

// compile is the state the model is shown before its next step: the
// goal, where it stands, the last test result and its history — older
// steps a line each, the latest in full — within the token budget: the
// oldest lines go first, then the latest steps' outputs shrink.
func (v *visit) compile(tok window.Tokenizer) string {
	st := &v.st
	recent := map[int]bool{}
	for _, r := range st.Recent {
		recent[r.Step] = true
	}
	var older []entry
	for _, e := range st.History {
		if !recent[e.Step] {
			older = append(older, e)
		}
	}
	omit, room := 0, 4000
	for {
		text := v.render(older, omit, room)
		if tok.Count(text) <= v.a.o.ContextTokens || (omit >= len(older) && room <= 200) {
			return text
		}
		if omit < len(older) {
			omit = min(len(older), omit+max(1, len(older)/4))
		} else {
			room /= 2
		}
	}
}

// render is the state with the omit oldest history lines left out and
// the latest steps' outputs clipped to room bytes.
func (v *visit) render(older []entry, omit, room int) string {
	st := &v.st
	var b strings.Builder
	fmt.Fprintf(&b, "Goal: %s\n\n", v.p.goal)
	fmt.Fprintf(&b, "Step %d of at most %d. Failed actions in a row: %d (the goal stops at %d).\n", st.Steps+1, st.MaxSteps, st.Failures, v.a.o.MaxFailures)
	if v.p.dryRun {
		b.WriteString("Dry run: each action you take is checked by the policy but not done; reads and searches are done.\n")
	}
	if st.Branch != "" {
		fmt.Fprintf(&b, "Branch: %s (each step that changes files is a commit on it).\n", st.Branch)
	}
	if ch := st.changed(); len(ch) > 0 {
		fmt.Fprintf(&b, "Changed on the branch so far: %s.\n", strings.Join(ch, ", "))
	} else {
		b.WriteString("Changed on the branch so far: nothing.\n")
	}
	switch {
	case len(v.p.tests) == 0:
		b.WriteString("Tests: none are configured (run_tests is unavailable: check your work with run_command).\n")
	case !st.Tested:
		b.WriteString("Tests: not run in a dry run.\n")
	case st.Tests == nil:
		b.WriteString("Tests: not run yet.\n")
	case st.TestsStep == 0:
		fmt.Fprintf(&b, "Tests when the goal started:\n%s\n", strings.TrimRight(v.a.o.Tests.Compact(*st.Tests), "\n"))
	default:
		fmt.Fprintf(&b, "Tests after step %d:\n%s\n", st.TestsStep, strings.TrimRight(v.a.o.Tests.Compact(*st.Tests), "\n"))
	}
	if len(st.History) == 0 {
		b.WriteString("\nNo steps taken yet.\n")
	} else {
		b.WriteString("\nHistory:\n")
		if omit > 0 {
			fmt.Fprintf(&b, "(steps %d to %d are left out: the history is too long to show whole)\n", older[0].Step, older[omit-1].Step)
		}
		for _, e := range older[omit:] {
			fmt.Fprintf(&b, "#%d %s %s → %s: %s", e.Step, e.Tool, e.Args, e.Status, e.Brief)
			if len(e.Files) > 0 {
				fmt.Fprintf(&b, " [%s]", strings.Join(e.Files, ", "))
			}
			b.WriteString("\n")
		}
		for _, r := range st.Recent {
			tool := r.Action.Tool
			if tool == "" {
				tool = "(no tool)"
			}
			fmt.Fprintf(&b, "\n--- Step %d: %s %s\n", r.Step, tool, clipLine(llm.CanonicalArgs(r.Action.Args), 2000))
			o := r.Observation
			fmt.Fprintf(&b, "Status: %s", o.Status)
			if o.ExitCode != nil {
				fmt.Fprintf(&b, ", exit code %d", *o.ExitCode)
			}
			if o.Rule != "" {
				fmt.Fprintf(&b, ", rule %s", o.Rule)
			}
			fmt.Fprintf(&b, "\n%s\n", clip(o.Output, room))
		}
	}
	b.WriteString("\nTake the next step: call exactly one tool.\n")
	return b.String()
}
