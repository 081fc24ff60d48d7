package main

import (
	"context"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad/mcp"
)

var cmdMCP = &command{
	name:    "mcp",
	args:    "",
	summary: "serve the Model Context Protocol on stdin/stdout (for AI clients)",
	help: `
The workspace is --dir (or the current directory). Edits are committed with
the MCP client's name as author unless a call names an agent. Logs go to
stderr; stdout carries only MCP messages.`,
	run: func(m *Main, ctx context.Context, fs *flagSet, args []string) error {
		if _, err := fs.parse(args); err != nil {
			return err
		}
		log := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
		slog.SetDefault(log)
		ws, err := m.openWorkspace(ctx, m.workDir())
		if err != nil {
			return err
		}
		defer ws.Close()
		srv := mcp.NewServer(ws, mcp.Options{Name: "lunad", Logger: log})
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		wg.Go(func() {
			if err := mcp.Follow(ctx, srv, ws); err != nil && ctx.Err() == nil {
				log.Warn("resource updates stopped", "err", err)
			}
		})
		return srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(m.Stdin), Writer: nopWriteCloser{m.Stdout}})
	},
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
