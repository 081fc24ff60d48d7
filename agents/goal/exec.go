package goal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/goal/tree"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/agents/tools"
	"github.com/lunad/lunad/sandbox"
)

// Observation statuses (lunad.GoalObservation.Status).
const (
	statusOK      = "ok"
	statusError   = "error"
	statusDenied  = "denied"
	statusSkipped = "skipped"
)

// effect is what one action did: the observation the model is shown,
// the writes the engine commits, and the facts the report keeps. It is
// the act stage's recorded effect: a live replay serves it back.
type effect struct {
	Observation lunad.GoalObservation `json:"observation"`
	Writes      []lunad.StageWrite    `json:"writes,omitempty"`
	Changes     []change              `json:"changes,omitempty"`
	Commands    []lunad.GoalCommand   `json:"commands,omitempty"`
	Denial      *lunad.GoalDenial     `json:"denial,omitempty"`
	Notes       []string              `json:"notes,omitempty"`
	// Warning is a command's run without a sandbox (the policy let it).
	Warning string `json:"warning,omitempty"`
	// Finished: the model called finish, with Summary.
	Finished bool   `json:"finished,omitempty"`
	Summary  string `json:"summary,omitempty"`
	// Read names new information the action gave (its digest), for the
	// stall detector's notion of progress.
	Read string `json:"read,omitempty"`
}

func (e *effect) fail(format string, args ...any) {
	e.Observation.Status, e.Observation.Output = statusError, fmt.Sprintf(format, args...)
}

// executor does one act's action in the goal's worktree.
type executor struct {
	a     *Agents
	ctx   context.Context
	dir   string
	root  *tree.Root // dir, held open while an action is done
	step  int
	dry   bool
	tests [][]string
}

// do checks call with the policy and does it (or, in a dry run, only
// checks what writes or runs). Every failure is an observation.
func (x *executor) do(call *llm.ToolCall) effect {
	start := x.a.o.Clock()
	var e effect
	if r, err := tree.Open(x.dir); err != nil {
		e.fail("the goal's worktree cannot be opened: %v", err)
	} else {
		x.root = r
		e = x.do1(call)
		r.Close()
	}
	if e.Observation.Duration == 0 {
		e.Observation.Duration = x.a.o.Clock().Sub(start)
	}
	e.Observation.Output = clip(e.Observation.Output, x.a.o.Observation)
	return e
}

func (x *executor) do1(call *llm.ToolCall) effect {
	var e effect
	if call == nil {
		e.fail("no tool was called: act through exactly one tool each turn (%s); call finish when the goal is reached", strings.Join(toolNames(), ", "))
		return e
	}
	t, ok := toolNamed(call.Name)
	if !ok {
		e.fail("unknown tool %q: the tools are %s", call.Name, strings.Join(toolNames(), ", "))
		return e
	}
	act, pa, err := x.decode(t, call)
	if err != nil {
		e.fail("%v", err)
		return e
	}
	if denied := x.check(pa, &e); denied {
		return e
	}
	if x.dry && mutating(call.Name) {
		e.Observation.Status = statusSkipped
		e.Observation.Output = fmt.Sprintf("dry run: the policy allows %s, and it was not done; go on as if it had been, or finish", call.Name)
		return e
	}
	switch a := act.(type) {
	case readArgs:
		x.read(a, &e)
	case searchArgs:
		x.search(a, &e)
	case editArgs:
		x.edit(a, &e)
	case patchArgs:
		x.patch(a, &e)
	case writeArgs:
		x.write(a, &e)
	case runArgs:
		x.run(a, &e)
	case struct{}:
		x.runTests(&e)
	case finishArgs:
		e.Finished, e.Summary = true, strings.TrimSpace(a.Summary)
		e.Observation.Status, e.Observation.Output = statusOK, "finished"
	}
	if e.Observation.Status == statusOK && e.Read == "" && len(e.Writes) == 0 && !e.Finished {
		e.Read = call.Name + " " + digest(llm.CanonicalArgs(call.Arguments)+"\x00"+e.Observation.Output)
	}
	return e
}

func toolNames() []string {
	var out []string
	for _, t := range toolList {
		out = append(out, t.Name)
	}
	return out
}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// decode reads call's arguments and the action as the policy sees it.
func (x *executor) decode(t llm.Tool, call *llm.ToolCall) (any, policy.Action, error) {
	pa := policy.Action{Tool: t.Name}
	into := func(v any) error { return tools.DecodeArgs(t, call.Arguments, v) }
	switch t.Name {
	case ToolRead:
		var a readArgs
		err := into(&a)
		pa.Paths = []string{a.Path}
		return a, pa, err
	case ToolSearch:
		var a searchArgs
		err := into(&a)
		if err == nil && a.Kind != "text" && a.Kind != "symbol" {
			err = fmt.Errorf("search: kind %q: give \"text\" or \"symbol\"", a.Kind)
		}
		return a, pa, err
	case ToolEdit:
		var a editArgs
		err := into(&a)
		if err == nil && len(a.Blocks) == 0 {
			err = fmt.Errorf("edit_artifact: blocks is empty: give at least one {search, replace}")
		}
		pa.Paths, pa.Writes = []string{a.Path}, true
		return a, pa, err
	case ToolPatch:
		var a patchArgs
		err := into(&a)
		pa.Writes = true
		if err == nil {
			var files []filePatch
			if files, err = splitPatch(a.Patch); err != nil {
				err = fmt.Errorf("apply_patch not applied (nothing was written): %v", err)
			}
			for _, f := range files {
				pa.Paths = append(pa.Paths, f.Path)
			}
		}
		return a, pa, err
	case ToolWrite:
		var a writeArgs
		err := into(&a)
		pa.Paths, pa.Writes = []string{a.Path}, true
		return a, pa, err
	case ToolRun:
		var a runArgs
		err := into(&a)
		if err == nil && (len(a.Argv) == 0 || a.Argv[0] == "") {
			err = fmt.Errorf("run_command: argv is empty: give the program and its arguments, as [\"go\", \"test\", \"./...\"]")
		}
		pa.Argv, pa.Dir = a.Argv, a.Cwd
		return a, pa, err
	case ToolTests:
		err := into(&struct{}{})
		return struct{}{}, pa, err
	default: // ToolFinish
		var a finishArgs
		err := into(&a)
		return a, pa, err
	}
}

// check asks the policy (for run_tests, about each test command), and
// the confirmer about what the policy wants confirmed: a denial, or a
// confirmation no one gave, is the observation, worded as
// policy.Decision.Message says it.
func (x *executor) check(pa policy.Action, e *effect) bool {
	actions := []policy.Action{pa}
	if pa.Tool == ToolTests {
		actions = nil
		for _, argv := range x.tests {
			actions = append(actions, policy.Action{Tool: ToolTests, Argv: argv})
		}
	}
	for _, a := range actions {
		d := policy.Ask(x.a.o.Confirm, a, x.a.o.Policy.Check(x.dir, a))
		if d.Verdict == policy.Allow {
			continue
		}
		msg := d.Message()
		e.Observation.Status, e.Observation.Output, e.Observation.Rule = statusDenied, msg, d.Rule
		e.Denial = &lunad.GoalDenial{Step: x.step, Tool: pa.Tool, Rule: d.Rule, Message: msg}
		return true
	}
	return false
}

// spec is a command's sandbox spec: the goal's base, in the worktree,
// with .git, .luna and the policy's read-only paths kept read-only.
func (x *executor) spec(argv []string, cwd string) sandbox.Spec {
	s := x.a.o.Spec
	s.Argv, s.Root, s.Dir = argv, x.dir, cwd
	s.ReadOnly = slices.Clone(s.ReadOnly)
	for _, p := range x.readOnlyPaths() {
		s.ReadOnly = append(s.ReadOnly, filepath.Join(x.dir, filepath.FromSlash(p)))
	}
	s.Env = maps.Clone(s.Env)
	return s
}

// readOnlyPaths are the worktree's paths a command's sandbox keeps
// read-only: .git, .luna and Options.ReadOnly.
func (x *executor) readOnlyPaths() []string {
	ro := append([]string{".git", ".luna"}, x.a.o.ReadOnly...)
	slices.Sort(ro)
	return slices.Compact(ro)
}

// CheckReadOnly refuses spec when one of its ReadOnly paths inside its
// Root is a symbolic link, or has one on its way: the sandbox binds a
// read-only path by its name, and a link there (which an earlier command
// can make in a goal's worktree) would bind what it points to, outside
// the worktree, into the sandbox. Its error says which path, for the
// model; a Root that cannot be opened is an error too.
func CheckReadOnly(spec sandbox.Spec) error {
	r, err := tree.Open(spec.Root)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, p := range spec.ReadOnly {
		rel, err := filepath.Rel(spec.Root, p)
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			continue // not inside the worktree
		}
		rel = filepath.ToSlash(rel)
		info, err := r.Lstat(rel)
		if errors.Is(err, tree.ErrSymlink) || (err == nil && info.Mode&fs.ModeSymlink != 0) {
			return fmt.Errorf("%s, which commands see read-only, is a symbolic link or under one: lunad does not follow links in a goal's worktree, and runs no command until it is a directory or a file again", rel)
		}
	}
	return nil
}

// run is run_command: the command in the sandbox, and what it changed in
// the worktree turned into the step's writes.
func (x *executor) run(a runArgs, e *effect) {
	cwd := a.Cwd
	if strings.TrimSpace(cwd) == "" {
		cwd = "."
	}
	rel, abs, err := resolve(x.dir, cwd, false)
	if err != nil {
		e.fail("run_command: cwd %v", err)
		return
	}
	if info, err := x.root.Lstat(rel); err != nil || !info.Mode.IsDir() {
		e.fail("run_command: cwd %s is not a directory of the workspace (a symbolic link is not followed)", rel)
		return
	}
	if err := CheckReadOnly(x.spec(nil, x.dir)); err != nil {
		e.fail("run_command was not run: %v", err)
		return
	}
	before, err := snap(x.root)
	var was usage
	if err == nil {
		was, err = measure(x.root)
	}
	if err != nil {
		e.fail("run_command was not run: the worktree cannot be read to follow what the command changes: %v", err)
		return
	}
	res, err := x.a.o.Commands.Run(x.ctx, x.spec(a.Argv, abs))
	if err != nil {
		e.fail("the command could not be run: %v", err)
	}
	over := x.a.fitDisk(x.root, before, was, "the command")
	if over != "" {
		e.Notes = append(e.Notes, over)
	} else {
		x.absorb(before, "the command", e)
	}
	if err != nil {
		return
	}
	if !res.Sandboxed {
		e.Warning = res.Warning
	}
	code := res.ExitCode
	e.Observation.ExitCode, e.Observation.Duration = &code, res.Duration
	e.Commands = append(e.Commands, lunad.GoalCommand{Step: x.step, Argv: a.Argv, Dir: rel, ExitCode: code, Ended: res.Ended, Duration: res.Duration})
	var b strings.Builder
	fmt.Fprintf(&b, "exit code %d after %s", code, res.Duration.Round(time.Millisecond))
	if res.Ended != "" {
		fmt.Fprintf(&b, " (stopped by lunad: %s)", res.Ended)
	}
	fmt.Fprintf(&b, ": %s", strings.Join(a.Argv, " "))
	if rel != "." {
		fmt.Fprintf(&b, " (in %s)", rel)
	}
	half := max(x.a.o.Observation/2-200, 200)
	for _, o := range []struct {
		name string
		out  sandbox.Output
	}{{"stdout", res.Stdout}, {"stderr", res.Stderr}} {
		if o.out.Total == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%d bytes", o.name, o.out.Total)
		if o.out.Cut > 0 {
			fmt.Fprintf(&b, ", %d cut", o.out.Cut)
		}
		fmt.Fprintf(&b, "):\n%s", clip(strings.TrimRight(o.out.Text, "\n"), half))
	}
	if len(e.Observation.Files) > 0 {
		fmt.Fprintf(&b, "\nfiles changed (committed as this step): %s", strings.Join(e.Observation.Files, ", "))
	}
	for _, n := range e.Notes {
		fmt.Fprintf(&b, "\nnote: %s", n)
	}
	e.Observation.Output = b.String()
	switch {
	case e.Denial != nil:
		e.Observation.Status = statusDenied
	case over != "":
		e.Observation.Status = statusError
	case code == 0 && res.Ended == "":
		e.Observation.Status = statusOK
		e.Read = ToolRun + " " + digest(strings.Join(a.Argv, "\x00")+"\x00"+res.Stdout.Text+res.Stderr.Text)
	default:
		e.Observation.Status = statusError
	}
}

// runTests is run_tests.
func (x *executor) runTests(e *effect) {
	if len(x.tests) == 0 {
		e.fail("run_tests: no tests are configured for this goal (--test, or [tests] commands in .luna/config.toml); check your work with run_command")
		return
	}
	tr := x.a.testRun(x.ctx, x.dir, x.tests, x.step)
	e.Commands, e.Notes, e.Warning = tr.Summary.Commands, tr.Notes, tr.Warning
	sum := tr.Summary
	e.Observation.Tests = &sum
	e.Observation.Output = strings.TrimRight(x.a.o.Tests.Compact(sum), "\n")
	for _, n := range tr.Notes {
		e.Observation.Output += "\nnote: " + n
	}
	e.Observation.Status = statusOK
	if !sum.OK {
		e.Observation.Status = statusError
	}
	e.Read = ToolTests + " " + digest(e.Observation.Output)
}

// testRun is one run of the test commands.
type testRun struct {
	Summary lunad.TestSummary `json:"summary"`
	Notes   []string          `json:"notes,omitempty"`
	Warning string            `json:"warning,omitempty"`
}

// testRun runs the test commands in dir: what they change in the
// worktree is undone (tests must leave it as it is), and a failure to
// run them at all is a failed summary saying why.
func (a *Agents) testRun(ctx context.Context, dir string, tests [][]string, step int) testRun {
	var tr testRun
	fail := func(msg string) testRun {
		tr.Summary = lunad.TestSummary{Failures: []lunad.TestFailure{{Name: "(the tests)", Message: msg}}, Commands: []lunad.GoalCommand{}}
		return tr
	}
	r, err := tree.Open(dir)
	if err != nil {
		return fail("the worktree cannot be opened: " + err.Error())
	}
	defer r.Close()
	x := &executor{a: a, ctx: ctx, dir: dir, root: r, step: step}
	if err := CheckReadOnly(x.spec(nil, dir)); err != nil {
		return fail("the test commands were not run: " + err.Error())
	}
	before, err := snap(r)
	var was usage
	if err == nil {
		was, err = measure(r)
	}
	if err != nil {
		return fail("the worktree cannot be read: " + err.Error())
	}
	sum, results, err := a.o.Tests.Run(ctx, x.spec(nil, dir), tests)
	if err != nil {
		sum = lunad.TestSummary{Failures: []lunad.TestFailure{{Name: "(the tests)", Message: "the test commands could not be run: " + err.Error()}}}
	}
	for _, r := range results {
		if !r.Sandboxed && r.Warning != "" {
			tr.Warning = r.Warning
		}
	}
	if over := a.fitDisk(r, before, was, "the tests"); over != "" {
		tr.Notes = append(tr.Notes, over)
	} else if after, err := snap(r); err == nil {
		for _, c := range before.changesTo(after) {
			tr.Notes = append(tr.Notes, x.undoTests(before, c))
		}
	}
	if sum.Commands == nil {
		sum.Commands = []lunad.GoalCommand{}
	}
	for i := range sum.Commands {
		sum.Commands[i].Step = step
	}
	tr.Summary = sum
	return tr
}

// undoTests undoes c, a change the tests made, and says so; a change the
// write rules deny says which rule.
func (x *executor) undoTests(before *snapshot, c fileChange) string {
	what := ""
	if c.After != nil {
		if d := x.writeRule(c.Path); d.Verdict != policy.Allow {
			what = fmt.Sprintf(", denied by the write rules (%s)", d.Message())
		}
	}
	if err := before.undo(x.root, c); err != nil {
		return fmt.Sprintf("the tests changed %s%s, which could not be undone: %v", c.Path, what, err)
	}
	return fmt.Sprintf("the tests changed %s%s; undone (tests must leave the worktree as it is)", c.Path, what)
}
