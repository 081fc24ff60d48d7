package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/lsp"
)

var cmdLSP = &command{
	name:    "lsp",
	args:    "",
	summary: "serve the Language Server Protocol on stdin/stdout (for VS Code, Neovim)",
	help: `
The workspace is the client's root folder. Logs go to stderr; stdout
carries only LSP messages. See docs/editors.md.`,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		fs.Bool("stdio", true, "speak LSP on stdin/stdout (the only transport; accepted because editors pass it)")
		if _, err := fs.parse(args); err != nil {
			return err
		}
		log := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
		m.log = log
		return lsp.Serve(ctx, stdio{m.Stdin, m.Stdout}, lsp.Options{Open: m.openWorkspace, Logger: log, GoalTests: m.testCommands})
	},
}

// testCommands are the [tests] commands of the workspace at root.
func (m *Main) testCommands(root string) ([][]string, error) {
	cfg, err := m.config()
	if findRoot(root) != findRoot(m.workDir()) {
		cfg, err = config.Load(findRoot(root), m.Getenv)
	}
	return cfg.Tests.Commands, err
}

// openWorkspace opens the workspace containing dir with its configuration.
func (m *Main) openWorkspace(ctx context.Context, dir string) (lunad.Workspace, error) {
	// The language server may be asked for another workspace than --dir's:
	// that one's configuration is its own.
	load := m.config
	if root := findRoot(dir); root != findRoot(m.workDir()) {
		load = func() (config.Config, error) { return config.Load(root, m.Getenv) }
	}
	cfg, err := load()
	if err != nil {
		return nil, err
	}
	return m.openWorkspaceWith(ctx, dir, cfg)
}

// openWorkspaceWith is openWorkspace with the configuration already loaded.
func (m *Main) openWorkspaceWith(ctx context.Context, dir string, cfg config.Config) (lunad.Workspace, error) {
	opts := storeOptions(cfg)
	opts.Logger = m.logger()
	if m.Options != nil {
		m.Options(&opts)
		return daemon.OpenService(dir, cfg, opts) // injected clock and IDs work in-process only
	}
	// The workspace's daemon (started if none runs) is the single writer
	// and watches the repository, so changes made by other processes reach
	// the editor. If none can be used, serve in-process; but a daemon that
	// serves with another configuration is said, not worked around: in
	// process, changes by other processes would not be followed.
	// The settings compared are read again at each reconnection: a
	// daemon that restarted for a changed author is the one to use.
	root := findRoot(dir)
	reconfig := func() (*rpc.Settings, error) {
		c, err := config.Load(root, m.Getenv)
		if err != nil {
			return nil, err
		}
		return daemon.Settings(storeOptions(c)), nil
	}
	ws, err := rpc.Connect(ctx, dir, rpc.ConnectOptions{AutoStart: true, Reconnect: true, Reconfig: reconfig})
	if err == nil {
		if n := ws.(*rpc.Client).Hello().Notice; n != "" {
			m.logger().Info(n)
		}
		return ws, nil
	}
	if errors.As(err, new(*rpc.DiffersError)) {
		return nil, err
	}
	svc, oerr := daemon.OpenService(dir, cfg, opts)
	if oerr != nil {
		return nil, oerr // not a workspace, say: that is the error, not the daemon
	}
	m.logger().Warn("no daemon; serving the workspace in this process (changes by other processes are not followed)", "err", err)
	return svc, nil
}

// stdio joins the process's stdin and stdout into one stream.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
