package policy

import (
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// opts is a command's argv after the program, read as POSIX and GNU
// tools read theirs: short options clustered (-rf), long options with
// = or a separate value, -- ending the options.
type opts struct {
	flags    map[string]bool   // "-r", "--recursive"
	values   map[string]string // an option taking a value → its value
	operands []string
}

// parseOpts reads args; valued are the short options (letters) that take
// a value, valuedLong the long ones (with their dashes).
func parseOpts(args []string, valued string, valuedLong ...string) opts {
	o, _ := scanOpts(args, false, valued, valuedLong)
	return o
}

// scanOpts is parseOpts; with posix set it stops at the first operand
// (the wrapped command of a wrapper) and returns its index.
func scanOpts(args []string, posix bool, valued string, valuedLong []string) (o opts, end int) {
	o = opts{flags: map[string]bool{}, values: map[string]string{}}
	for i := 0; i < len(args); i++ {
		x := args[i]
		switch {
		case x == "--":
			o.operands = append(o.operands, args[i+1:]...)
			return o, i + 1
		case strings.HasPrefix(x, "--"):
			name, val, hasVal := strings.Cut(x, "=")
			o.flags[name] = true
			switch {
			case hasVal:
				o.values[name] = val
			case contains(valuedLong, name) && i+1 < len(args):
				i++
				o.values[name] = args[i]
			}
		case len(x) > 1 && x[0] == '-':
			for j := 1; j < len(x); j++ {
				name := "-" + x[j:j+1]
				o.flags[name] = true
				if strings.IndexByte(valued, x[j]) < 0 {
					continue
				}
				if j+1 < len(x) {
					o.values[name] = x[j+1:]
				} else if i+1 < len(args) {
					i++
					o.values[name] = args[i]
				}
				break
			}
		case posix:
			return o, i
		default:
			o.operands = append(o.operands, x)
		}
	}
	return o, len(args)
}

// has reports whether any of the options was given.
func (o opts) has(names ...string) bool {
	for _, n := range names {
		if o.flags[n] {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// wrapper is a program that runs the rest of its argv as a command.
type wrapper struct {
	valued     string   // short options taking a value
	valuedLong []string // long options taking a value
	skip       int      // operands before the command (timeout's duration)
}

var wrappers = map[string]wrapper{
	"env":     {valued: "uCS", valuedLong: []string{"--unset", "--chdir", "--split-string"}},
	"nice":    {valued: "n", valuedLong: []string{"--adjustment"}},
	"nohup":   {},
	"setsid":  {},
	"timeout": {valued: "sk", valuedLong: []string{"--signal", "--kill-after"}, skip: 1},
	"time":    {valued: "fo", valuedLong: []string{"--format", "--output"}},
	"stdbuf":  {valued: "ioe", valuedLong: []string{"--input", "--output", "--error"}},
	"ionice":  {valued: "cnp", valuedLong: []string{"--class", "--classdata", "--pid"}},
	"xargs": {valued: "aEdILnPs", valuedLong: []string{"--arg-file", "--eof", "--delimiter", "--replace",
		"--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
	"exec":    {valued: "a"},
	"command": {},
	"builtin": {},
	"sudo":    {valued: "ugCDhprtTU", valuedLong: []string{"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user"}},
	"doas":    {valued: "uC"},
	// Launchers read as wrappers (flock's lock file is an operand).
	"flock": {valued: "wE", valuedLong: []string{"--timeout", "--wait", "--conflict-exit-code"}, skip: 1},
	"strace": {valued: "abeIoOpPsSuUXE", valuedLong: []string{"--output", "--trace", "--signal", "--status", "--user",
		"--env", "--attach", "--string-limit", "--columns", "--summary-sort-by", "--trace-path", "--detach-on", "--seccomp-bpf"}},
}

// unwrap returns the command a wrapper runs, and the directory it runs
// in when the wrapper changes it (env -C); ok is false when argv runs no
// other command.
func unwrap(argv []string) (inner []string, chdir string, ok bool) {
	prog := path.Base(argv[0])
	if prog == "busybox" && len(argv) > 1 {
		return argv[1:], "", true
	}
	if prog == "flock" {
		// flock [options] FILE -c COMMAND runs COMMAND with sh -c.
		_, i := scanOpts(argv[1:], true, "wE", []string{"--timeout", "--wait", "--conflict-exit-code"})
		if rest := argv[min(i+2, len(argv)):]; len(rest) >= 2 && (rest[0] == "-c" || rest[0] == "--command") {
			return []string{"sh", "-c", rest[1]}, "", true
		}
	}
	w, isWrapper := wrappers[prog]
	if !isWrapper {
		return nil, "", false
	}
	// Options end at the first operand: the command's own options follow.
	o, i := scanOpts(argv[1:], true, w.valued, w.valuedLong)
	i++
	if prog == "env" {
		chdir = o.values["-C"] + o.values["--chdir"]
	}
	var split []string
	if v, ok := o.values["-S"]; ok {
		split = splitWords(v)
	} else if v, ok := o.values["--split-string"]; ok {
		split = splitWords(v)
	}
	if prog == "command" && o.has("-v", "-V") {
		return nil, "", false // command -v names a program, it runs none
	}
	if prog == "env" {
		for i < len(argv) && (isAssignment(argv[i]) || argv[i] == "-") {
			i++
		}
	}
	i += w.skip
	if split != nil {
		return append(split, argv[min(i, len(argv)):]...), chdir, true
	}
	if i >= len(argv) {
		return nil, "", false
	}
	return argv[i:], chdir, true
}

var assignment = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssignment(s string) bool { return assignment().MatchString(s) }

// splitWords splits a string into words as a shell would (env -S, git
// aliases), without expanding anything.
func splitWords(s string) []string {
	sc := parseShell(s, 0)
	var out []string
	for _, c := range sc.cmds {
		out = append(out, c.words...)
	}
	return out
}

// effective is the command argv finally runs, through wrappers.
func effective(argv []string) []string {
	for range maxDepth {
		if len(argv) == 0 {
			return argv
		}
		inner, _, ok := unwrap(argv)
		if !ok {
			return argv
		}
		argv = inner
	}
	return argv
}

// show is how a reason names a command: its argv as a shell would take
// it, cut at 80 characters.
func show(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteWord(a))
	}
	return cut(b.String(), 80)
}

// quoteWord quotes a word that a shell would not take as it is, and any
// word with characters that are not printable.
func quoteWord(a string) string {
	plain := a != ""
	for _, r := range a {
		if !unicode.IsPrint(r) || r == ' ' || strings.ContainsRune(`'"\$`+"`"+`|&;<>()*?[]{}#~!`, r) {
			plain = false
			break
		}
	}
	if plain {
		return a
	}
	return strconv.Quote(a)
}

// cut shortens s to n characters, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
