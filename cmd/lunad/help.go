package main

import (
	"context"
	"fmt"
	"io"
)

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

// help runs "lunad help [COMMAND]"; global flags among its arguments are
// accepted and ignored.
func (m *Main) help(all []string) error {
	var args []string
	for i := 0; i < len(all); {
		n, err := m.globalFlag(all, i)
		if err != nil {
			return err
		}
		if n == 0 {
			args = append(args, all[i])
			n = 1
		}
		i += n
	}
	switch {
	case len(args) == 0 || len(args) == 1 && args[0] == "help":
		m.usage(m.Stdout)
		return nil
	case len(args) == 1:
		c := lookupCommand(args[0])
		if c == nil {
			return usageErrorf("unknown command %q (see `lunad help`)", args[0])
		}
		return c.exec(m, context.Background(), []string{"--help"})
	}
	return usageErrorf("usage: lunad help [COMMAND]")
}

// usage writes the program's help: the commands and global flags.
func (m *Main) usage(w io.Writer) {
	fmt.Fprint(w, `lunad keeps text artifacts in a git repository; every edit is a commit.

Usage: lunad [--dir DIR] [--json] COMMAND [ARGS] [FLAGS]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Global flags (before or after the command):
  --dir DIR   workspace directory (default: the current directory)
  --json      print machine-readable JSON

Run 'lunad help COMMAND' or 'lunad COMMAND --help' for a command's flags.
Exit codes: 0 ok, 1 error, 2 usage, 3 conflict, 4 edit did not apply, 5 not found, 6 stale references (stale --check).
`)
}
