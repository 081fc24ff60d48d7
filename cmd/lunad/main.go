package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lunad/lunad/agents/ask"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/internal/gitdir"
	"github.com/lunad/lunad/internal/version"
	"github.com/lunad/lunad/runs"
	"github.com/lunad/lunad/sandbox"
	"github.com/lunad/lunad/workspace"
)

func main() {
	// What lunad inherited beyond stdin, stdout and stderr must never
	// reach a sandboxed command: marked close-on-exec first.
	sandbox.Init()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := NewMain()
	err := m.Run(ctx, os.Args[1:])
	stop()
	if err != nil {
		m.reportError(err)
	}
	os.Exit(ExitCode(err))
}

// Main is one invocation of the program. Its fields are the process's
// environment, so tests can run it in-process.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (default os.Getenv).
	Getenv func(string) string
	// Options, when set, adjusts the store options after the configuration
	// is applied (tests inject a clock and IDs).
	Options func(*gitstore.Options)
	// IsTerminal reports whether a stream is a terminal, where progress
	// bars are drawn (default: the stream is an *os.File with terminal
	// attributes); tests inject it.
	IsTerminal func(io.Writer) bool
	// Now paces progress bars (default time.Now).
	Now func() time.Time

	// Global flags, set before or after the command name.
	dir     string
	json    bool
	stdinBy string            // the flag that consumed stdin, if any
	cfg     *config.Config    // loaded once by config
	opts    *gitstore.Options // derived once by options
	log     *slog.Logger      // the command's logger (lsp, mcp, serve): stderr or the daemon's log
}

// logger is the command's logger; commands without one log nothing (their
// stderr is for the person, and their errors are returned).
func (m *Main) logger() *slog.Logger {
	if m.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return m.log
}

// NewMain returns a Main wired to the process's standard streams.
func NewMain() *Main {
	return &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
}

// command is one subcommand.
type command struct {
	name    string
	args    string // synopsis of the arguments, after the name
	summary string
	help    string // details shown by --help
	// minArgs and maxArgs bound the number of positional arguments;
	// flagSet.parse checks them.
	minArgs, maxArgs int
	run              runFunc
}

// runFunc runs a command: it adds the command's own flags to fs, parses
// args with fs.parse and does the work.
type runFunc func(m *Main, ctx context.Context, fs *flagSet, args []string) error

// exec runs c with args; printing its help on request is not an error.
func (c *command) exec(m *Main, ctx context.Context, args []string) error {
	defer tuneGC(c.name, m.Getenv)()
	if err := c.run(m, ctx, m.newFlags(c), args); !errors.Is(err, errHelpShown) {
		return err
	}
	return nil
}

// synopsis is the command line of c, as usage messages show it.
func (c *command) synopsis() string {
	return strings.TrimSpace("lunad " + c.name + " " + c.args)
}

// commands lists the subcommands in the order help shows them.
var commands []*command

func init() {
	commands = []*command{
		cmdInit, cmdCreate, cmdList, cmdShow, cmdEdit, cmdLog, cmdDiff,
		cmdUndo, cmdRedo, cmdRestore, cmdMove, cmdArchive, cmdRemove, cmdLink,
		cmdBranch, cmdSwitch, cmdBranches,
		cmdSymbols, cmdRefs, cmdStale, cmdAck,
		cmdAsk, cmdGoal, cmdDoctor, cmdWorkflow, cmdRun, cmdDLQ, cmdWorker,
		cmdServe, cmdDaemon, cmdLSP, cmdMCP,
	}
}

func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Run parses args (without the program name) and runs the command.
func (m *Main) Run(ctx context.Context, args []string) error {
	if m.Getenv == nil {
		m.Getenv = os.Getenv
	}
	if len(args) == 1 && args[0] == "--version" {
		_, err := fmt.Fprintln(m.Stdout, "lunad", version.String())
		return err
	}
	// Global flags before the command name.
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" {
		n, err := m.globalFlag(args, i)
		if err != nil {
			return err
		}
		if n == 0 {
			if isHelp(args[i]) {
				m.usage(m.Stdout)
				return nil
			}
			return usageErrorf("unknown flag %s before the command (see `lunad help`)", args[i])
		}
		i += n
	}
	if i == len(args) {
		return &UsageError{msg: "no command given",
			hint: "usage: lunad [--dir DIR] [--json] COMMAND [ARGS] [FLAGS]\nRun 'lunad help' for the commands."}
	}
	name, rest := args[i], args[i+1:]
	if name == "help" {
		return m.help(rest)
	}
	c := lookupCommand(name)
	if c == nil {
		return usageErrorf("unknown command %q (see `lunad help`)", name)
	}
	return c.exec(m, ctx, rest)
}

// globalFlag parses the global flag at args[i], returning how many
// arguments it took (0 if args[i] is not a global flag).
func (m *Main) globalFlag(args []string, i int) (int, error) {
	name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
	if !strings.HasPrefix(args[i], "-") || strings.HasPrefix(args[i], "---") {
		return 0, nil
	}
	switch name {
	case "dir":
		if hasValue {
			m.dir = value
			return 1, nil
		}
		if i+1 >= len(args) {
			return 0, usageErrorf("flag needs an argument: --dir")
		}
		m.dir = args[i+1]
		return 2, nil
	case "json":
		if !hasValue {
			m.json = true
			return 1, nil
		}
		b, err := parseBool(value)
		if err != nil {
			return 0, usageErrorf("invalid value %q for flag --json", value)
		}
		m.json = b
		return 1, nil
	}
	return 0, nil
}

// reportError writes err to stderr: "lunad: " before the first line. A
// SEARCH text that was not found is followed by the closest lines of the
// file as "did you mean" hints.
func (m *Main) reportError(err error) {
	msg := strings.TrimRight(withHints(err), "\n")
	fmt.Fprintf(m.Stderr, "lunad: %s\n", msg)
	printHints(m.Stderr, err)
	var u *UsageError
	if errors.As(err, &u) && u.hint != "" {
		fmt.Fprintln(m.Stderr, u.hint)
	}
}

// withService opens the workspace at the --dir directory, runs f with its
// service and closes it.
func (m *Main) withService(f func(svc *workspace.Service) error) (err error) {
	opts, err := m.options()
	if err != nil {
		return err
	}
	// The agents close after the service (and its engine) has.
	var agents *ask.Agents
	defer func() {
		if agents != nil {
			agents.Close()
		}
	}()
	cfg, err := m.config()
	if err != nil {
		return err
	}
	svc, err := daemon.OpenService(m.workDir(), cfg, opts)
	if err != nil {
		return err
	}
	defer closeService(svc, &err)
	// As the daemon's engine, less the queue.
	if agents, _, err = daemon.ConfigureRuns(svc, runs.Options{}, cfg, m.Getenv, m.logger(), m.confirmer()); err != nil {
		return err
	}
	return f(svc)
}

// workDir is the --dir directory, or the current one.
func (m *Main) workDir() string {
	if m.dir == "" {
		return "."
	}
	return m.dir
}

// config loads the configuration of the --dir workspace, once per process:
// every command and the options below use this one.
func (m *Main) config() (config.Config, error) {
	if m.cfg == nil {
		cfg, err := config.Load(findRoot(m.workDir()), m.Getenv)
		if err != nil {
			return config.Config{}, err
		}
		m.cfg = &cfg
	}
	return *m.cfg, nil
}

// options turns the configuration into store options.
func (m *Main) options() (gitstore.Options, error) {
	if m.opts != nil {
		return *m.opts, nil
	}
	cfg, err := m.config()
	if err != nil {
		return gitstore.Options{}, err
	}
	opts := storeOptions(cfg)
	if m.Options != nil {
		m.Options(&opts)
	}
	m.opts = &opts
	return opts, nil
}

// storeOptions turns the configuration into store options.
func storeOptions(c config.Config) gitstore.Options {
	opts := gitstore.Options{LockTimeout: c.LockTimeout, MaxContent: c.MaxContent}
	if c.Author.Name != "" {
		opts.Human = gitstore.Signature{Name: c.Author.Name, Email: c.Author.Email}
		if opts.Human.Email == "" {
			opts.Human.Email = "user@lunad"
		}
	}
	return opts
}

// findRoot returns the workspace root for dir (gitdir.Root), else dir
// itself made absolute: the configuration of a directory that is not a
// workspace is the defaults and the environment.
func findRoot(dir string) string {
	if root, err := gitdir.Root(dir); err == nil {
		return root
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// closeService closes svc, reporting its error if the command succeeded.
func closeService(svc *workspace.Service, err *error) {
	if cerr := svc.Close(); cerr != nil && *err == nil {
		*err = cerr
	}
}
