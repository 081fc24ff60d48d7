package policy

import (
	"os"
	"path/filepath"
	"strings"
)

// git reads a git command: its global options (-C, --git-dir and
// --work-tree outside the workspace; -c alias.NAME=… expanded once), then
// its subcommand.
func (a *analysis) git(n *node, depth int) {
	args := n.argv[1:]
	aliases := map[string]string{}
	dir := n.dir
	i := 0
loop:
	for ; i < len(args); i++ {
		x := args[i]
		name, val, hasVal := strings.Cut(x, "=")
		switch {
		case x == "-c" && i+1 < len(args):
			i++
			if k, v, ok := strings.Cut(args[i], "="); ok && strings.HasPrefix(strings.ToLower(k), "alias.") {
				aliases[k[len("alias."):]] = v
			}
		case (x == "-C" || x == "--git-dir" || x == "--work-tree") && i+1 < len(args):
			i++
			dir = a.gitDir(n, dir, x, args[i])
		case hasVal && (name == "--git-dir" || name == "--work-tree"):
			a.gitDir(n, dir, name, val)
		case x == "--namespace" || x == "--super-prefix" || x == "--config-env" || x == "--exec-path" && !hasVal:
			i++
		case strings.HasPrefix(x, "-"):
		default:
			break loop
		}
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i], args[i+1:]
	if v, ok := aliases[sub]; ok {
		if script, isShell := strings.CutPrefix(v, "!"); isShell {
			// A shell alias runs its text with sh -c.
			a.command([]string{"sh", "-c", script}, dir, depth+1)
			return
		}
		words := splitWords(v)
		if len(words) == 0 {
			return
		}
		sub, rest = words[0], append(words[1:], rest...)
	}
	what := "git " + sub
	switch sub {
	case "push", "send-pack":
		a.add(n, RuleGitPush, reasonGitPush, what)
	case "reset":
		if contains(rest, "--hard") {
			a.add(n, RuleGitResetHard, reasonGitReset, "git reset --hard")
		}
	case "clone", "fetch", "pull", "ls-remote", "fetch-pack":
		a.offline(n, what)
	case "remote":
		if len(rest) > 0 && (rest[0] == "update" || rest[0] == "prune" || rest[0] == "show") {
			a.offline(n, "git remote "+rest[0])
		}
	case "submodule":
		if o := parseOpts(rest, ""); len(o.operands) > 0 && (o.operands[0] == "update" || o.operands[0] == "add") {
			a.offline(n, "git submodule "+o.operands[0])
		}
	case "archive":
		if parseOpts(rest, "").has("--remote") {
			a.offline(n, "git archive --remote")
		}
	case "switch":
		a.add(n, RuleGitSwitch, reasonGitSwitch, what)
	case "checkout":
		if a.switches(dir, rest) {
			a.add(n, RuleGitSwitch, reasonGitSwitch, what)
		}
	case "clean":
		o := parseOpts(rest, "e", "--exclude")
		if o.has("-f", "--force") && o.has("-d", "-x", "-X") && !o.has("-n", "--dry-run") {
			a.add(n, RuleGitClean, reasonGitClean, show(append([]string{"git", "clean"}, rest...)))
		}
	case "commit", "merge", "rebase", "cherry-pick", "revert", "am", "update-ref", "filter-branch":
		a.add(n, RuleGitHistory, reasonGitHistory, what)
	case "stash":
		if len(rest) == 0 || rest[0] != "list" && rest[0] != "show" {
			a.add(n, RuleGitHistory, reasonGitHistory, what)
		}
	}
}

// gitDir checks a directory git is pointed at and returns the directory
// it then runs in.
func (a *analysis) gitDir(n *node, dir, opt, to string) string {
	if dir == "" && !filepath.IsAbs(to) {
		return ""
	}
	pl, d := a.c.checkPlace(dir, to, false, true)
	if d != nil {
		a.found(n, d)
		return ""
	}
	if opt == "-C" {
		return pl.abs
	}
	return dir
}

// switches reports whether git checkout's arguments switch branches
// (-b, -B, --orphan, --detach, or a first operand that is not a path in
// the working tree), as opposed to restoring files (git checkout --
// FILE, git checkout COMMIT -- FILE, git checkout FILE).
func (a *analysis) switches(dir string, rest []string) bool {
	if contains(rest, "--") {
		return false
	}
	o := parseOpts(rest, "bB", "--orphan", "--conflict", "--pathspec-from-file")
	if o.has("-b", "-B", "--orphan", "--detach") {
		return true
	}
	if o.has("--pathspec-from-file") || len(o.operands) == 0 {
		return false
	}
	if dir == "" {
		return true
	}
	_, err := os.Lstat(filepath.Join(dir, o.operands[0]))
	return err != nil
}
