package treesitter

import (
	"slices"
	"testing"
)

// everyGated is every gated regular expression of clidefs.go.
func everyGated() []gated {
	var out []gated
	for _, pats := range cliPatterns() {
		for _, p := range pats {
			out = append(out, p.gated)
		}
	}
	for _, m := range []map[string][]gated{shortPatterns(), shortFirst()} {
		for _, gs := range m {
			out = append(out, gs...)
		}
	}
	return append(out, clickPair())
}

// TestFlagAliasesAndCommandEnums: a clap #[derive(Parser)] enum's
// variants are commands, as a Subcommand enum's are; a flag's clap
// aliases and the --no-x half of a click boolean pair name the flag.
func TestFlagAliasesAndCommandEnums(t *testing.T) {
	cargo := "[package]\nname = \"tool\"\n"
	parserEnum := "use clap::Parser;\n\n#[derive(Debug, Parser)]\n#[clap(\n    about,\n    version,\n)]\npub enum Cmd {\n    Add(Add),\n    Init(Init),\n}\n"
	aliased := "#[derive(Parser)]\npub struct Init {\n    /// no aliases\n    #[clap(long, alias = \"no-aliases\")]\n    pub no_cmd: bool,\n    #[arg(long, visible_aliases = [\"old\", \"older\"])]\n    pub newer: bool,\n}\n"
	click := "import click\n\n@click.command()\n@click.option(\n    \"--access-log/--no-access-log\",\n    is_flag=True,\n)\ndef main(access_log):\n    pass\n"
	runProseCases(t, []proseCase{
		{"a derive(Parser) enum's variant is a command", map[string]string{"Cargo.toml": cargo, "src/cmd.rs": parserEnum}, "Run `tool init`.\n", "src/cmd.rs#Cmd.init"},
		{"a derive(Parser) enum's variant named alone", map[string]string{"Cargo.toml": cargo, "src/cmd.rs": parserEnum}, "`add` now takes paths.\n", "src/cmd.rs#Cmd.add"},
		{"an enum after a derive(Parser) unit struct is no command", map[string]string{"Cargo.toml": cargo, "src/cmd.rs": "#[derive(Parser)]\npub struct Cli;\n\n#[derive(Debug)]\npub enum Color {\n    Red,\n    Green,\n}\n"}, "Run `tool green`.\n", "unresolved"},
		{"clap alias names the flag", map[string]string{"src/cmd.rs": aliased}, "Use `--no-aliases`.\n", "src/cmd.rs#Init.no-cmd"},
		{"clap aliases list names the flag", map[string]string{"src/cmd.rs": aliased}, "Use `--older`.\n", "src/cmd.rs#Init.newer"},
		{"the flag itself still resolves", map[string]string{"src/cmd.rs": aliased}, "Use `--newer`.\n", "src/cmd.rs#Init.newer"},
		{"click's --no-x names the pair's flag", map[string]string{"main.py": click}, "Pass `--no-access-log`.\n", "main.py#access-log"},
		{"a --no-x nothing declares stays unresolved", map[string]string{"main.py": click}, "Pass `--no-date-header`.\n", "unresolved"},
	})
}

// FuzzGatedRegexps: a gate is a literal every match of its expression
// contains, so gating never changes what is found — on any text.
func FuzzGatedRegexps(f *testing.F) {
	for _, s := range []string{
		"var c = &cobra.Command{\n\tUse: \"serve [addr]\",\n}\nc.Flags().StringVarP(&addr, \"listen-addr\", \"l\", \"\", \"\")\n",
		"var c = &cli.Command{\n\tName: \"deploy\",\n}\n",
		"f := &cli.StringFlag{\n\tName:    \"config\",\n\tAliases: []string{\"c\"},\n}\napp.add_typer(u, name=\"users\")\ncli.add_command(b, \"build\")\n",
		"@cli.command()\n@click.option(\n    \"--dev-addr\",\n)\ndef build_command():\n    pass\n\n@cli.group(name=\"plugins\")\ndef p():\n    pass\n",
		"@click.option(\"-n\", \"--name\")\np.add_argument(\"--verbose\", \"-v\")\nr = sub.add_parser(\"run\")\n",
		"#[derive(Subcommand)]\nenum Cmd {\n    #[command(name = \"gen\")]\n    Generate,\n}\nstruct A {\n    #[arg(long, short)]\n    pub dry_run: bool,\n}\n",
		"program.command('clone <src>').option('-f, --force-all', 'x');\n",
		"@option(\"--x\")\n@command()\n@group()\ndef f():\n    close_option(a)\n",
		"use clap::{Arg, Command};\nfn c() -> Command {\n    Command::new(\"x\").subcommand(SubCommand::with_name(\"y\")).arg(Arg::new(\"p\").long(\"port\"))\n}\nstd::process::Command::new(\"git\");\nApp::new(\"z\");\n",
		"#[derive(Subcommand)]\nenum C { Serve, #[clap(name = \"b\")] Build { x: Vec<u8> }, Last }\nstruct O {\n    #[clap(long)]\n    a_b: bool,\n    #[structopt(long = \"c\")]\n    c: u8,\n}\n",
		"@click.command(context_settings=dict(a=[\"-h\"]))\ndef build_site():\n    pass\n",
		"#[derive(Debug, Parser)]\n#[clap(about)]\npub enum Cmd { Add(Add), #[clap(name = \"z.lua\")] ZLua }\nstruct I {\n    #[clap(long, alias = \"no-aliases\", aliases = [\"a\", \"b\"])]\n    no_cmd: bool,\n}\n@click.option(\"--access-log/--no-access-log\", is_flag=True)\n",
	} {
		f.Add([]byte(s))
	}
	pats := everyGated()
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, g := range pats {
			got, want := g.findAll(src), g.re.FindAllSubmatchIndex(src, -1)
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s gated by %q: found %v, ungated %v", g.re, g.lits, got, want)
			}
		}
	})
}

// TestFlagUnderCommandOnLine: a flag two commands declare binds to the
// one of the command a command line on its line names.
func TestFlagUnderCommandOnLine(t *testing.T) {
	files := map[string]string{
		"Cargo.toml": "[package]\nname = \"tool\"\n",
		"src/cmd.rs": "#[derive(Parser)]\npub enum Cmd {\n    Add(Add),\n    Query(Query),\n}\n\npub struct Add {\n    #[clap(short, long)]\n    pub score: Option<f64>,\n}\n\npub struct Query {\n    #[clap(short, long)]\n    pub score: bool,\n}\n",
	}
	runProseCases(t, []proseCase{
		{"the command on the line picks the flag", files, "- Added `--score` flag to `tool add`.\n", "src/cmd.rs#Add.score"},
		{"the other command", files, "- Prints `--score` with `tool query`.\n", "src/cmd.rs#Query.score"},
		{"no command on the line: ambiguous", files, "- Added `--score`.\n\nSee `tool add`.\n", "ambiguous"},
		{"two commands on the line: ambiguous", files, "- `--score` for `tool add` and `tool query`.\n", "ambiguous"},
	})
}
