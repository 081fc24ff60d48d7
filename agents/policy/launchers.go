package policy

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// Launchers are programs that run another program named in their
// arguments without being a plain wrapper: find -exec, flock, strace, and
// interpreters whose inline code calls system or exec with a literal
// command (awk 'BEGIN{system("make deploy")}', perl -e 'exec "make",
// "deploy"'). The policy reads the commands it can see there as it reads
// a shell script's; what it cannot see — a command built at run time, a
// script in a file, a launcher it does not know — it does not check.
// That is why rules on programs and arguments are advisory and the
// sandbox is the boundary.

// launched reads the commands a launcher runs, as nodes of the analysis.
func (a *analysis) launched(n *node, depth int) {
	prog := path.Base(n.argv[0])
	switch {
	case prog == "find":
		a.findExec(n, depth)
	case awk().MatchString(prog):
		for _, code := range awkCode(n.argv[1:]) {
			a.inlineCommands(n, awkCommands(code), depth)
		}
	case prog == "perl" || prog == "ruby" || perlLike().MatchString(prog):
		for _, code := range optionValues(n.argv[1:], "eE") {
			a.perlCommands(n, code, depth)
		}
	}
}

var (
	awk      = lazyregexp.New(`^(awk|gawk|mawk|nawk|busybox-awk)$`)
	perlLike = lazyregexp.New(`^(perl|ruby)[0-9.]+$`)
)

// findExec reads find's -exec, -execdir, -ok and -okdir commands, each up
// to its ";" or "+". -execdir runs in each file's directory, which the
// policy cannot tell.
func (a *analysis) findExec(n *node, depth int) {
	args := n.argv[1:]
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-ok", "-execdir", "-okdir":
		default:
			continue
		}
		dir := n.dir
		if args[i] == "-execdir" || args[i] == "-okdir" {
			dir = ""
		}
		end := i + 1
		for end < len(args) && args[end] != ";" && args[end] != "+" {
			end++
		}
		if end > i+1 {
			a.command(args[i+1:end], dir, depth+1)
		}
		i = end
	}
}

// optionValues are the code arguments of an interpreter: the values of
// its short options in letters (given apart, -e CODE, at the end of a
// cluster, -ne CODE, or attached, -eCODE) and of its long options in long
// (--source CODE, --source=CODE), in order, up to -- or its first operand.
func optionValues(args []string, letters string, long ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		x := args[i]
		switch {
		case x == "--" || x == "-" || !strings.HasPrefix(x, "-"):
			return out
		case strings.HasPrefix(x, "--"):
			name, val, hasVal := strings.Cut(x, "=")
			switch {
			case !contains(long, name):
			case hasVal:
				out = append(out, val)
			case i+1 < len(args):
				i++
				out = append(out, args[i])
			}
		default:
			if j := strings.IndexAny(x[1:], letters); j >= 0 {
				if rest := x[j+2:]; rest != "" {
					out = append(out, rest)
				} else if i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
			}
		}
	}
	return out
}

// awkCode is an awk command's program text: its -e / --source values
// (gawk), else its first operand.
func awkCode(args []string) []string {
	if code := optionValues(args, "e", "--source"); len(code) > 0 {
		return code
	}
	o, i := scanOpts(args, true, "Ffvile", []string{"--field-separator", "--file", "--assign", "--include", "--load", "--source"})
	if o.has("-f", "--file") || i >= len(args) {
		return nil // a program in a file
	}
	return args[i : i+1]
}

var (
	awkString = `"((?:[^"\\]|\\.)*)"`
	// system("cmd"), print … | "cmd", "cmd" | getline: a literal command
	// string run by /bin/sh.
	awkSystem = lazyregexp.New(`\bsystem\s*\(\s*` + awkString + `\s*\)`)
	awkPipeTo = lazyregexp.New(`\|&?\s*` + awkString)
	awkPipeIn = lazyregexp.New(awkString + `\s*\|&?\s*getline`)
)

// awkCommands are the literal command strings of an awk program.
func awkCommands(code string) []string {
	var out []string
	for _, re := range []*regexp.Regexp{awkSystem(), awkPipeTo(), awkPipeIn()} {
		for _, m := range re.FindAllStringSubmatch(code, -1) {
			out = append(out, unescapeDouble(m[1]))
		}
	}
	return out
}

// unescapeDouble reads a double-quoted literal's text as C-like languages
// do; text Go does not take is kept as written.
func unescapeDouble(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(s)
}

// inlineCommands reads command strings that code runs through /bin/sh
// (awk's system, perl's system with one string).
func (a *analysis) inlineCommands(n *node, cmds []string, depth int) {
	for _, c := range cmds {
		a.script(parseShell(c, depth+1), n, n.dir, depth+1)
	}
}

var (
	perlLiteral = `(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`
	// exec / system with literal arguments: exec "make", "deploy";
	// system("make deploy").
	perlCall = lazyregexp.New(`\b(?:exec|system|spawn)\s*\(?\s*(` + perlLiteral + `(?:\s*,\s*` + perlLiteral + `)*)`)
	perlWord = lazyregexp.New(perlLiteral)
	// `cmd`, qx{cmd}, qx(cmd), %x(cmd): run through /bin/sh.
	perlBacktick = lazyregexp.New("`([^`]*)`|\\b(?:qx|%x)\\s*[{(\\[]([^})\\]]*)[})\\]]")
)

// perlCommands reads the commands perl or ruby inline code runs with
// literal arguments: a list is an argv; one string is a shell command
// (perl splits one without shell characters into words, as the shell
// would read it).
func (a *analysis) perlCommands(n *node, code string, depth int) {
	for _, m := range perlCall().FindAllStringSubmatch(code, -1) {
		words := perlWord().FindAllString(m[1], -1)
		for i, w := range words {
			words[i] = perlUnquote(w)
		}
		if len(words) == 1 {
			a.inlineCommands(n, words, depth)
		} else if len(words) > 1 {
			a.command(words, n.dir, depth+1)
		}
	}
	for _, m := range perlBacktick().FindAllStringSubmatch(code, -1) {
		a.inlineCommands(n, []string{m[1] + m[2]}, depth)
	}
}

func perlUnquote(w string) string {
	body := w[1 : len(w)-1]
	if w[0] == '"' {
		return unescapeDouble(body)
	}
	return strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(body)
}
