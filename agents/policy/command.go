package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// maxDepth bounds how deep wrappers, shells and substitutions nest in
// one command before the policy gives up (too-complex).
const maxDepth = 16

// node is one program a command runs: the command itself, the program
// each wrapper (env, timeout, xargs, sudo …) runs, and each simple
// command of a shell script.
type node struct {
	argv []string
	// dir is the absolute, resolved directory it runs in; "" when the
	// policy cannot tell (after cd $DIR in a script).
	dir     string
	wrapper bool // it runs another node: its result is that node's
	progRel string
	// reads are the workspace-relative paths it names (its directory,
	// its operands); writes the ones it writes.
	reads, writes []string
}

// finding is a rule one node of a command breaks.
type finding struct {
	rule, reason string
	node         *node
}

// analysis is what the policy reads of one command.
type analysis struct {
	c        *checker
	nodes    []*node
	builtin  []finding // safety denials
	defaults []finding // default rules, lifted by [[allow]]
}

func (c *checker) analyze(argv []string, dir string) *analysis {
	a := &analysis{c: c}
	a.command(argv, dir, 0)
	return a
}

func (a *analysis) add(n *node, rule, format, what string) {
	f := finding{rule: rule, reason: fmt.Sprintf(format, what), node: n}
	switch rule {
	case RuleGitSwitch, RuleGitClean, RuleGitHistory, RuleCIConfig:
		a.defaults = append(a.defaults, f)
	default:
		a.builtin = append(a.builtin, f)
	}
}

// ruleRank is each rule's place in Rules.
var ruleRank = func() map[string]int {
	rank := map[string]int{}
	for i, r := range Rules() {
		rank[r.Name] = i
	}
	return rank
}()

// first is the finding of the rule listed first by Rules; nil if none.
func first(fs []finding) *finding {
	rank := ruleRank
	var best *finding
	for i := range fs {
		if best == nil || rank[fs[i].rule] < rank[best.rule] {
			best = &fs[i]
		}
	}
	return best
}

// command reads one argv run in dir.
func (a *analysis) command(argv []string, dir string, depth int) {
	if len(argv) == 0 || argv[0] == "" {
		return
	}
	n := &node{argv: argv, dir: dir}
	a.nodes = append(a.nodes, n)
	if depth > maxDepth {
		a.add(n, RuleTooComplex, reasonTooComplex, show(argv))
		return
	}
	a.names(n)
	prog := path.Base(argv[0])
	switch prog {
	case "sudo", "su", "doas", "pkexec", "runuser":
		a.add(n, RuleSudo, reasonSudo, prog)
	}
	if inner, chdir, ok := unwrap(argv); ok {
		n.wrapper = true
		innerDir := dir
		if chdir != "" {
			innerDir = a.cd(n, dir, chdir)
		}
		a.command(inner, innerDir, depth+1)
	}
	if script, ok := shellScript(argv); ok {
		n.wrapper = true
		if !a.c.policy.shell {
			a.add(n, RuleShell, reasonShell, path.Base(argv[0])+" -c")
		}
		a.script(parseShell(script, depth+1), n, dir, depth+1)
	}
	switch {
	case prog == "rm" || prog == "rmdir" || prog == "unlink" || prog == "shred":
		a.rm(n)
	case prog == "chmod":
		a.chmod(n)
	case prog == "git":
		a.git(n, depth)
	case python().MatchString(prog):
		a.python(n, depth)
	}
	a.launched(n, depth)
	a.network(n)
	a.inlineCode(n)
	a.writes(n)
}

// names records the workspace paths a node names: its directory, its
// program when it is a path, its operands.
func (a *analysis) names(n *node) {
	if n.dir == "" {
		return
	}
	if rel := a.c.space.relative(n.dir); rel != "" {
		n.reads = append(n.reads, rel)
	}
	if strings.Contains(n.argv[0], "/") {
		if pl, err := a.c.space.resolve(n.dir, n.argv[0], true); err == nil {
			n.progRel = pl.rel
		}
	}
	for _, x := range n.argv[1:] {
		if x == "" || strings.HasPrefix(x, "-") || strings.ContainsAny(x, "$`\x00") {
			continue
		}
		if pl, err := a.c.space.resolve(n.dir, x, true); err == nil {
			n.reads = appendRel(n.reads, pl)
		}
	}
}

func appendRel(list []string, pl place) []string {
	for _, rel := range []string{pl.rel, pl.lexRel} {
		if rel != "" && !slices.Contains(list, rel) {
			list = append(list, rel)
		}
	}
	return list
}

// cd is the directory a node changes to (env -C, cd in a script, git
// -C): "" when the policy cannot tell.
func (a *analysis) cd(n *node, dir, to string) string {
	home := a.c.space.home
	switch {
	case to == "~" || to == "$HOME" || to == "${HOME}":
		return home
	case strings.HasPrefix(to, "~/") && home != "":
		to = home + to[1:]
	case strings.ContainsAny(to, "$`~") || to == "-":
		return ""
	}
	if dir == "" && !filepath.IsAbs(to) {
		return ""
	}
	pl, err := a.c.space.resolve(dir, to, true)
	if err != nil {
		return ""
	}
	return pl.abs
}

// shells are the programs that run a script given with -c.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh"}

// shellScript returns the script a shell runs with -c (sh -c, bash -lc,
// fish --command).
func shellScript(argv []string) (string, bool) {
	if !contains(shells, path.Base(argv[0])) {
		return "", false
	}
	hasC := false
	for i := 1; i < len(argv); i++ {
		x := argv[i]
		switch {
		case x == "--" || x == "-":
			if hasC && i+1 < len(argv) {
				return argv[i+1], true
			}
			return "", false
		case x == "--command" && i+1 < len(argv):
			return argv[i+1], true
		case strings.HasPrefix(x, "--command="):
			return strings.TrimPrefix(x, "--command="), true
		case x == "--rcfile" || x == "--init-file":
			i++
		case strings.HasPrefix(x, "--"):
		case len(x) > 1 && (x[0] == '-' || x[0] == '+'):
			hasC = hasC || x[0] == '-' && strings.ContainsRune(x[1:], 'c')
			if strings.ContainsAny(x[1:], "oO") {
				i++ // -o option, +O shopt
			}
		default:
			if hasC {
				return x, true
			}
			return "", false
		}
	}
	return "", false
}

// readsStdin reports whether argv is a shell or an interpreter that runs
// the code on its standard input (sh, bash -s, python3 -, perl).
func readsStdin(argv []string) bool {
	argv = effective(argv)
	if len(argv) == 0 {
		return false
	}
	prog := path.Base(argv[0])
	var code []string // the options that give code as an argument
	switch {
	case contains(shells, prog):
		code = []string{"-c"}
	case python().MatchString(prog):
		code = []string{"-c", "-m"}
	case interpreter().MatchString(prog):
		code = []string{"-e", "-E", "--eval", "-p", "--print", "-r"}
	default:
		return false
	}
	o := parseOpts(argv[1:], "")
	if o.has(code...) {
		return false
	}
	if prog != "fish" && contains(shells, prog) && o.has("-s") {
		return true
	}
	return len(o.operands) == 0 || o.operands[0] == "-"
}

var (
	python      = lazyregexp.New(`^(python|pypy)[0-9.]*$`)
	interpreter = lazyregexp.New(`^(perl|ruby|node|nodejs|php|lua|deno|bun)[0-9.]*$`)
)

// runsCode reports whether argv runs code given to it in its arguments:
// a shell or interpreter (its script may be a process substitution), or
// eval, source and "." in a script.
func runsCode(argv []string) bool {
	argv = effective(argv)
	if len(argv) == 0 {
		return false
	}
	prog := path.Base(argv[0])
	return contains(shells, prog) || python().MatchString(prog) || interpreter().MatchString(prog) ||
		prog == "eval" || prog == "source" || prog == "."
}

// fetchers download what a URL names.
var fetchers = []string{"curl", "wget", "fetch", "http", "https", "xh", "aria2c", "lynx", "w3m"}

// fetches reports whether a script, or a substitution in it, downloads.
func (s *shScript) fetches() bool {
	for _, c := range s.cmds {
		if len(c.words) > 0 && contains(fetchers, path.Base(effective(c.words)[0])) {
			return true
		}
		for _, sub := range c.subs {
			if sub.fetches() {
				return true
			}
		}
	}
	return false
}

// script reads a shell script run by node n in dir: each of its
// commands, and the ways it can run a download (curl … | sh, bash
// <(curl …), sh -c "$(curl …)").
func (a *analysis) script(sc *shScript, n *node, dir string, depth int) {
	if sc.tooDeep || depth > maxDepth {
		a.add(n, RuleTooComplex, reasonTooComplex, show(n.argv))
		return
	}
	cwd := dir
	fetched := false
	for _, c := range sc.cmds {
		for _, sub := range c.subs {
			a.script(sub, n, cwd, depth+1)
		}
		if len(c.words) > 0 && (c.words[0] == "cd" || c.words[0] == "pushd") {
			to := "~"
			if len(c.words) > 1 {
				to = c.words[len(c.words)-1]
			}
			cwd = a.cd(n, cwd, to)
			continue
		}
		if fetched && c.piped && readsStdin(c.words) {
			a.add(n, RulePipeToShell, reasonPipeToShell, show(n.argv))
		}
		downloads := false
		for _, sub := range c.subs {
			downloads = downloads || sub.fetches()
		}
		if downloads && (c.subFirst || runsCode(c.words)) {
			a.add(n, RulePipeToShell, reasonPipeToShell, show(n.argv))
		}
		if len(c.words) > 0 && contains(fetchers, path.Base(effective(c.words)[0])) {
			fetched = true
		}
		if len(c.words) == 0 {
			a.redirects(n, cwd, c.writes)
			continue
		}
		at := len(a.nodes)
		a.command(c.words, cwd, depth+1)
		if at < len(a.nodes) {
			a.redirects(a.nodes[at], cwd, c.writes)
		}
		if readsStdin(c.words) {
			for _, body := range c.heredocs {
				a.script(parseShell(body, depth+1), n, cwd, depth+1)
			}
		}
	}
}

// redirects records the files a script's command writes with >.
func (a *analysis) redirects(n *node, dir string, targets []string) {
	for _, t := range targets {
		a.target(n, dir, t, true)
	}
}
