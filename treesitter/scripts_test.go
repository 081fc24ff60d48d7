package treesitter

import (
	"slices"
	"strings"
	"testing"
)

func TestScriptCommands(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"project.scripts", "[project]\nname = \"python-dotenv\"\n\n[project.scripts]\ndotenv = \"dotenv.__main__:cli\"\n\n[tool.setuptools]\nx = 1\n", []string{"dotenv"}},
		{"poetry scripts, quoted keys and the table's end", "[tool.poetry.scripts]\n\"my-tool\" = \"pkg.cli:main\"\nother_tool= 'pkg:run'\n# a comment\n[tool.poetry.dependencies]\nnot-a-tool = \"1\"\n", []string{"my-tool", "other_tool"}},
		{"a header inside a line is no table", "x = \"[project.scripts]\"\ntool = \"a:b\"\n", nil},
		{"keys that are no program", "[project.scripts]\n= \"a:b\"\n\"open = \"x\"\n9lives = \"a:b\"\n", nil},
		{"no newline at the end", "[project.scripts]\nserve = \"a:b\"", []string{"serve"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			src := []byte(tt.src)
			scriptCommands(src, func(d *def) {
				if string(src[d.nameStart:d.nameEnd]) != d.Name {
					t.Errorf("%q at %d-%d reads %q", d.Name, d.nameStart, d.nameEnd, src[d.nameStart:d.nameEnd])
				}
				got = append(got, d.Name)
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("programs = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestScriptProgramIsTool: a program pyproject.toml installs starts a
// command line ("dotenv run") that binds to the command; the program
// itself is no target of a bare name.
func TestScriptProgramIsTool(t *testing.T) {
	files := map[string]string{
		"pyproject.toml":     "[project]\nname = \"python-dotenv\"\n\n[project.scripts]\ndotenv = \"dotenv.__main__:cli\"\n",
		"src/dotenv/cli.py":  "import click\n\n@click.group()\ndef cli():\n    pass\n\n@cli.command()\ndef run():\n    pass\n",
		"src/dotenv/main.py": "def load():\n    pass\n",
	}
	runProseCases(t, []proseCase{
		{"the program starts a command line", files, "Use `dotenv run`.\n", "src/dotenv/cli.py#run"},
		{"a program nothing installs does not", files, "Use `envtool run`.\n", "unresolved"},
		{"the bare program name binds to nothing", files, "Install `dotenv[cli]`.\n", "unresolved"},
	})
}

func FuzzScriptCommands(f *testing.F) {
	f.Add([]byte("[project.scripts]\ndotenv = \"dotenv.__main__:cli\"\n[x]\n"))
	f.Add([]byte("[tool.poetry.scripts]\n\"a\" = 1\n\"\n=\n"))
	f.Add([]byte("[project.scripts]"))
	f.Fuzz(func(t *testing.T, src []byte) {
		scriptCommands(src, func(d *def) {
			if d.nameStart < 0 || d.nameEnd > len(src) || d.nameStart >= d.nameEnd || string(src[d.nameStart:d.nameEnd]) != d.Name || strings.ContainsAny(d.Name, " \n=\"") {
				t.Fatalf("program %q at %d-%d in %q", d.Name, d.nameStart, d.nameEnd, src)
			}
		})
	})
}
