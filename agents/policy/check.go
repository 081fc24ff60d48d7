package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The tools of a goal, as Action.Tool names them.
const (
	ToolReadArtifact = "read_artifact"
	ToolSearch       = "search"
	ToolEditArtifact = "edit_artifact"
	ToolApplyPatch   = "apply_patch"
	ToolWriteFile    = "write_file"
	ToolRunCommand   = "run_command"
	ToolRunTests     = "run_tests"
	ToolFinish       = "finish"
)

// Tools are the tools Check knows.
var Tools = []string{ToolReadArtifact, ToolSearch, ToolEditArtifact, ToolApplyPatch, ToolWriteFile, ToolRunCommand, ToolRunTests, ToolFinish}

// rule is one [[deny]], [[confirm]] or [[allow]] rule of a policy file.
type rule struct {
	verdict Verdict
	name    string
	reason  string
	tools   []string
	program string
	args    []string
	paths   []string
	writes  bool
}

// onPrograms reports whether the rule names programs or arguments: a
// program rule, advisory (AdvisoryNote).
func (r *rule) onPrograms() bool { return r.program != "" || len(r.args) > 0 }

// checker is one Check.
type checker struct {
	policy *Policy
	space  space
	action Action
}

func deny(rule, reason string) *Decision {
	return &Decision{Verdict: Deny, Rule: rule, Reason: reason}
}

// Check decides whether the action may run in the workspace at root (an
// absolute path). The first of these that applies decides:
//
//  1. lunad's built-in rules (Rules): a malformed action, a path outside
//     the workspace, a write to .git, .luna, a dotfile or a read_only
//     path, and the commands lunad never runs — Deny;
//  2. the policy's [[deny]] rules, in file order — Deny;
//  3. its [[confirm]] rules — Confirm;
//  4. lunad's default rules (git-switch, git-clean, git-history,
//     ci-config), unless an [[allow]] rule matches the same command or
//     action — Deny;
//  5. with commands = "allowed", a command that no [[allow]] rule
//     matches — Deny (not-allowed);
//  6. otherwise Allow (Rule names the first [[allow]] rule that matches,
//     if any).
//
// A command is read through its wrappers (env, timeout, xargs, sudo,
// busybox) and, for sh -c and bash -c, its script: every program it runs
// is checked. Check reads the file system only to resolve symlinks and
// to tell a file from a branch (git checkout X); the same policy, action
// and files give the same Decision.
//
// A nil *Policy is Default().
func (p *Policy) Check(root string, a Action) Decision {
	if p == nil {
		p = Default()
	}
	if !filepath.IsAbs(root) {
		return *deny(RuleBadPath, fmt.Sprintf("the workspace root %q is not an absolute path (lunad's mistake, not the action's)", root))
	}
	c := &checker{policy: p, space: newSpace(root, p.home), action: a}
	return c.check()
}

func (c *checker) check() Decision {
	a := c.action
	if !contains(Tools, a.Tool) {
		return *deny(RuleUnknownTool, fmt.Sprintf("%s is not a tool; use one of %s", strconv.Quote(cut(a.Tool, 40)), strings.Join(Tools, ", ")))
	}
	var places []place
	for _, p := range a.Paths {
		pl, d := c.checkPlace(c.space.real, p, a.Writes, true)
		if d != nil {
			return *d
		}
		places = append(places, pl)
	}
	var an *analysis
	if a.Tool == ToolRunCommand || a.Tool == ToolRunTests && len(a.Argv) > 0 {
		if len(a.Argv) == 0 || a.Argv[0] == "" {
			return *deny(RuleEmptyCommand, `the command has no program; give argv as the program and its arguments, such as ["go", "test", "./..."]`)
		}
		dir := a.Dir
		if dir == "" {
			dir = "."
		}
		pl, d := c.checkPlace(c.space.real, dir, false, true)
		if d != nil {
			d.Reason = "the working directory " + d.Reason
			return *d
		}
		an = c.analyze(a.Argv, pl.abs)
		if f := first(an.builtin); f != nil {
			return Decision{Verdict: Deny, Rule: f.rule, Reason: f.reason}
		}
	}
	for _, r := range c.policy.deny {
		if c.matches(r, places, an, nil) {
			return Decision{Verdict: Deny, Rule: r.name, Reason: r.reason, Advisory: r.onPrograms()}
		}
	}
	for _, r := range c.policy.confirm {
		if c.matches(r, places, an, nil) {
			return Decision{Verdict: Confirm, Rule: r.name, Reason: r.reason, Advisory: r.onPrograms()}
		}
	}
	if d := c.defaults(places, an); d != nil {
		return *d
	}
	if an != nil && c.policy.allowedOnly {
		for _, n := range an.nodes {
			if !n.wrapper && c.allowed(places, an, n) == nil {
				d := deny(RuleNotAllowed, fmt.Sprintf("%s is not among the commands the workspace allows (commands = \"allowed\" in .luna/policy.toml: %s); use one of those, or ask the user", show(n.argv), c.allowList()))
				d.Advisory = true
				return *d
			}
		}
	}
	if r := c.allowed(places, an, nil); r != nil {
		return Decision{Verdict: Allow, Rule: r.name, Reason: r.reason}
	}
	return Decision{Verdict: Allow}
}

// defaults decides lunad's default rules, which an [[allow]] rule lifts.
func (c *checker) defaults(places []place, an *analysis) *Decision {
	if c.action.Writes {
		for _, pl := range places {
			if (isCIConfig(pl.rel) || isCIConfig(pl.lexRel)) && c.allowed(places, an, nil) == nil {
				return deny(RuleCIConfig, fmt.Sprintf(reasonCIConfig, quoteWord(pl.written)))
			}
		}
	}
	if an == nil {
		return nil
	}
	var open []finding
	for _, f := range an.defaults {
		if c.allowed(places, an, f.node) == nil {
			open = append(open, f)
		}
	}
	if f := first(open); f != nil {
		return deny(f.rule, f.reason)
	}
	return nil
}

// allowed is the first [[allow]] rule matching the action (or only its
// node n, if n is set).
func (c *checker) allowed(places []place, an *analysis, n *node) *rule {
	for _, r := range c.policy.allow {
		if c.matches(r, places, an, n) {
			return r
		}
	}
	return nil
}

func (c *checker) allowList() string {
	var names []string
	for _, r := range c.policy.allow {
		if r.program != "" || len(r.args) > 0 {
			names = append(names, r.name)
		}
	}
	if len(names) == 0 {
		return "no [[allow]] rule names a program"
	}
	return "[[allow]] " + strings.Join(names, ", ")
}

// matches reports whether a workspace rule matches the action — or only
// its node only, when only is set. A rule matches when each of its
// fields does: tools names the action's tool (a reading tool stands for
// both, appliesTo); program and args match
// one program the command runs; paths match a path the action names (for
// a command: its directory and operands, or with writes what it
// writes); writes: the action writes.
func (c *checker) matches(r *rule, places []place, an *analysis, only *node) bool {
	a := c.action
	if !r.appliesTo(a.Tool) {
		return false
	}
	if an == nil { // a file action
		if r.program != "" || len(r.args) > 0 || r.writes && !a.Writes || only != nil {
			return false
		}
		if len(r.paths) == 0 {
			return true
		}
		for _, pl := range places {
			if matchAny(r.paths, pl.rel) || matchAny(r.paths, pl.lexRel) {
				return true
			}
		}
		return false
	}
	for _, n := range an.nodes {
		if only != nil && n != only {
			continue
		}
		if r.program != "" && !n.runs(r.program) || len(r.args) > 0 && !argsMatch(r.args, n.argv[1:]) {
			continue
		}
		names := append(slices.Clip(n.reads), n.writes...)
		if r.writes {
			names = n.writes
			if len(names) == 0 {
				continue
			}
		}
		if len(r.paths) == 0 {
			return true
		}
		for _, rel := range names {
			if matchAny(r.paths, rel) {
				return true
			}
		}
	}
	return false
}

func matchAny(patterns []string, rel string) bool {
	if rel == "" {
		return false
	}
	for _, p := range patterns {
		if matchPath(p, rel) {
			return true
		}
	}
	return false
}

// runs reports whether the node's program matches a program pattern: by
// name when the pattern has no slash, else by the path as written or
// relative to the workspace root (that one ignoring case, as paths are).
func (n *node) runs(pattern string) bool {
	if !strings.Contains(pattern, "/") {
		return globText(pattern, path.Base(n.argv[0]))
	}
	return globText(pattern, n.argv[0]) || globText(pattern, path.Clean(n.argv[0])) ||
		n.progRel != "" && globText(foldPath(pattern), foldPath(n.progRel))
}

// argsMatch reports whether the patterns match arguments in order (not
// necessarily adjacent: ["push"] matches git -C x push).
func argsMatch(patterns, args []string) bool {
	i := 0
	for _, x := range args {
		if i < len(patterns) && globText(patterns[i], x) {
			i++
		}
	}
	return i == len(patterns)
}
