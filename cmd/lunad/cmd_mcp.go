package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/mcp"
)

var cmdMCP = &command{
	name:    "mcp",
	args:    "[--http 127.0.0.1:PORT | --http-unix PATH]",
	summary: "serve the Model Context Protocol on stdin/stdout, or HTTP on localhost or a unix socket (for AI clients)",
	help: `
The workspace is --dir (or the current directory); the server is a client of
the workspace's daemon (started if none runs). Edits are committed with the
MCP client's name as author unless a call names an agent. Each client may
make mcp.rate requests per second, mcp.burst at once (configuration; env
LUNAD_MCP_RATE, LUNAD_MCP_BURST).

Without --http, MCP is served on stdin/stdout until stdin closes; logs go to
stderr, stdout carries only MCP messages. With --http, streamable HTTP is
served at http://ADDR/mcp to any number of clients until SIGINT or SIGTERM;
ADDR must be a loopback address (127.0.0.1 or ::1; port 0 picks one), since
it is plain HTTP. With --http-unix, it is served on a unix socket at PATH
(mode 0600: only you can connect), as http://localhost/mcp.

Any local account can reach a loopback port, so every HTTP request must
carry the server's token, "Authorization: Bearer TOKEN". A new random token
is made each time the server starts: it is printed once, alone on stdout,
and kept while the server runs in .git/luna/mcp/http-PID.token (mode 0600,
in a directory only you can enter), whose path is logged on stderr with the
address. Requests without it are refused (401).`,
	run: runMCP,
}

func runMCP(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	addr := fs.String("http", "", "serve streamable HTTP on `address` 127.0.0.1:PORT instead of stdin/stdout")
	sock := fs.String("http-unix", "", "serve streamable HTTP on a unix socket at `path` (mode 0600) instead of stdin/stdout")
	if _, err := fs.parse(args); err != nil {
		return err
	}
	if *addr != "" && *sock != "" {
		return usageErrorf("--http and --http-unix: give one of them")
	}
	log := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	m.log = log
	cfg, err := m.config()
	if err != nil {
		return err
	}
	var ln net.Listener // bound first: a refused address starts nothing
	url := ""
	switch {
	case *addr != "":
		if ln, err = mcp.Listen(*addr); err != nil {
			return err
		}
		defer ln.Close()
		url = fmt.Sprintf("http://%s%s", ln.Addr(), mcp.HTTPPath)
	case *sock != "":
		if ln, err = mcp.ListenUnix(*sock); err != nil {
			return err
		}
		defer ln.Close()
		url = "http://localhost" + mcp.HTTPPath
	}
	ws, err := m.openWorkspaceWith(ctx, m.workDir(), cfg)
	if err != nil {
		return err
	}
	defer ws.Close()
	srv, err := mcp.New(ctx, ws, mcp.Options{
		Name: "lunad", Logger: log, Rate: cfg.MCP.Rate, Burst: cfg.MCP.Burst, PageSize: cfg.MCP.PageSize,
		MaxSessions: cfg.MCP.MaxSessions, MaxSessionsPerAddress: cfg.MCP.MaxSessionsPerAddress, SessionTimeout: config.Never(cfg.MCP.SessionTimeout),
		GoalTests: cfg.Tests.Commands,
	})
	if err != nil {
		return err
	}
	if ln == nil {
		return srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(m.Stdin), Writer: nopWriteCloser{m.Stdout}})
	}
	state, _, err := rpc.StateDir(m.workDir())
	if err != nil {
		return err
	}
	tok, err := mcp.WriteToken(filepath.Join(state, "mcp"))
	if err != nil {
		return err
	}
	defer tok.Remove()
	// The token goes to stdout, once, never to the log.
	if _, err := fmt.Fprintln(m.Stdout, tok.Secret); err != nil {
		return fmt.Errorf("print the MCP token: %w", err)
	}
	attrs := []any{"url", url, "token_file", tok.File, "auth", "Authorization: Bearer TOKEN, the token printed on stdout"}
	if *sock != "" {
		attrs = append(attrs, "socket", *sock)
	}
	log.Info("serving MCP over streamable HTTP", attrs...)
	return srv.Serve(ctx, ln, tok.Secret)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
