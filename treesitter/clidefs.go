package treesitter

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/lunad/lunad/internal/lazyregexp"
)

// Command-line commands and flags defined in code, found by the shapes the
// common libraries give them (definitions of kind "command" and "flag",
// named as a user types them; the span is the string or the function that
// names the command):
//
//	Go:     cobra Use: "sub [args]", urfave/cli &cli.Command{Name: "sub"},
//	        cobra flags Flags().StringVarP(&v, "name", "n", ...), urfave/cli
//	        flags &cli.StringFlag{Name: "name", Aliases: []string{"n"}}
//	Python: click/typer @x.command(), @x.command("sub"), @x.group(),
//	        argparse add_parser("sub"), typer add_typer(app, name="sub"),
//	        click add_command(cmd, "sub"), click @click.option("--name"),
//	        argparse add_argument("--name")
//	Rust:   clap #[command(name = "sub")], the variants of a
//	        #[derive(Subcommand)] enum or of a #[derive(Parser)] enum (a
//	        top-level command enum; kebab-case, or #[clap(name = "sub")]),
//	        #[arg(long)] fields (clap 3's #[clap(long)], structopt's
//	        #[structopt(long)]); the builder's Command::new("sub"),
//	        App::new("sub"), SubCommand::with_name("sub") and .long("name")
//	        in a file that uses clap (clapBuilder)
//	JS/TS:  commander/yargs .command("sub ..."), .option("-n, --name")
//
// A short flag defined next to a long one (-n for --name), a long flag's
// alias (clap's alias = "old-name") and the negative half of a click
// boolean pair ("--x/--no-x") are not definitions of their own but other
// names of the long flag (ShortFlag).
//
// The scan reads the text, not the syntax tree: a command built at run
// time (a name from a variable) is not found, and a shape written in a
// comment or string is.
type cliPattern struct {
	gated
	kind string
	// name turns the submatches into the name; nil: submatch 1.
	name func(src []byte, m []int) (start, end int, name string)
}

// gated is a regular expression run only on text that holds one of its
// literals, a string every match contains: most files define no command,
// and a bytes.Contains is some hundred times cheaper than a regular
// expression's scan of the file (the scans took a quarter of a Python
// file's extraction before).
type gated struct {
	re   *regexp.Regexp
	lits []string
}

func gate(expr string, lits ...string) gated { return gated{regexp.MustCompile(expr), lits} }

// findAll is re.FindAllSubmatchIndex(src, -1), or nil at once when src
// holds none of the literals.
func (g gated) findAll(src []byte) [][]int {
	for _, l := range g.lits {
		if bytes.Contains(src, []byte(l)) {
			return g.re.FindAllSubmatchIndex(src, -1)
		}
	}
	return nil
}

// cliPatterns are compiled on first use, as every regular expression of
// the package is (lazyregexp.New).
var cliPatterns = sync.OnceValue(func() map[string][]cliPattern {
	jsCLI := []cliPattern{
		{gated: gate(`\.command\(\s*['"`+"`"+`]([A-Za-z][\w-]*)`, ".command("), kind: "command"},
		{gated: gate(`\.option\(\s*['"`+"`"+`](?:-\w,?\s*)?--([A-Za-z][\w-]+)`, ".option("), kind: "flag"},
	}
	return map[string][]cliPattern{
		LangGo: {
			{gated: gate(`\bUse:\s*"([A-Za-z][\w-]*)`, "Use:"), kind: "command"},
			{gated: gate(`cli\.Command\{\s*Name:\s*"([A-Za-z][\w-]*)"`, "cli.Command{"), kind: "command"},
			{gated: gate(`cli\.\w*Flag\{\s*Name:\s*"([A-Za-z][\w-]+)"`, "Flag{"), kind: "flag"},
			{gated: gate(`Flags\(\)\.\w+\((?:&[\w.]+,\s*)?"([A-Za-z][\w-]+)"`, "Flags()."), kind: "flag"},
		},
		LangPython: {
			{gated: gate(`@[\w.]*\b(?:command|group)\(((?:[^()]|\([^()]*\))*)\)\s*\n`, ".command(", "@command(", ".group(", "@group("), kind: "command", name: pyCommandName},
			{gated: gate(`\badd_parser\(\s*["']([A-Za-z][\w-]*)["']`, "add_parser("), kind: "command"},
			{gated: gate(`\badd_(?:typer|command)\(\s*[\w.]+\s*,\s*(?:name\s*=\s*)?["']([A-Za-z][\w-]*)["']`, "add_typer(", "add_command("), kind: "command"},
			{gated: gate(`@[\w.]*\boption\(\s*(?:["']-\w["'],\s*)?["']--([A-Za-z][\w-]+)`, ".option(", "@option("), kind: "flag"},
			{gated: gate(`\badd_argument\(\s*(?:["']-\w["'],\s*)?["']--([A-Za-z][\w-]+)`, "add_argument("), kind: "flag"},
		},
		LangRust: {
			{gated: gate(`#\[command\([^\]]*\bname\s*=\s*"([A-Za-z][\w-]*)"`, "#[command("), kind: "command"},
			{gated: gate(`(?s)#\[derive\([^)]*\b(?:Subcommand|Parser)\b[^)]*\)\][^{;]*\benum\s+\w+\s*\{`, "Subcommand", "Parser"), kind: "command", name: nil},
			{gated: gate(`#\[(?:arg|clap|structopt)\(((?:[^\[\]]|\[[^\]]*\])*\blong\b(?:[^\[\]]|\[[^\]]*\])*)\)\]\s*(?:(?:///[^\n]*|#\[[^\n]*)\n\s*)*(?:pub(?:\([\w:]+\))?\s+)?(\w+)\s*:`, "#[arg(", "#[clap(", "#[structopt("), kind: "flag", name: clapFlagName},
			{gated: gate(`\b(?:[\w:]*::)?(?:Command|App|SubCommand)::(?:new|with_name)\(\s*"([A-Za-z][\w-]*)"`, "Command::", "App::"), kind: "command", name: clapBuilder},
			{gated: gate(`\.long\(\s*"([A-Za-z][\w-]+)"\s*\)`, ".long("), kind: "flag", name: clapBuilder},
		},
		LangJavaScript: jsCLI,
		LangTypeScript: jsCLI,
	}
})

var (
	quotedName = lazyregexp.New(`^\s*(?:name\s*=\s*)?["']([A-Za-z][\w-]*)["']|\bname\s*=\s*["']([A-Za-z][\w-]*)["']`)
	pyNextDef  = lazyregexp.New(`(?m)^\s*(?:async\s+)?def\s+(\w+)`) // the function under the decorators
	clapLong   = lazyregexp.New(`\blong\s*=\s*"([A-Za-z][\w-]*)"`)
	clapName   = lazyregexp.New(`#\[(?:command|clap)\([^\]]*\bname\s*=\s*"([A-Za-z][\w.-]*)"`)
	// processCommand matches an import of a process-spawning Command
	// (std, tokio, async-std): Command::new("git") in its file runs git.
	processCommand = lazyregexp.New(`\buse\s+[\w:]*\bprocess::(?:Command\b|\{[^}]*\bCommand\b)`)
)

// clapBuilder keeps a clap builder's command or flag (submatch 1) only in
// a file that names clap, and a command only where Command is clap's: the
// path before it is clap:: or nothing, and the file does not import a
// process Command (std::process::Command::new("git") runs a program).
func clapBuilder(src []byte, m []int) (int, int, string) {
	if !bytes.Contains(src, []byte("clap")) {
		return 0, 0, ""
	}
	call := src[m[0]:m[2]]
	if bytes.HasPrefix(call, []byte(".long(")) {
		return m[2], m[3], string(src[m[2]:m[3]])
	}
	path, _, _ := bytes.Cut(call, []byte("::new("))
	path, _, _ = bytes.Cut(path, []byte("::with_name("))
	if i := bytes.LastIndex(path, []byte("::")); i >= 0 {
		if string(path[:i]) != "clap" {
			return 0, 0, ""
		}
	} else if processCommand().Match(src) {
		return 0, 0, ""
	}
	return m[2], m[3], string(src[m[2]:m[3]])
}

// pyCommandName is a click/typer command's name: the one given, else the
// function's with _ as - (click 8.2 also drops a _command/_cmd suffix).
func pyCommandName(src []byte, m []int) (int, int, string) {
	args := string(src[m[2]:m[3]])
	if q := quotedName().FindStringSubmatchIndex(args); q != nil {
		i := 2
		if q[2] < 0 {
			i = 4
		}
		return m[2] + q[i], m[2] + q[i+1], args[q[i]:q[i+1]]
	}
	d := pyNextDef().FindSubmatchIndex(src[m[1]:])
	if d == nil {
		return m[2], m[3], ""
	}
	fs, fe := m[1]+d[2], m[1]+d[3]
	fn := string(src[fs:fe])
	for _, suf := range []string{"_command", "_cmd", "_group", "_grp"} {
		if t, ok := strings.CutSuffix(fn, suf); ok && t != "" {
			fn = t
			break
		}
	}
	return fs, fe, strings.ReplaceAll(fn, "_", "-")
}

// clapFlagName is a clap #[arg(long)] field's flag: long = "x", else the
// field name with _ as -.
func clapFlagName(src []byte, m []int) (int, int, string) {
	if q := clapLong().FindSubmatchIndex(src[m[2]:m[3]]); q != nil {
		return m[2] + q[2], m[2] + q[3], string(src[m[2]+q[2] : m[2]+q[3]])
	}
	return m[4], m[5], strings.ReplaceAll(string(src[m[4]:m[5]]), "_", "-")
}

// kebab turns a Rust variant name into clap's default subcommand name:
// a word starts at a capital after a lower-case letter or digit, and at
// the last capital of a run followed by a lower-case letter
// (SelfUpdate -> self-update, HTTPServer -> http-server).
func kebab(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
				b.WriteByte('-')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// cliDefs reports the commands and flags src (in lang) defines.
func cliDefs(lang string, src []byte, add func(*def)) {
	pats := cliPatterns()[lang]
	if len(pats) == 0 {
		return
	}
	for _, p := range pats {
		for _, m := range p.findAll(src) {
			if p.kind == "command" && lang == LangRust && p.name == nil && len(m) == 2 {
				subcommandVariants(src, m[1], add)
				continue
			}
			s, e := m[2], m[3]
			name := string(src[s:e])
			if p.name != nil {
				if s, e, name = p.name(src, m); name == "" {
					continue
				}
			}
			add(&def{Symbol: Symbol{Name: name, Kind: p.kind}, start: m[0], end: m[1], nameStart: s, nameEnd: e})
		}
	}
}

// subcommandVariants adds the variants of the enum body that starts at
// open (just after its '{') as clap subcommands: each kebab-cased, or as
// #[clap(name = "x")] on the variant names it; one named by
// #[command(name = "x")] is left to that pattern, which adds it.
//
// Each command's container is the enum, named explicitly: the variant's
// own definition (a constant, queries/rust.scm) encloses a tuple or
// struct variant's name and would be taken for it.
func subcommandVariants(src []byte, open int, addDef func(*def)) {
	head := bytes.TrimRight(src[:open-1], " \t\r\n")
	enum := string(head[bytes.LastIndexFunc(head, func(r rune) bool { return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) })+1:])
	add := func(d *def) {
		d.Container, d.explicitContainer = enum, true
		addDef(d)
	}
	for _, v := range enumVariants(src, open) {
		attrs := src[v.attrs:v.start]
		if q := clapName().FindSubmatchIndex(attrs); q != nil {
			if bytes.HasPrefix(attrs[q[0]:], []byte("#[command")) {
				continue
			}
			s, e := v.attrs+q[2], v.attrs+q[3]
			add(&def{Symbol: Symbol{Name: string(src[s:e]), Kind: "command"}, start: s, end: e, nameStart: s, nameEnd: e})
			continue
		}
		add(&def{Symbol: Symbol{Name: kebab(string(src[v.start:v.end])), Kind: "command"}, start: v.start, end: v.end, nameStart: v.start, nameEnd: v.end})
	}
}

// variant is one variant of a Rust enum body: the offset where its
// attributes and comments begin, and its name's.
type variant struct{ attrs, start, end int }

// enumVariants lists the variants of the enum body that starts at open:
// the pieces between the body's top-level commas, each its doc comments
// and attributes, then a name starting with a capital.
func enumVariants(src []byte, open int) []variant {
	var out []variant
	piece, depth := open, 0
	for i := open; i < len(src); i++ {
		switch c := src[i]; {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case c == '{' || c == '(' || c == '[' || c == '<':
			depth++
		case (c == ')' || c == ']' || c == '>' || c == '}') && depth > 0:
			depth--
		case c == '}' || c == ',' && depth == 0:
			if v, ok := variantAt(src, piece, i); ok {
				out = append(out, v)
			}
			if c == '}' {
				return out
			}
			piece = i + 1
		}
	}
	return out
}

// variantAt reads the variant in src[from:to]: comments and #[...]
// attributes, then the name.
func variantAt(src []byte, from, to int) (variant, bool) {
	i := from
	for i < to {
		switch {
		case unicode.IsSpace(rune(src[i])):
			i++
		case bytes.HasPrefix(src[i:to], []byte("//")):
			for i < to && src[i] != '\n' {
				i++
			}
		case bytes.HasPrefix(src[i:to], []byte("#[")):
			depth := 0
			for ; i < to; i++ {
				if src[i] == '[' {
					depth++
				} else if src[i] == ']' {
					if depth--; depth == 0 {
						i++
						break
					}
				}
			}
		default:
			e := i
			for e < to && (src[e] == '_' || unicode.IsLetter(rune(src[e])) || unicode.IsDigit(rune(src[e]))) {
				e++
			}
			if e == i || !unicode.IsUpper(rune(src[i])) {
				return variant{}, false
			}
			return variant{attrs: from, start: i, end: e}, true
		}
	}
	return variant{}, false
}

// ShortFlag is another name of a long flag ("name"), defined with it:
// a one-letter flag ("-n": cobra's StringVarP(&v, "name", "n", ...),
// urfave/cli's first alias when it is one letter, click's and argparse's
// ("-n", "--name"), commander's "-n, --name", clap's #[arg(short, long)]
// (the first letter of the long name) or #[arg(short = 'n')]), or a long
// name without its dashes, as a flag reference names it ("no-name": the
// second half of click's "--name/--no-name", clap's alias = "old-name",
// visible_alias, aliases = ["a", "b"]).
type ShortFlag struct{ Short, Long string }

var shortPatterns = sync.OnceValue(func() map[string][]gated {
	return map[string][]gated{ // submatches: long, short
		LangGo: {
			gate(`Flags\(\)\.\w+P\((?:&[\w.]+,\s*)?"([A-Za-z][\w-]+)",\s*"([A-Za-z0-9])"`, "Flags()."),
			gate(`cli\.\w*Flag\{\s*Name:\s*"([A-Za-z][\w-]+)",\s*Aliases:\s*\[\]string\{\s*"([A-Za-z0-9])"`, "Flag{"),
		},
		LangPython: {
			gate(`(?:@[\w.]*\boption|\badd_argument)\(\s*["']--([A-Za-z][\w-]+)["'],\s*["']-([A-Za-z0-9])["']`, ".option(", "@option(", "add_argument("),
		},
		LangJavaScript: {gate(`\.option\(\s*['"`+"`"+`]-([A-Za-z0-9]),?\s*--([A-Za-z][\w-]+)`, ".option(")},
	}
})

// shortFirst are the patterns whose first submatch is the short flag.
var shortFirst = sync.OnceValue(func() map[string][]gated {
	return map[string][]gated{
		LangPython: {gate(`(?:@[\w.]*\boption|\badd_argument)\(\s*["']-([A-Za-z0-9])["'],\s*["']--([A-Za-z][\w-]+)`, ".option(", "@option(", "add_argument(")},
	}
})

var (
	clapShort = lazyregexp.New(`\bshort\b(?:\s*=\s*'([A-Za-z0-9])')?`)
	// clap's long aliases: alias = "x", visible_alias = "x",
	// aliases = ["x", "y"], visible_aliases = ["x"] (short_alias is a
	// one-letter flag's, not read)
	clapAlias   = lazyregexp.New(`\b(?:visible_)?alias\s*=\s*"([A-Za-z][\w-]+)"|\b(?:visible_)?aliases\s*=\s*\[([^\]]*)\]`)
	quotedWords = lazyregexp.New(`"([A-Za-z][\w-]+)"`)
	// click's boolean pair "--x/--no-x" (submatches: x, no-x)
	clickPair = sync.OnceValue(func() gated {
		return gate(`@[\w.]*\boption\(\s*(?:["']-\w["'],\s*)?["']--([A-Za-z][\w-]+)\s*/\s*--([A-Za-z][\w-]+)["']`, ".option(", "@option(")
	})
)

// clapAliases are the long aliases a clap #[arg(...)] attribute's text
// gives its flag.
func clapAliases(attrs []byte) []string {
	var out []string
	for _, m := range clapAlias().FindAllSubmatchIndex(attrs, -1) {
		if m[2] >= 0 {
			out = append(out, string(attrs[m[2]:m[3]]))
			continue
		}
		for _, q := range quotedWords().FindAllSubmatch(attrs[m[4]:m[5]], -1) {
			out = append(out, string(q[1]))
		}
	}
	return out
}

// shortFlags reports the short flags src (in lang) defines next to a long
// one, in file order of their patterns.
func shortFlags(lang string, src []byte) []ShortFlag {
	var out []ShortFlag
	if lang == LangTypeScript {
		lang = LangJavaScript
	}
	for _, re := range shortPatterns()[lang] {
		for _, m := range re.findAll(src) {
			long, short := string(src[m[2]:m[3]]), string(src[m[4]:m[5]])
			if lang == LangJavaScript { // "-n, --name": short first
				long, short = short, long
			}
			out = append(out, ShortFlag{Short: "-" + short, Long: long})
		}
	}
	if lang == LangPython { // click's boolean pair: --no-x is another name of --x
		for _, m := range clickPair().findAll(src) {
			out = append(out, ShortFlag{Short: string(src[m[4]:m[5]]), Long: string(src[m[2]:m[3]])})
		}
	}
	for _, re := range shortFirst()[lang] {
		for _, m := range re.findAll(src) {
			out = append(out, ShortFlag{Short: "-" + string(src[m[2]:m[3]]), Long: string(src[m[4]:m[5]])})
		}
	}
	if lang == LangRust {
		for _, p := range cliPatterns()[LangRust] {
			if p.kind != "flag" || p.re.NumSubexp() < 2 { // the attribute pattern, not the builder's .long("x")
				continue
			}
			for _, m := range p.findAll(src) {
				attrs := src[m[2]:m[3]]
				_, _, long := clapFlagName(src, m)
				if sm := clapShort().FindSubmatchIndex(attrs); sm != nil {
					short := long[:1]
					if sm[2] >= 0 {
						short = string(attrs[sm[2]:sm[3]])
					}
					out = append(out, ShortFlag{Short: "-" + short, Long: long})
				}
				for _, a := range clapAliases(attrs) {
					out = append(out, ShortFlag{Short: a, Long: long})
				}
			}
		}
	}
	return out
}

// withCLI completes a code File with the short flags its text defines.
func withCLI(f *File, lang string, src []byte) *File {
	f.ShortFlags = shortFlags(lang, src)
	return f
}
