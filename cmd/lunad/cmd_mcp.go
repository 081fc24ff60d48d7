package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad/mcp"
)

var cmdMCP = &command{
	name:    "mcp",
	args:    "[--http 127.0.0.1:PORT]",
	summary: "serve the Model Context Protocol on stdin/stdout, or HTTP on localhost (for AI clients)",
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
the server has no authentication. The address is logged on stderr.`,
	run: runMCP,
}

func runMCP(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	addr := fs.String("http", "", "serve streamable HTTP on `address` 127.0.0.1:PORT instead of stdin/stdout")
	if _, err := fs.parse(args); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	m.log = log
	cfg, err := m.config()
	if err != nil {
		return err
	}
	var ln net.Listener // bound first: a refused address starts nothing
	if *addr != "" {
		if ln, err = mcp.Listen(*addr); err != nil {
			return err
		}
		defer ln.Close()
	}
	ws, err := m.openWorkspaceWith(ctx, m.workDir(), cfg)
	if err != nil {
		return err
	}
	defer ws.Close()
	srv, err := mcp.New(ctx, ws, mcp.Options{
		Name: "lunad", Logger: log, Rate: cfg.MCP.Rate, Burst: cfg.MCP.Burst, PageSize: cfg.MCP.PageSize,
		MaxSessions: cfg.MCP.MaxSessions, MaxSessionsPerAddress: cfg.MCP.MaxSessionsPerAddress, SessionTimeout: never(cfg.MCP.SessionTimeout),
		GoalTests: cfg.Tests.Commands,
	})
	if err != nil {
		return err
	}
	if ln == nil {
		return srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(m.Stdin), Writer: nopWriteCloser{m.Stdout}})
	}
	log.Info("serving MCP over streamable HTTP", "url", fmt.Sprintf("http://%s%s", ln.Addr(), mcp.HTTPPath))
	return srv.Serve(ctx, ln)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
