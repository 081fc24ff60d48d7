package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/workspace"
)

// flagSet is a command's flags: the global ones (--dir, --json) plus its
// own, parsed with flags and positional arguments in any order.
type flagSet struct {
	*flag.FlagSet
	m   *Main
	cmd *command
}

func (m *Main) newFlags(c *command) *flagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&m.dir, "dir", m.dir, "workspace `directory` (default: the current directory)")
	fs.BoolVar(&m.json, "json", m.json, "print JSON")
	return &flagSet{FlagSet: fs, m: m, cmd: c}
}

// parse parses args, allowing flags after positional arguments; "--" ends
// the flags. It returns the positional arguments, errHelpShown after
// printing the help for -h/--help, or a usage error, also when the number
// of positional arguments is out of the command's bounds.
func (fs *flagSet) parse(args []string) ([]string, error) {
	pos, err := fs.split(args)
	if err != nil {
		return nil, err
	}
	if err := fs.nargs(pos); err != nil {
		return nil, err
	}
	return pos, nil
}

// split separates the flags in args from the positional arguments.
func (fs *flagSet) split(args []string) ([]string, error) {
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.usage(fs.m.Stdout)
			return nil, errHelpShown
		}
		if err != nil {
			return nil, fs.usageError("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" && !fs.isValue(args, used-1) {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// withWorkspace parses args, then runs f with the workspace (see
// Main.withWorkspace) and the positional arguments.
func (fs *flagSet) withWorkspace(ctx context.Context, args []string, f func(ws lunad.Workspace, pos []string) error) error {
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	return fs.m.withWorkspace(ctx, func(ws lunad.Workspace) error { return f(ws, pos) })
}

// withIndex is withWorkspace for a command that reads the reference
// index: on a terminal, the index build it waits for is shown as a bar.
func (fs *flagSet) withIndex(ctx context.Context, args []string, f func(ws lunad.Workspace, pos []string) error) error {
	return fs.withWorkspace(ctx, args, func(ws lunad.Workspace, pos []string) error {
		if err := fs.m.awaitIndex(ctx, ws); err != nil {
			return err
		}
		return f(ws, pos)
	})
}

// withWorkspace runs f with the workspace at the --dir directory: through
// the daemon serving it if one answers, else opened in-process as
// withService does. Either way the workspace lock and the branch's
// compare-and-swap keep one writer at a time, and the output and exit
// codes are the same. A daemon running with another configuration
// (another author, lock timeout or size limit) is not used, nor is one
// when Options is set (tests inject a clock and IDs only in-process).
func (m *Main) withWorkspace(ctx context.Context, f func(ws lunad.Workspace) error) (err error) {
	opts, err := m.options()
	if err != nil {
		return err
	}
	if m.Options == nil {
		ws, err := rpc.Connect(ctx, m.workDir(), rpc.ConnectOptions{Config: daemon.Settings(opts)})
		if err == nil {
			m.noteDaemon(ws)
			defer func() {
				if cerr := ws.Close(); cerr != nil && err == nil {
					err = cerr
				}
			}()
			return f(ws)
		}
	}
	return m.withService(func(svc *workspace.Service) error { return f(svc) })
}

// isValue reports whether args[i] is the value of the flag before it
// (as in --message --), not a flag terminator.
func (fs *flagSet) isValue(args []string, i int) bool {
	if i == 0 {
		return false
	}
	prev := args[i-1]
	if !strings.HasPrefix(prev, "-") || strings.Contains(prev, "=") || prev == "--" {
		return false
	}
	f := fs.Lookup(strings.TrimLeft(prev, "-"))
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// usageError is a usage error that points to the command's help.
func (fs *flagSet) usageError(format string, args ...any) *UsageError {
	return &UsageError{
		msg:  fmt.Sprintf(format, args...),
		hint: fmt.Sprintf("usage: %s\nRun 'lunad %s --help' for details.", fs.cmd.synopsis(), fs.cmd.name),
	}
}

// nargs checks the number of positional arguments.
func (fs *flagSet) nargs(pos []string) error {
	switch c := fs.cmd; {
	case len(pos) < c.minArgs:
		return fs.usageError("%s needs %s", c.name, c.args)
	case len(pos) > c.maxArgs:
		return fs.usageError("unexpected argument %q", pos[c.maxArgs])
	}
	return nil
}

func (fs *flagSet) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", fs.cmd.synopsis(), fs.cmd.summary)
	if fs.cmd.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(fs.cmd.help))
	}
	fmt.Fprintf(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// changeFlags adds the provenance flags of a write, which set ch:
// --agent, --message, --idempotency-key and, withBase, --base-version.
func (fs *flagSet) changeFlags(ch *lunad.Change, withBase bool) {
	fs.StringVar(&ch.Agent, "agent", "", "`name` of the acting agent (default: the configured author)")
	fs.StringVar(&ch.Message, "message", "", "a `message` saying why; lunad writes the subject line and trailers")
	fs.StringVar(&ch.IdempotencyKey, "idempotency-key", "", "a `key` for this write: repeating it returns the first result and commits nothing")
	if withBase {
		fs.IntVar(&ch.BaseVersion, "base-version", 0, "fail with a conflict unless the artifact is at `version` N")
	}
}

// readInput reads the file a *-file flag names; "-" is standard input,
// which only one flag may use. limit caps the size in bytes.
func (m *Main) readInput(flagName, name string, limit int) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		if m.stdinBy != "" {
			return nil, usageErrorf("--%s and --%s both read standard input; give one of them a file", m.stdinBy, flagName)
		}
		m.stdinBy = flagName
		if m.Stdin == nil {
			return nil, fmt.Errorf("--%s -: no standard input", flagName)
		}
		r = m.Stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", flagName, err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%w: --%s %s is a directory", lunad.ErrInvalid, flagName, name)
		}
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flagName, err)
	}
	if len(b) > limit {
		return nil, fmt.Errorf("%w: --%s %s is larger than the limit of %d bytes", lunad.ErrInvalid, flagName, name, limit)
	}
	return b, nil
}

func parseBool(s string) (bool, error) { return strconv.ParseBool(s) }

// splitAt splits "REF@AT" at its last "@" when AT looks like a version
// number or a commit hash (4 to 40 hex digits); otherwise AT is "".
func splitAt(s string) (ref, at string) {
	i := strings.LastIndexByte(s, '@')
	if i <= 0 {
		return s, ""
	}
	at = s[i+1:]
	if isVersion(at) || isCommitish(at) {
		return s[:i], at
	}
	return s, ""
}

func isVersion(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isCommitish(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for _, r := range strings.ToLower(s) {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// parseVersion parses a positive version number argument.
func (fs *flagSet) parseVersion(what, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || !isVersion(s) {
		return 0, fs.usageError("%s %q is not a version number (1, 2, ...)", what, s)
	}
	return n, nil
}
