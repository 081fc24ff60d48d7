package goal

import (
	"fmt"
	"strings"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/editor"
)

// render is the goal's report: the goal and its outcome, the tests
// before and after, the steps, the commands, the denials, the notes, and
// the diff of the branch from where it started.
func (a *Agents) render(v *visit, final map[string]*string) string {
	st := &v.st
	var b strings.Builder
	fmt.Fprintf(&b, "# Goal: %s\n\n", oneLine(v.p.goal))
	fmt.Fprintf(&b, "- Outcome: **%s**", st.Outcome)
	if st.Reason != "" {
		fmt.Fprintf(&b, ": %s", oneLine(st.Reason))
	}
	b.WriteString("\n")
	if st.Summary != "" {
		fmt.Fprintf(&b, "- Summary: %s\n", oneLine(st.Summary))
	}
	if st.Branch != "" {
		fmt.Fprintf(&b, "- Branch: `%s`, a commit for each step that changed files; accept it with `lunad goal accept %s`, or discard it with `lunad goal discard %s`\n", st.Branch, v.req.RunID, v.req.RunID)
	}
	fmt.Fprintf(&b, "- Steps: %d of at most %d\n", st.Steps, st.MaxSteps)
	u := v.mem.Usage()
	id, _ := Prompt()
	model := st.Model
	if model == "" {
		model = "none called"
	}
	fmt.Fprintf(&b, "- Model: %s (prompt %s): %d tokens (%d in, %d out) in %d calls; time %s\n", model, id, u.Tokens, u.InputTokens, u.OutputTokens, u.Calls, u.Elapsed.Round(time.Millisecond))
	if st.Sandbox != "" {
		fmt.Fprintf(&b, "- Sandbox: %s\n", oneLine(st.Sandbox))
	}
	if st.Plan != "" {
		fmt.Fprintf(&b, "\n## Plan\n\n%s\n", strings.TrimSpace(st.Plan))
	}
	a.renderTests(&b, v)
	renderSteps(&b, st)
	renderCommands(&b, st)
	b.WriteString("\n## Denials\n\n")
	if len(st.Denials) == 0 {
		b.WriteString("None: the policy allowed every action.\n")
	} else {
		b.WriteString("| step | tool | rule | message |\n|---:|---|---|---|\n")
		for _, d := range st.Denials {
			fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", d.Step, d.Tool, cell(d.Rule), cell(d.Message))
		}
	}
	if len(st.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range st.Notes {
			fmt.Fprintf(&b, "- %s\n", oneLine(n))
		}
	}
	b.WriteString("\n## Diff\n\n")
	diff, missing := branchDiff(st, final)
	if diff == "" {
		b.WriteString("The branch changes nothing.\n")
	} else {
		fmt.Fprintf(&b, "```diff\n%s```\n", diff)
	}
	for _, m := range missing {
		fmt.Fprintf(&b, "\n%s\n", m)
	}
	return b.String()
}

func (a *Agents) renderTests(b *strings.Builder, v *visit) {
	st := &v.st
	b.WriteString("\n## Tests\n\n")
	switch {
	case len(v.p.tests) == 0:
		b.WriteString("No tests are configured (--test, or [tests] commands in .luna/config.toml): none ran.\n")
		return
	case !st.Tested:
		b.WriteString("None ran: ")
		if v.p.plan {
			b.WriteString("a plan runs nothing.\n")
		} else {
			b.WriteString("a dry run runs nothing.\n")
		}
		return
	}
	b.WriteString("| when | verdict | passed | failed | errored | skipped |\n|---|---|---:|---:|---:|---:|\n")
	row := func(when string, s *lunad.TestSummary) {
		verdict := "FAIL"
		if s.OK {
			verdict = "ok"
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d |\n", when, verdict, s.Passed, s.Failed, s.Errored, s.Skipped)
	}
	if st.TestsBefore != nil {
		row("before", st.TestsBefore)
	}
	if st.Tests != nil && st.TestsStep > 0 {
		row(fmt.Sprintf("after (step %d)", st.TestsStep), st.Tests)
	}
	if st.Tests != nil && len(st.Tests.Failures) > 0 {
		b.WriteString("\nFailing at the end:\n\n")
		for _, f := range st.Tests.Failures {
			fmt.Fprintf(b, "- `%s`: %s\n", f.Name, oneLine(clipLine(f.Message, 300)))
		}
	}
}

func renderSteps(b *strings.Builder, st *state) {
	b.WriteString("\n## Steps\n\n")
	if len(st.History) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("| # | action | status | files | observation |\n|---:|---|---|---|---|\n")
	for _, e := range st.History {
		tool := e.Tool
		if tool == "" {
			tool = "(no tool)"
		}
		fmt.Fprintf(b, "| %d | `%s` %s | %s | %s | %s |\n", e.Step, tool, cell(clipLine(e.Args, 100)), e.Status, cell(strings.Join(e.Files, ", ")), cell(e.Brief))
	}
}

func renderCommands(b *strings.Builder, st *state) {
	b.WriteString("\n## Commands\n\n")
	if len(st.Commands) == 0 {
		b.WriteString("None ran.\n")
		return
	}
	b.WriteString("| step | command | dir | exit code | time | stopped |\n|---|---|---|---:|---:|---|\n")
	for _, c := range st.Commands {
		step := fmt.Sprint(c.Step)
		if c.Step == 0 {
			step = "start"
		}
		fmt.Fprintf(b, "| %s | `%s` | %s | %d | %s | %s |\n", step, cell(strings.Join(c.Argv, " ")), cell(c.Dir), c.ExitCode, c.Duration.Round(time.Millisecond), c.Ended)
	}
}

// branchDiff is the diff of the goal's branch from its base: each
// changed file's base content is its final content with the steps'
// undo diffs applied, newest first. Files whose base cannot be recovered
// are named in missing instead.
func branchDiff(st *state, final map[string]*string) (diff string, missing []string) {
	var b strings.Builder
	for _, p := range st.changed() {
		var cur []byte
		if s := final[p]; s != nil {
			cur = []byte(*s)
		}
		orig, created, ok := cur, false, true
		var why string
		for i := len(st.Changes) - 1; i >= 0 && ok; i-- {
			c := st.Changes[i]
			if c.Path != p {
				continue
			}
			created = c.Created
			if c.Lost {
				ok, why = false, fmt.Sprintf("step %d's change was too large to keep", c.Step)
				break
			}
			res, err := editor.ApplyPatch(orig, c.Undo)
			if err != nil {
				ok, why = false, fmt.Sprintf("undoing step %d: %v", c.Step, err)
				break
			}
			orig = res.Content
		}
		if !ok {
			missing = append(missing, fmt.Sprintf("The diff of %s is not shown (%s): see `git log -p %s -- %s`.", p, why, st.Branch, p))
			continue
		}
		d := editor.Diff(p, p, orig, cur)
		if created {
			d = strings.Replace(d, "--- a/"+p+"\n", "--- /dev/null\n", 1)
		}
		b.WriteString(d)
	}
	return b.String(), missing
}

// cell is s as one Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
