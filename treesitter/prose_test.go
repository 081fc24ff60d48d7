package treesitter

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// proseGraph builds a graph of files (path -> content) and returns what
// the first code span of doc.md resolves to: "path#Container.Name",
// "unresolved", "ambiguous" or "no reference".
func proseResolve(t *testing.T, files map[string]string, doc string, pkgs map[string]string) string {
	t.Helper()
	p := NewParser()
	defer p.Close()
	g := NewGraph()
	files["doc.md"] = doc
	paths := make([]string, 0, len(files))
	for path := range files {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for i, path := range paths {
		f, err := p.Parse(path, []byte(files[path]))
		if err != nil {
			t.Fatal(err)
		}
		g.Put(Entry{ID: fmt.Sprint("A", i), Path: path, File: f, Package: pkgs[path]})
	}
	id := fmt.Sprint("A", slices.Index(paths, "doc.md"))
	for _, r := range g.Resolve(id) {
		if r.Ref.Kind != "code" {
			continue
		}
		switch r.State {
		case Resolved, Local:
			s := r.Target.Path + "#"
			if r.Target.Container != "" {
				s += r.Target.Container + "."
			}
			return s + r.Target.Name
		default:
			return r.State
		}
	}
	return "no reference"
}

// proseCase is a table test of prose resolution: what the first code
// span of doc resolves to among files (proseResolve).
type proseCase struct {
	name  string
	files map[string]string
	doc   string
	want  string
}

// runProseCases runs each case as a named subtest.
func runProseCases(t *testing.T, tests []proseCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := proseResolve(t, tt.files, tt.doc, pkgsFor(tt.files)); got != tt.want {
				t.Errorf("%q resolves to %s, want %s", strings.TrimSpace(tt.doc), got, tt.want)
			}
		})
	}
}

func TestProseRules(t *testing.T) {
	goUser := "package ssh\n\ntype user struct{}\n\nfunc clean() {}\n\nfunc Serve() {}\n"
	runProseCases(t, []proseCase{
		// visibility
		{"bare name skips unexported Go struct", map[string]string{"ssh.go": goUser}, "Log in as `user` first.\n", "unresolved"},
		{"bare name skips unexported Go func", map[string]string{"dev/tool.go": goUser}, "Run `clean` now.\n", "unresolved"},
		{"bare name reaches exported Go func", map[string]string{"ssh.go": goUser}, "Call `Serve`.\n", "ssh.go#Serve"},
		{"qualified name reaches unexported", map[string]string{"ssh.go": goUser}, "See `ssh.clean`.\n", "ssh.go#clean"},
		{"bare name skips Python _private", map[string]string{"m.py": "def _load():\n    pass\n"}, "`_load` reads.\n", "unresolved"},
		{"bare name skips Rust item without pub", map[string]string{"src/lib.rs": "fn helper() {}\npub fn run() {}\n"}, "`helper` helps.\n", "unresolved"},
		{"bare name reaches Rust pub item", map[string]string{"src/lib.rs": "fn helper() {}\npub fn run() {}\n"}, "`run` runs.\n", "src/lib.rs#run"},
		{"bare name skips a type declared in a function", map[string]string{"g.go": "package g\n\nfunc F() {\n\ttype T struct{}\n\t_ = T{}\n}\n"}, "The `T` type.\n", "no reference"},
		{"bare name skips a type declared in a function (two letters)", map[string]string{"g.go": "package g\n\nfunc F() {\n\ttype TT struct{}\n\t_ = TT{}\n}\n"}, "The `TT` type.\n", "unresolved"},
		// files that are not candidates
		{"test file is not a candidate", map[string]string{"a.go": "package a\n\nfunc Decode() {}\n", "a_test.go": "package a\n\nfunc Decode2() {}\n\ntype X struct{}\n\nfunc (X) UnmarshalTOML() {}\n", "b.go": "package a\n\ntype Y struct{}\n\nfunc (Y) UnmarshalTOML() {}\n"}, "Implement `UnmarshalTOML`.\n", "b.go#Y.UnmarshalTOML"},
		{"vendored minified file is not a candidate", map[string]string{"static/vendor/hl.min.js": "function Sx(){}\n", "app.js": "function Sy(){}\n"}, "`Sx` here.\n", "unresolved"},
		{"example dir is not a candidate", map[string]string{"examples/demo.py": "def fetch_all():\n    pass\n"}, "`fetch_all` fetches.\n", "unresolved"},
		{"qualified name reaches a test file", map[string]string{"tests/test_a.py": "def fetch_all():\n    pass\n"}, "`test_a.fetch_all` fetches.\n", "tests/test_a.py#fetch_all"},
		// one character
		{"one-character span is no reference", map[string]string{"a.py": "def S():\n    pass\n"}, "`S` is.\n", "no reference"},
		// parameters
		{"the x argument is not a method", map[string]string{"c.py": "class Client:\n    def json(self):\n        pass\n"}, "Pass the `json` argument.\n", "unresolved"},
		{"x= is not a method", map[string]string{"c.py": "class Client:\n    def prompt(self):\n        pass\n"}, "Use `prompt=` to ask.\n", "unresolved"},
		{"Parameters list entry is not a method", map[string]string{"c.py": "class Client:\n    def log_info(self):\n        pass\n"}, "Parameters:\n\n- `log_info` the info.\n", "unresolved"},
		{"a list entry elsewhere is a name", map[string]string{"c.py": "class Client:\n    def log_info(self):\n        pass\n"}, "Methods:\n\n- `log_info` logs.\n", "c.py#Client.log_info"},
		// short flags
		{"a short flag binds to the long flag defined with it", map[string]string{"main.go": "package main\n\nfunc init() {\n\tc.Flags().UintVarP(&width, \"width\", \"w\", 0, \"\")\n}\n"}, "Use `-w` to wrap.\n", "main.go#init.width"},
		{"a short flag with its value", map[string]string{"src/args.rs": "pub struct A {\n    #[arg(short = 'i', long = \"identity\")]\n    pub ssh_identity: Option<String>,\n}\n"}, "Pass `-i ~/.ssh/id_rsa`.\n", "src/args.rs#A.identity"},
		{"a long flag set up in a function is visible", map[string]string{"main.go": "package main\n\nfunc init() {\n\tc.Flags().UintVarP(&width, \"width\", \"w\", 0, \"\")\n}\n"}, "Use `--width` to wrap.\n", "main.go#init.width"},
		{"a short flag nothing defines is unresolved", map[string]string{"main.go": "package main\n\nfunc init() {\n\tc.Flags().UintVar(&width, \"width\", 0, \"\")\n}\n"}, "Use `-w` to wrap.\n", "unresolved"},
		{"a plain word after a copula is a state, not a function", map[string]string{"setters.py": "def frozen(a, b, c):\n    pass\n"}, "Hashable classes should be `frozen`.\n", "unresolved"},
		{"the same word elsewhere names the function", map[string]string{"setters.py": "def frozen(a, b, c):\n    pass\n"}, "Use `frozen` as on_setattr.\n", "setters.py#frozen"},
		{"a decorator in use names its function", map[string]string{"gen.py": "def define(cls=None):\n    pass\n"}, "Apply `@define(frozen=True)`.\n", "gen.py#define"},
		// restated members
		{"a member restated by an indexed access type is not a candidate", map[string]string{"o.ts": "export type KyOptions = {\n\tbaseUrl?: string;\n};\nexport interface NormalizedOptions {\n\tbaseUrl?: Options['baseUrl'];\n}\n"}, "Set `baseUrl`.\n", "o.ts#KyOptions.baseUrl"},
		{"a restated member is still reached qualified", map[string]string{"o.ts": "export type KyOptions = {\n\tbaseUrl?: string;\n};\nexport interface NormalizedOptions {\n\tbaseUrl?: Options['baseUrl'];\n}\n"}, "Set `NormalizedOptions.baseUrl`.\n", "o.ts#NormalizedOptions.baseUrl"},
		{"an indexed access of another member is a member of its own", map[string]string{"o.ts": "export type KyOptions = {\n\tbaseUrl?: string;\n};\nexport interface NormalizedOptions {\n\tbaseUrl?: Options['prefixUrl'];\n}\n"}, "Set `baseUrl`.\n", "ambiguous"},
		// what the text says the name is
		{"a variable is not a method", map[string]string{"src/input.rs": "pub struct Input {}\nimpl Input {\n    pub fn crate_type(&self) {}\n}\n"}, "When the `crate_type` variable is `lib`.\n", "unresolved"},
		{"variables such as x are not methods", map[string]string{"src/input.rs": "pub struct Input {}\nimpl Input {\n    pub fn crate_type(&self) {}\n}\n"}, "An automatic variable such as `crate_type`.\n", "unresolved"},
		{"a placeholders list entry is not a method", map[string]string{"src/input.rs": "pub struct Input {}\nimpl Input {\n    pub fn crate_type(&self) {}\n}\n"}, "Builtin placeholders are:\n\n* `crate_type`\n    * bin or lib\n", "unresolved"},
		{"a variable binds to a constant", map[string]string{"s.py": "MAX_SIZE = 3\n\ndef MAX_SIZE_fn():\n    pass\n"}, "The `MAX_SIZE` variable.\n", "s.py#MAX_SIZE"},
		{"a module is not a function", map[string]string{"src/ext.rs": "pub fn variable() {}\n"}, "### Variables with the `variable` module\n", "unresolved"},
		{"a setting binds to a config field by a plain word", map[string]string{"config.py": "class Config:\n    nav = 1\n"}, "Set the `nav` setting.\n", "config.py#Config.nav"},
		{"a plain word without a role does not bind to a member", map[string]string{"config.py": "class Config:\n    nav = 1\n"}, "The `nav` here.\n", "unresolved"},
		{"a setting prefers the configuration type's field", map[string]string{"config.py": "class MkConfig:\n    use_urls = 1\n", "files.py": "class File:\n    use_urls: bool\n"}, "The [`use_urls`](#x) configuration option.\n", "config.py#MkConfig.use_urls"},
		{"the same field without the setting role stays ambiguous", map[string]string{"config.py": "class MkConfig:\n    use_urls = 1\n", "files.py": "class File:\n    use_urls: bool\n"}, "The `use_urls` of it.\n", "ambiguous"},
		{"an option binds to an options field", map[string]string{"o.ts": "export type Options = {\n\ttimeoutMs?: number;\n};\nexport function timeoutMs() {}\n"}, "Set the `timeoutMs` option.\n", "o.ts#Options.timeoutMs"},
		// commands
		{"the x command binds to a command", map[string]string{"cmd/clean.go": "package cmd\n\nvar cleanCmd = &cobra.Command{\n\tUse: \"clean [dir]\",\n}\n\nfunc clean() {}\n", "dev/clean.py": "def clean():\n    pass\n"}, "Run the `clean` command.\n", "cmd/clean.go#clean"},
		{"tool sub binds to the command", map[string]string{"main.go": "package main\n\nvar root = &cobra.Command{Use: \"mytool\"}\nvar cfg = &cobra.Command{Use: \"config\"}\n\nfunc Config() {}\n"}, "Run `mytool config`.\n", "main.go#config"},
		{"another tool's sub is not ours", map[string]string{"main.go": "package main\n\nvar cfg = &cobra.Command{Use: \"init\"}\n"}, "Run `git init`.\n", "unresolved"},
		{"cargo sub of a cargo-x package", map[string]string{"Cargo.toml": "[package]\nname = \"cargo-gen\"\n", "src/args.rs": "#[derive(Subcommand)]\nenum Cmd {\n    #[command(name = \"generate\")]\n    Generate(Args),\n}\n"}, "Run `cargo generate`.\n", "src/args.rs#Cmd.generate"},
		{"the sub command", map[string]string{"cli.py": "@cli.command()\ndef serve_command():\n    pass\n\ndef serve():\n    pass\n"}, "Use the `serve` command.\n", "cli.py#serve"},
		{"a dashed command", map[string]string{"cli.py": "@cli.command(name=\"gh-deploy\")\ndef gh_deploy_command():\n    pass\n"}, "Use `gh-deploy`.\n", "cli.py#gh-deploy"},
		{"a long flag binds to the flag", map[string]string{"src/args.rs": "struct A {\n    #[arg(long)]\n    pub force: bool,\n}\n\npub fn force() {}\n"}, "Pass `--force`.\n", "src/args.rs#A.force"},
		// normalisation
		{"strip ~ and qualify", map[string]string{"g.py": "class Group:\n    def get_command(self):\n        pass\n"}, "See `~Group.get_command`.\n", "g.py#Group.get_command"},
		{"strip call arguments", map[string]string{"d.ts": "export function devtools(fn, opts) {}\n"}, "Wrap with `devtools(fn, opts)`.\n", "d.ts#devtools"},
		{"strip generics", map[string]string{"s.ts": "export type UseBoundStore<T, S> = {};\n"}, "A `UseBoundStore<T, S>`.\n", "s.ts#UseBoundStore"},
		{"strip fn signature", map[string]string{"src/lib.rs": "pub fn parse_book(s: &str) -> Book { todo!() }\n"}, "`fn parse_book(s: &str) -> Book` parses.\n", "src/lib.rs#parse_book"},
		{"strip def signature", map[string]string{"h.py": "def stream_lines(url, **kw):\n    pass\n"}, "`def stream_lines(url, **kw)` streams.\n", "h.py#stream_lines"},
		{"leading dot call binds to a member", map[string]string{"r.py": "class Response:\n    def text(self):\n        pass\n\ndef text():\n    pass\n"}, "Call `.text()`.\n", "r.py#Response.text"},
		{"leading dot file is no reference", map[string]string{"g.py": "class G:\n    gitconfig = 1\n"}, "Edit `.gitconfig`.\n", "no reference"},
		{"plain word skips members", map[string]string{"p.py": "class Page:\n    def toc(self):\n        pass\n"}, "Enable `toc`.\n", "unresolved"},
		{"qualifier matches container case-insensitively", map[string]string{"r.py": "class Response:\n    async def aread(self):\n        pass\n"}, "Await `response.aread()`.\n", "r.py#Response.aread"},
		{"package-root qualifier dropped when unique", map[string]string{"httpx/_transports/default.py": "class AsyncHTTPTransport:\n    pass\n"}, "Use `httpx.AsyncHTTPTransport()`.\n", "httpx/_transports/default.py#AsyncHTTPTransport"},
		{"manifest package name is a root", map[string]string{"Cargo.toml": "[package]\nname = \"mdbook\"\n", "src/book.rs": "pub struct BookItem {}\n"}, "See `mdbook::BookItem`.\n", "src/book.rs#BookItem"},
		{"a dashed crate name is a root with underscores", map[string]string{"Cargo.toml": "[package]\nname = \"mdbook-core\"\n", "src/book.rs": "pub struct BookItem {}\n"}, "See `mdbook_core::BookItem`.\n", "src/book.rs#BookItem"},
		{"root qualifier not dropped when ambiguous", map[string]string{"httpx/_x/a.py": "def get_all():\n    pass\n", "httpx/_y/b.py": "def get_all():\n    pass\n"}, "Use `httpx.get_all`.\n", "unresolved"},
		{"non-root qualifier is not dropped", map[string]string{"lib/s.py": "class Script:\n    path = 1\n"}, "Set `sys.path`.\n", "unresolved"},
		// more definitions
		{"Go interface method", map[string]string{"t.go": "package t\n\ntype Unmarshaler interface {\n\tUnmarshalTOML(v any) error\n}\n"}, "Implement `UnmarshalTOML`.\n", "t.go#Unmarshaler.UnmarshalTOML"},
		{"Python enum member", map[string]string{"e.py": "class Color(Enum):\n    DARK_RED = 1\n"}, "Use `Color.DARK_RED`.\n", "e.py#Color.DARK_RED"},
		{"Python class attribute", map[string]string{"c.py": "class MkDocsConfig:\n    site_name = c.Type(str)\n"}, "Set `site_name`.\n", "c.py#MkDocsConfig.site_name"},
		{"TS options member", map[string]string{"o.ts": "export type Options = {\n\tprefixUrl?: string;\n};\n"}, "Set `prefixUrl`.\n", "o.ts#Options.prefixUrl"},
	})
}

// pkgsFor reads the package names of the test's manifests, as refindex
// does.
func pkgsFor(files map[string]string) map[string]string {
	out := map[string]string{}
	if c, ok := files["Cargo.toml"]; ok {
		_, rest, _ := strings.Cut(c, "name = \"")
		out["Cargo.toml"], _, _ = strings.Cut(rest, "\"")
	}
	return out
}

func TestSpanName(t *testing.T) {
	tests := []struct{ in, name, role string }{
		{"parse_config", "parse_config", ""},
		{"parse_config()", "parse_config", ""},
		{"~Group.get_command", "Group.get_command", ""},
		{".aread()", ".aread", ""},
		{"devtools(fn, opts)", "devtools", ""},
		{"UseBoundStore<T, S>", "UseBoundStore", ""},
		{"fn parse(s: &str) -> Book", "parse", ""},
		{"async def aread(self)", "aread", ""},
		{"variable::prompt(text: &str) -> value", "variable::prompt", ""},
		{"timeout=", "timeout", RoleParameter},
		{"--config <file>", "config", RoleFlag},
		{"-n", "-n", RoleFlag},
		{"-i ~/.ssh/id_rsa", "-i", RoleFlag},
		{"-i | --identity", "identity", RoleFlag},
		{"-1", "", "-"},
		{"@define(frozen=True)", "define", ""},
		{"@attrs.define", "attrs.define", ""},
		{"@", "", "-"},
		{"@babel/core", "", "-"},
		{"glow config", "glow config", RoleCommand},
		{"gh-deploy", "gh-deploy", RoleCommand},
		{"dotenv set <key> <value>", "dotenv set", RoleCommand},
		{"ko build ./cmd/app", "ko build", RoleCommand},
		{"tool remote add [name]", "tool remote add", RoleCommand},
		{"tool add more words <x>", "", "-"},
		{"tool add <x> more", "", "-"},
		{"x", "", "-"},
		{".git", "", "-"},
		{"ky.get(input).json()", "", "-"},
		{"a b c d", "", "-"},
		{"$ make", "", "-"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			name, role, ok := spanName(tt.in)
			if !ok {
				name, role = "", "-"
			}
			if name != tt.name || role != tt.role {
				t.Errorf("spanName(%q) = %q, %q; want %q, %q", tt.in, name, role, tt.name, tt.role)
			}
		})
	}
}

func TestSpanRole(t *testing.T) {
	tests := []struct{ before, after, want string }{
		{"", " variable is", RoleVariable},
		{"", " placeholder", RoleVariable},
		{"The variables ", "/`authors`", RoleVariable},
		{"an automatic variable such as ", ").", RoleVariable},
		{"", " module", RoleModule},
		{"", " crate.", RoleModule},
		{"", " setting to", RoleSetting},
		{"", " config setting is", RoleSetting},
		{"", " configuration option should", RoleSetting},
		{"", "](#nav) config is not", RoleSetting},
		{"", "][theme] setting:", RoleSetting},
		{"", "](#x) function", ""},
		{"the value ", " is", ""},
		{"", " argument to", RoleParameter},
		{"", " parameter.", RoleParameter},
		{"", " option", RoleParameter},
		{"", " command runs", RoleCommand},
		{"", " subcommands", RoleCommand},
		{"", " function", ""},
		{"", " commander", ""},
	}
	for _, tt := range tests {
		t.Run(tt.before+"`x`"+tt.after, func(t *testing.T) {
			if got := spanRole([]byte(tt.before), []byte(tt.after)); got != tt.want {
				t.Errorf("spanRole(%q, %q) = %q, want %q", tt.before, tt.after, got, tt.want)
			}
		})
	}
}

// TestShortFlags: a one-letter flag defined next to a long one is another
// name of the long flag, in each library's shape.
func TestShortFlags(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            []ShortFlag
	}{
		{"cobra VarP", "main.go", "package main\n\nfunc init() {\n\tc.Flags().UintVarP(&width, \"width\", \"w\", 0, \"\")\n\tc.Flags().BoolVar(&x, \"plain\", false, \"\")\n}\n", []ShortFlag{{"-w", "width"}}},
		{"cobra P without a variable", "main.go", "package main\n\nfunc init() {\n\tc.Flags().StringP(\"style\", \"s\", \"\", \"\")\n}\n", []ShortFlag{{"-s", "style"}}},
		{"click short first", "cli.py", "@click.option(\"-n\", \"--name\")\ndef f(name):\n    pass\n", []ShortFlag{{"-n", "name"}}},
		{"argparse long first", "cli.py", "p.add_argument(\"--verbose\", \"-v\")\n", []ShortFlag{{"-v", "verbose"}}},
		{"commander", "cli.ts", "program.option('-f, --force-all', 'x');\n", []ShortFlag{{"-f", "force-all"}}},
		{"clap short is the long name's first letter", "src/args.rs", "struct A {\n    #[arg(long, short, action)]\n    pub define: Vec<String>,\n    #[arg(long)]\n    pub plain: bool,\n}\n", []ShortFlag{{"-d", "define"}}},
		{"urfave alias", "main.go", "package main\n\nvar f = &cli.StringFlag{\n\tName:    \"config\",\n\tAliases: []string{\"c\", \"conf\"},\n}\n", []ShortFlag{{"-c", "config"}}},
		{"clap explicit short", "src/args.rs", "struct A {\n    #[arg(short = 'i', long = \"identity\")]\n    pub ssh_identity: Option<String>,\n}\n", []ShortFlag{{"-i", "identity"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewParser()
			defer p.Close()
			f, err := p.Parse(tt.path, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.ShortFlags, tt.want) {
				t.Errorf("short flags %v, want %v", f.ShortFlags, tt.want)
			}
		})
	}
}

func TestCLIDefinitions(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            []string // kind name
	}{
		{"cobra", "main.go", "package main\n\nvar c = &cobra.Command{\n\tUse: \"serve [addr]\",\n}\n\nfunc init() {\n\tc.Flags().StringVarP(&addr, \"listen-addr\", \"l\", \"\", \"\")\n}\n", []string{"command serve", "flag listen-addr"}},
		{"urfave", "main.go", "package main\n\nvar c = &cli.Command{\n\tName: \"deploy\",\n}\n", []string{"command deploy"}},
		{"click", "cli.py", "@cli.command()\n@click.option(\n    \"--dev-addr\",\n)\ndef build_command():\n    pass\n\n@cli.group(name=\"plugins\")\ndef p():\n    pass\n", []string{"command build", "command plugins", "flag dev-addr"}},
		{"click without arguments", "cli.py", "@cli.command()\ndef serve_cmd():\n    pass\n", []string{"command serve"}},
		{"typer", "app.py", "@app.command(\"hello\")\ndef say():\n    pass\n", []string{"command hello"}},
		{"argparse", "cli.py", "sub = p.add_subparsers()\nr = sub.add_parser(\"run\")\nr.add_argument(\"-v\", \"--verbose\")\n", []string{"command run", "flag verbose"}},
		{"clap", "src/args.rs", "#[derive(Subcommand)]\nenum Cmd {\n    Init(InitArgs),\n    #[command(name = \"gen\")]\n    Generate,\n    SelfUpdate { force: bool },\n}\n\nstruct A {\n    /// doc\n    #[arg(long, short)]\n    pub dry_run: bool,\n    #[arg(long = \"identity\")]\n    pub ssh_identity: Option<String>,\n}\n", []string{"command gen", "command init", "command self-update", "flag dry-run", "flag identity"}},
		{"commander", "cli.ts", "program.command('clone <src>').option('-f, --force-all', 'x');\n", []string{"command clone", "flag force-all"}},
		{"clap derive enum on one line, last variant without comma", "src/cli.rs", "#[derive(Debug, Subcommand)]\nenum Command { Serve, Init(InitArgs), Test { chapter: Option<String> }, Completions }\n", []string{"command completions", "command init", "command serve", "command test"}},
		{"clap derive variants with doc comments and a clap(name)", "src/cli.rs", "#[derive(Subcommand)]\npub enum Cmd {\n    /// Watch the sources, rebuilding on change.\n    Watch(WatchArgs),\n    #[clap(name = \"self-check\")]\n    Check,\n    #[clap(about = \"x\")]\n    CleanAll\n}\n", []string{"command clean-all", "command self-check", "command watch"}},
		{"clap 3 and structopt field flags", "src/opts.rs", "struct Opts {\n    #[clap(long)]\n    open_browser: bool,\n    #[structopt(short, long = \"dest-dir\")]\n    dest: PathBuf,\n    #[clap(name = \"FILE\")]\n    file: String,\n}\n", []string{"flag dest-dir", "flag open-browser"}},
		{"clap builder", "src/main.rs", "use clap::{Arg, Command};\n\nfn cli() -> Command {\n    Command::new(\"mdtool\")\n        .subcommand(Command::new(\"serve\").arg(Arg::new(\"port\").short('p').long(\"port\")))\n        .subcommand(SubCommand::with_name(\"init\").arg(Arg::with_name(\"theme\").long(\"theme\").takes_value(true)))\n}\n", []string{"command init", "command mdtool", "command serve", "flag port", "flag theme"}},
		{"std process Command is no command", "src/run.rs", "use std::process::Command;\n\nfn run() {\n    Command::new(\"git\").arg(\"init\").status().unwrap();\n}\n", nil},
		{"clap builder next to a qualified process Command", "src/main.rs", "use clap::Command;\n\nfn cli() -> Command {\n    Command::new(\"book\")\n}\n\nfn git() {\n    std::process::Command::new(\"git\").status().unwrap();\n}\n", []string{"command book"}},
		{"a process Command in a file that names clap", "src/run.rs", "// parsed by clap elsewhere\nuse std::process::Command;\n\nfn run() {\n    Command::new(\"git\").status().unwrap();\n}\n", nil},
		{"click command with nested parentheses", "cli.py", "@click.command(context_settings=dict(help_option_names=[\"-h\"]))\n@click.option(\"--dry-run\", is_flag=True)\ndef build_site(dry_run):\n    pass\n", []string{"command build-site", "flag dry-run"}},
		{"urfave flags", "main.go", "package main\n\nvar app = &cli.App{\n\tFlags: []cli.Flag{\n\t\t&cli.StringFlag{\n\t\t\tName:    \"config\",\n\t\t\tAliases: []string{\"c\"},\n\t\t},\n\t\t&cli.BoolFlag{Name: \"dry-run\"},\n\t},\n}\n", []string{"flag config", "flag dry-run"}},
		{"typer sub-application and click add_command names", "cli.py", "app.add_typer(users_app, name=\"users\")\ncli.add_command(build_cmd, name=\"build-all\")\ncli.add_command(sync, \"sync-now\")\n", []string{"command build-all", "command sync-now", "command users"}},
		{"click group and a named subcommand", "cli.py", "@click.group()\ndef cli():\n    pass\n\n@cli.command(\"sync-all\")\ndef sync():\n    pass\n", []string{"command cli", "command sync-all"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewParser()
			defer p.Close()
			f, err := p.Parse(tt.path, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range f.Symbols {
				if s.Kind == "command" || s.Kind == "flag" {
					got = append(got, s.Kind+" "+s.Name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("commands and flags = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNonCandidate(t *testing.T) {
	for p, want := range map[string]bool{
		"a_test.go": true, "tests/x.py": true, "test_a.py": true, "src/a.spec.ts": true, "testdata/x.go": true,
		"examples/demo/main.go": true, "static/highlight.min.js": true, "vendor/x/y.go": true, "fixtures/a.rs": true,
		"src/lib.rs": false, "latest.go": false, "contest.py": false, "docs/example.md": false,
	} {
		if got := nonCandidate(p); got != want {
			t.Errorf("nonCandidate(%q) = %v, want %v", p, got, want)
		}
	}
}

// FuzzSpanName checks that any code span text normalises without a panic
// to either nothing or a name of two or more characters with no call,
// generics or signature left in it, and a known role.
func FuzzSpanName(f *testing.F) {
	for _, s := range []string{"parse_config()", "~Group.get_command", ".aread()", "devtools(fn, opts)", "UseBoundStore<T, S>",
		"fn parse(s: &str) -> Book", "def get(url, **kw)", "x=", "--config <file>", "glow config", "gh-deploy", "f((", "<>", ")(", "~", "-- ", "a::b#c.d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		name, role, ok := spanName(code)
		if !ok {
			return
		}
		switch role {
		case "", RoleCommand, RoleFlag, RoleParameter:
		default:
			t.Fatalf("spanName(%q): role %q", code, role)
		}
		if role == RoleCommand {
			return
		}
		if strings.ContainsAny(name, "()<> ") || len(strings.TrimPrefix(name, ".")) < 2 {
			t.Fatalf("spanName(%q) = %q: not a name", code, name)
		}
	})
}

// TestRustPathsAndVariants: a Type::method qualifier picks the container
// it names exactly over one its file or directory also fits; a crate
// name reaches a top-level item of lib.rs; an enum's variants are
// Enum::Variant definitions, also as a bare name; a clap subcommand
// enum's variant is both a variant and a command.
func TestRustPathsAndVariants(t *testing.T) {
	cargo := "[package]\nname = \"fetch\"\n"
	body := "pub struct Body {}\n\nimpl Body {\n    pub fn read_to_string(&mut self) -> String { todo!() }\n}\n\npub struct BodyWithConfig {}\n\nimpl BodyWithConfig {\n    pub fn read_to_string(self) -> String { todo!() }\n}\n"
	lib := "mod body;\n\npub fn get(uri: &str) -> Request { todo!() }\n\nfn helper() {}\n"
	other := "pub struct Agent {}\n\nimpl Agent {\n    pub fn get(&self, uri: &str) -> Request { todo!() }\n}\n"
	tls := "pub enum RootCerts {\n    /// the platform's\n    PlatformVerifier,\n    Specific(Vec<u8>),\n}\n\npub enum Error {\n    TooManyRedirects,\n    Timeout { after: u64 },\n}\n"
	cli := "#[derive(Subcommand)]\npub enum ImportFrom {\n    Atuin,\n    Fasd,\n}\n"
	runProseCases(t, []proseCase{
		{"Type::method picks the container named exactly", map[string]string{"Cargo.toml": cargo, "src/body/mod.rs": body}, "Call `Body::read_to_string()`.\n", "src/body/mod.rs#Body.read_to_string"},
		{"the other type by its own name", map[string]string{"Cargo.toml": cargo, "src/body/mod.rs": body}, "Call `BodyWithConfig::read_to_string()`.\n", "src/body/mod.rs#BodyWithConfig.read_to_string"},
		{"a directory qualifier alone stays ambiguous", map[string]string{"Cargo.toml": cargo, "src/body/mod.rs": body}, "Call `body::read_to_string()`.\n", "ambiguous"},
		{"crate::fn reaches lib.rs's top-level fn", map[string]string{"Cargo.toml": cargo, "src/lib.rs": lib, "src/agent.rs": other}, "Use `fetch::get`.\n", "src/lib.rs#get"},
		{"a crate path to what lib.rs does not define stays unresolved", map[string]string{"Cargo.toml": cargo, "src/lib.rs": lib, "src/agent.rs": other}, "Use `fetch::post`.\n", "unresolved"},
		{"Enum::Variant", map[string]string{"src/tls.rs": tls}, "Set `RootCerts::PlatformVerifier`.\n", "src/tls.rs#RootCerts.PlatformVerifier"},
		{"a tuple variant", map[string]string{"src/tls.rs": tls}, "Or `RootCerts::Specific`.\n", "src/tls.rs#RootCerts.Specific"},
		{"a bare variant", map[string]string{"src/tls.rs": tls}, "It fails with `TooManyRedirects`.\n", "src/tls.rs#Error.TooManyRedirects"},
		{"a subcommand variant is still a command", map[string]string{"Cargo.toml": cargo, "src/cli.rs": cli}, "Run `fetch import fasd`.\n", "src/cli.rs#ImportFrom.fasd"},
		{"and a variant by its Rust name", map[string]string{"Cargo.toml": cargo, "src/cli.rs": cli}, "See `ImportFrom::Fasd`.\n", "src/cli.rs#ImportFrom.Fasd"},
	})
}

// TestModuleMentions: a name the words around it call a module binds to
// the module's file, when exactly one file is that module; without the
// words it is left alone.
func TestModuleMentions(t *testing.T) {
	py := map[string]string{"pyproject.toml": "[project]\nname = \"srv\"\n", "srv/__init__.py": "", "srv/workers.py": "class Worker:\n    pass\n", "srv/config.py": "X = 1\n"}
	rs := map[string]string{"Cargo.toml": "[package]\nname = \"fetch\"\n", "src/lib.rs": "pub mod unversioned;\n", "src/unversioned/mod.rs": "pub mod transport;\n", "src/unversioned/transport.rs": "pub trait Transport {}\n"}
	runProseCases(t, []proseCase{
		{"a Python module by its dotted path", py, "The `srv.workers` module is deprecated.\n", "srv/workers.py#"},
		{"a Python package", py, "The `srv` package.\n", "srv/__init__.py#"},
		{"a Rust module directory, bare", rs, "They live under the `unversioned` module.\n", "src/unversioned/mod.rs#"},
		{"through a shortcut reference link", rs, "They live under the [`unversioned`] module.\n\n[`unversioned`]: https://docs.rs/x\n", "src/unversioned/mod.rs#"},
		{"a Rust path with the crate name", rs, "See the `fetch::unversioned::transport` module.\n", "src/unversioned/transport.rs#"},
		{"a module the workspace lacks", py, "The `srv.gunicorn` module.\n", "unresolved"},
		{"without the words a module path is left alone", py, "Options are in `srv.workers` or elsewhere.\n", "unresolved"},
	})
}
