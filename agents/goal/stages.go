package goal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lunad/lunad/agents/goal/tree"
	"github.com/lunad/lunad/agents/llm"
)

// planAsk is what a --plan goal asks of the model.
const planAsk = "\nPlan only: do not act, call no tool. Write the plan you would follow to reach the goal: numbered steps, each naming the files and commands concerned, and how you will know the goal is reached.\n"

// begin is the first stage: a --plan goal's plan; otherwise the tests
// as they are when the goal starts.
func (a *Agents) begin(ctx context.Context, v *visit) error {
	st := &v.st
	if v.p.plan {
		_, system := Prompt()
		resp, ok := v.chat(ctx, llm.Request{System: system, Messages: []llm.Message{{Role: llm.RoleUser, Content: v.compile(a.tokenizer()) + planAsk}}})
		if !ok {
			return ctx.Err()
		}
		st.Plan = strings.TrimSpace(resp.Message.Content)
		if st.Plan == "" {
			v.end(outFailed, fmt.Sprintf("the model gave no plan: it answered with no text (and %d tool calls)", len(resp.Message.ToolCalls)))
			return nil
		}
		v.end(outPlanned, "")
		return nil
	}
	if !st.Tested {
		return nil
	}
	if err := a.tests(ctx, v); err != nil {
		return err
	}
	st.TestsBefore = st.Tests
	return nil
}

// test runs the tests after an act that changed files.
func (a *Agents) test(ctx context.Context, v *visit) error {
	st := &v.st
	if err := a.tests(ctx, v); err != nil {
		return err
	}
	if st.Steps >= st.MaxSteps {
		v.end(outMaxSteps, fmt.Sprintf("the goal took %d steps, its limit (--max-steps)", st.Steps))
	}
	return nil
}

// tests runs the test commands (recorded) into the state, and keeps the
// summary as the stage file tests/NNNN.json (NNNN: the step after which
// they ran, 0000 before the first).
func (a *Agents) tests(ctx context.Context, v *visit) error {
	st := &v.st
	tr, err := recorded(v, func() testRun { return a.testRun(ctx, v.req.Dir, v.p.tests, st.Steps) })
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sum := tr.Summary
	st.Tests, st.TestsStep = &sum, st.Steps
	st.Commands = append(st.Commands, sum.Commands...)
	for _, n := range tr.Notes {
		st.note(fmt.Sprintf("after step %d: %s", st.Steps, n))
	}
	if tr.Warning != "" {
		st.Sandbox = tr.Warning
	}
	b, _ := json.MarshalIndent(sum, "", " ")
	v.files[fmt.Sprintf("tests/%04d.json", st.Steps)] = string(b) + "\n"
	return nil
}

// ReportFile is the report stage's file holding the goal's report.
const ReportFile = "report.md"

// report is the last stage: report.md, and the outcome the run ends with.
func (a *Agents) report(ctx context.Context, v *visit) error {
	st := &v.st
	if st.Outcome == "" {
		v.end(outFailed, "the goal reached its report without an outcome")
	}
	if st.DryRun && (st.Outcome == outFinished || st.Outcome == outMaxSteps) {
		why := "the model finished"
		if st.Outcome == outMaxSteps {
			why = st.Reason
		}
		st.Outcome, st.Reason = outDryRun, "dry run: nothing was written or run; "+why
	}
	final, err := recorded(v, func() map[string]*string {
		if v.req.Dir == "" {
			return map[string]*string{}
		}
		return finalContents(v.req.Dir, st.changed())
	})
	if err != nil {
		return err
	}
	v.files[ReportFile] = a.render(v, final)
	return nil
}

// finalContents reads the files the goal changed as its branch has them
// now (nil: absent, or not text).
func finalContents(dir string, paths []string) map[string]*string {
	out := map[string]*string{}
	r, err := tree.Open(dir)
	if err != nil {
		for _, p := range paths {
			out[p] = nil
		}
		return out
	}
	defer r.Close()
	x := &executor{dir: dir, root: r}
	for _, p := range paths {
		b, ok, err := x.current(p)
		if err != nil || !ok {
			out[p] = nil
			continue
		}
		s := string(b)
		out[p] = &s
	}
	return out
}
