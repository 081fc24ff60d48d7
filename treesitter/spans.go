package treesitter

import (
	"bytes"
	"strings"
	"unicode"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// Normalising a Markdown code span to the name it mentions (spanName),
// and reading the role the words around it give it (spanRole).

var (
	// signature: "fn parse(s: &str) -> T", "def get(url, **kw)",
	// "async def aread()", "function create(opts)", "func (s *S) Run()"
	sigPrefix = lazyregexp.New(`^(?:pub\s+)?(?:async\s+)?(?:fn|def|function|func)\s+(?:\([^)]*\)\s*)?`)
	// a command line: "tool sub", "mkdocs gh-deploy", "cargo generate" —
	// two or three lower-case words and nothing else
	commandLine = lazyregexp.New(`^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*(?: [a-z][a-z0-9]*(?:-[a-z0-9]+)*){1,2}$`)
	// a command line with arguments that are placeholders or paths:
	// "dotenv set <key> <value>", "ko build ./cmd/app", "tool add [name]"
	// (submatch 1: the command words)
	commandArgs = lazyregexp.New(`^([a-z][a-z0-9]*(?:[-_][a-z0-9]+)*(?: [a-z][a-z0-9]*(?:-[a-z0-9]+)*){1,2})(?: (?:<[^<>\s]+>|\[[^\[\]\s]+\]|\.{1,2}/\S*))+$`)
	// a single dashed word ("gh-deploy") is no identifier: a command
	dashedWord = lazyregexp.New(`^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$`)
	// a long flag, optionally with its value: "--force", "--config <file>"
	longFlag = lazyregexp.New(`^--([A-Za-z][\w-]*[A-Za-z0-9])(?:[ =].*)?$`)
	// a short flag, optionally with its long form or a value: "-n",
	// "-i | --identity", "-w 60"; a digit ("-1") is a number
	shortFlag = lazyregexp.New(`^-([A-Za-z])(?:\s*[|,/]\s*--([A-Za-z][\w-]*[A-Za-z0-9]))?(?:[ =].*)?$`)
)

// spanName returns the name a code span's text mentions and the role its
// shape gives it (RoleCommand, RoleFlag, RoleParameter or ""), or ok false
// when it is not symbol-like. It strips a leading ~ or . (MyST and Sphinx
// "~Group.get_command", ".aread()"), a def/fn/function signature, a return
// type, the arguments of the last call ("devtools(fn, opts)" ->
// "devtools"), generics ("UseBoundStore<T, S>"); "x=" is a parameter.
// A leading @ (a decorator in use, "@define(frozen=True)") is dropped.
// One-character names are not references; a leading dot before a call is
// kept in the name (a member); a span with any other leading dot (".git")
// is not a reference.
func spanName(code string) (name, role string, ok bool) {
	code = strings.TrimSpace(code)
	if plainIdent(code) { // the common case, without a regular expression
		if len(code) < 2 {
			return "", "", false
		}
		return code, "", true
	}
	if m := longFlag().FindStringSubmatch(code); m != nil {
		return m[1], RoleFlag, true
	}
	if m := shortFlag().FindStringSubmatch(code); m != nil { // "-n": the long flag defined with it
		if m[2] != "" {
			return m[2], RoleFlag, true
		}
		return "-" + m[1], RoleFlag, true
	}
	if commandLine().MatchString(code) || dashedWord().MatchString(code) {
		return code, RoleCommand, true
	}
	if m := commandArgs().FindStringSubmatch(code); m != nil {
		return m[1], RoleCommand, true
	}
	if n, found := strings.CutSuffix(code, "="); found && !strings.HasSuffix(n, "=") {
		code, role = n, RoleParameter
	}
	code = strings.TrimLeft(code, "~")
	if d, found := strings.CutPrefix(code, "@"); found && d != "" && (d[0] == '_' || unicode.IsLetter(rune(d[0]))) {
		code = d // a decorator in use: "@define(frozen=True)" names define
	}
	member := strings.HasPrefix(code, ".") && strings.HasSuffix(code, ")") // ".aread()" is a method; ".gitconfig" a file
	if strings.HasPrefix(code, ".") && !member {
		return "", "", false // ".git", ".md": a file or an extension
	}
	code = strings.TrimPrefix(code, ".")
	if loc := sigPrefix().FindStringIndex(code); loc != nil {
		code = code[loc[1]:]
	}
	if i := strings.Index(code, " -> "); i > 0 {
		code = code[:i]
	} else if i := strings.Index(code, "): "); i > 0 { // Python/TS return annotation
		code = code[:i+1]
	}
	code = stripGroup(code, '(', ')')
	code = stripGroup(code, '<', '>')
	code = stripGroup(code, '[', ']') // Rust/Python generics: Vec[T], list[str]
	if !symbolName().MatchString(code) {
		return "", "", false
	}
	if last := splitQualified(code); len(last[len(last)-1]) < 2 {
		return "", "", false
	}
	if member {
		code = "." + code // kept: resolveProse binds it to members only
	}
	return code, role, true
}

// plainIdent reports whether s is an unqualified identifier (letters,
// digits, _ and $, not starting with a digit).
func plainIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// symbolName is a bare or qualified identifier: parse_config,
// Parser.Parse, std::fs::read, Foo#bar.
var symbolName = lazyregexp.New(`^[A-Za-z_$][A-Za-z0-9_$]*((\.|::|#)[A-Za-z_$][A-Za-z0-9_$]*)*$`)

// stripGroup removes one trailing balanced group opened by open
// ("f(a, (b))" -> "f"), when it ends the text; text with an unbalanced or
// inner group is returned as is.
func stripGroup(s string, open, close byte) string {
	if !strings.HasSuffix(s, string(close)) {
		return s
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case close:
			depth++
		case open:
			depth--
			if depth == 0 {
				if i == 0 {
					return s
				}
				return s[:i]
			}
		}
	}
	return s
}

// roleBefore and roleAfter are the words around a code span that say what
// the name is: "the `x` argument", "the `x` command", "`x` option",
// "variables `x`".
var (
	roleAfter = lazyregexp.New(`^\s*(?:(argument|arg|parameter|param|kwarg|keyword argument|option)|(command|subcommand|sub-command|cli command)|(variable|placeholder)|(module|crate|package|library)|(setting|config setting|configuration setting|config option|configuration option|config key|configuration key|config|configuration))s?\b`)
	// "the --x flag" is a flag by its shape; "option" after a name is a
	// parameter in API prose ("the `timeout` option") — a CLI option is
	// written with dashes.
	// "is `x`", "be `x`": after a copula a plain word is a value or a
	// state ("classes should be `frozen`"), not a function's name
	copulaBefore = lazyregexp.New(`(?i)\b(?:is|are|be|been|being)\s+$`)
	roleBefore   = lazyregexp.New(`(?i)\b(?:variables?|placeholders?)(?:\s+such\s+as|\s+like)?\s*$`)
)

// afterRoles are the roles of roleAfter's groups, in order.
var afterRoles = []string{RoleParameter, RoleCommand, RoleVariable, RoleModule, RoleSetting}

// maxRoleWords is how far after a span its role words are looked for.
const maxRoleWords = 40

// spanRole reads the role the words right before and after a code span
// give it; after a span that is a link's text ("[`nav`](#nav) setting",
// "[`nav`][cfg] setting", "[`nav`] setting") the words after the link
// count.
func spanRole(before, after []byte) string {
	if len(before) > 0 && roleBefore().Match(before) {
		return RoleVariable
	}
	switch {
	case bytes.HasPrefix(after, []byte("](")):
		if i := bytes.IndexByte(after, ')'); i > 0 {
			after = after[i+1:]
		}
	case bytes.HasPrefix(after, []byte("][")):
		if i := bytes.IndexByte(after[1:], ']'); i > 0 {
			after = after[i+2:]
		}
	case bytes.HasPrefix(after, []byte("]")): // a shortcut reference link: "[`unversioned`] module"
		after = after[1:]
	}
	t := bytes.TrimLeft(after, " \t\n")
	if len(t) == 0 || !strings.ContainsRune("apokscvml", rune(t[0])) { // no role word starts here
		return ""
	}
	m := roleAfter().FindSubmatchIndex(after)
	if m == nil {
		return ""
	}
	for i, role := range afterRoles {
		if m[2+2*i] >= 0 {
			return role
		}
	}
	return ""
}

// paramListHeading matches the line introducing a list of parameters in
// API docs: "Parameters:", "**Arguments**", "Args:", "Keyword arguments:".
var paramListHeading = lazyregexp.New(`(?i)^[\s>*_#]*(parameters|arguments|args|keyword arguments|kwargs|options|props)[\s*_:]*$`)

// variableListHeading matches the line introducing a list of template
// variables: "Builtin placeholders are:", "Variables:".
var variableListHeading = lazyregexp.New(`(?i)\b(placeholders|variables)\b[^.!?]*:[\s*_]*$`)

// listRole is the role of a code span at off that starts an item of a
// list a "Parameters:" line (RoleParameter) or a "... placeholders are:"
// line (RoleVariable) introduces: walking up over list items and their
// continuation lines, the first other non-blank line is such a line.
func listRole(src []byte, off int) string {
	from := max(0, off-maxMarker) // a list marker is close to the span it starts
	ls := bytes.LastIndexByte(src[from:off], '\n') + 1 + from
	if ls == from && from > 0 || !isListItem(string(src[ls:off])) {
		return ""
	}
	end := ls - 1
	for n := 0; end > 0 && n < maxParamListLines; n++ {
		s := bytes.LastIndexByte(src[:end], '\n') + 1
		line := string(src[s:end])
		end = s - 1
		switch t := strings.TrimSpace(line); {
		case t == "":
			continue
		case isListItem(line) || line[0] == ' ' || line[0] == '\t':
			continue
		case paramListHeading().MatchString(t):
			return RoleParameter
		case variableListHeading().MatchString(t):
			return RoleVariable
		default:
			return ""
		}
	}
	return ""
}

// maxMarker is the farthest a list marker can be before the span that
// starts its item (indentation and "1. "); looking no farther keeps a
// paragraph of 30,000 code spans linear.
const maxMarker = 64

// maxParamListLines bounds the walk up a list (a list of 10,000 items
// would otherwise cost quadratic time).
const maxParamListLines = 100

// isListItem reports whether the text before a span (from its line's
// start) is a list marker: "- ", "* ", "1. ", indented or not.
func isListItem(prefix string) bool {
	t := strings.TrimLeft(prefix, " \t>")
	for _, m := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(t, m) {
			return true
		}
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}
