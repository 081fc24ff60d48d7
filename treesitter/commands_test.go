package treesitter

import (
	"testing"
)

// TestNestedCommands: a command line naming a subcommand through its
// parent (`gh repo create`) binds, of the commands of that name, to the
// one declared under the parent: in its directory, a file named for it or
// a type named for it.
func TestNestedCommands(t *testing.T) {
	cobra := map[string]string{
		"pkg/cmd/root/root.go":           "package root\n\nvar rootCmd = &cobra.Command{\n\tUse: \"gh <command> <subcommand> [flags]\",\n}\n",
		"pkg/cmd/repo/create/create.go":  "package create\n\nfunc NewCmdCreate() *cobra.Command {\n\treturn &cobra.Command{\n\t\tUse: \"create [<name>]\",\n\t}\n}\n",
		"pkg/cmd/issue/create/create.go": "package create\n\nfunc NewCmdCreate() *cobra.Command {\n\treturn &cobra.Command{\n\t\tUse: \"create\",\n\t}\n}\n",
		"pkg/cmd/repo/repo.go":           "package repo\n\nfunc NewCmdRepo() *cobra.Command {\n\tcmd := &cobra.Command{\n\t\tUse: \"repo <command>\",\n\t}\n\tcmd.AddCommand(create.NewCmdCreate())\n\treturn cmd\n}\n",
	}
	runProseCases(t, []proseCase{
		{"cobra subcommand in a nested package", cobra, "Run `gh repo create`.\n", "pkg/cmd/repo/create/create.go#NewCmdCreate.create"},
		{"the other parent", cobra, "Run `gh issue create`.\n", "pkg/cmd/issue/create/create.go#NewCmdCreate.create"},
		{"a parent nothing declares leaves it ambiguous", cobra, "Run `gh gist create`.\n", "ambiguous"},
		{"a file named for the parent and the command", map[string]string{
			"cmd/root.go":        "package cmd\n\nvar rootCmd = &cobra.Command{Use: \"tool\"}\n",
			"cmd/remote_add.go":  "package cmd\n\nvar remoteAddCmd = &cobra.Command{Use: \"add <name>\"}\n",
			"cmd/profile_add.go": "package cmd\n\nvar profileAddCmd = &cobra.Command{Use: \"add\"}\n",
		}, "Run `tool remote add`.\n", "cmd/remote_add.go#add"},
		{"a clap subcommand enum named for the parent", map[string]string{
			"Cargo.toml": "[package]\nname = \"mytool\"\n",
			"src/cli.rs": "#[derive(Subcommand)]\nenum Command {\n    Cache(CacheArgs),\n    Index(IndexArgs),\n}\n\n#[derive(Subcommand)]\nenum CacheCommand {\n    Clean,\n}\n\n#[derive(Subcommand)]\nenum IndexCommand {\n    Clean,\n}\n",
		}, "Run `mytool cache clean`.\n", "src/cli.rs#CacheCommand.clean"},
	})
}
