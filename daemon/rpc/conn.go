package rpc

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/lunad/lunad"
)

// serveConn serves one client until it disconnects or the server stops.
func (srv *server) serveConn(nc net.Conn) {
	srv.clients.Add(1)
	defer srv.clients.Add(-1)
	log := srv.log.With("conn", srv.nextConn.Add(1))
	log.Debug("client connected")
	fs := newFrameStream(nc, srv.opts.MaxFrame, log, max(srv.opts.ConnIdleTimeout, 0))
	conn := jsonrpc2.NewConn(fs, jsonrpc2.WithCodec(codec{}))
	c := &serverConn{srv: srv, conn: conn, fs: fs, log: log}
	subCtx, cancelSubs := context.WithCancel(srv.base)
	c.subCtx = subCtx
	conn.Go(srv.base, jsonrpc2.AsyncHandler(c.handle))
	select {
	case <-conn.Done():
	case <-srv.stopping:
		fs.stop() // answer what is in flight, read no more
		<-conn.Done()
	}
	cancelSubs()
	c.subs.Wait()
	conn.Close()
	if err := conn.Err(); err != nil {
		log.Info("client connection failed", "err", err)
	}
	log.Debug("client disconnected")
}

// serverConn is one client's connection.
type serverConn struct {
	srv    *server
	conn   jsonrpc2.Conn
	fs     *frameStream
	log    *slog.Logger
	subCtx context.Context // ends the subscriptions when the connection ends
	subs   sync.WaitGroup
}

func (c *serverConn) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		return nil, nil // the daemon takes no notifications
	}
	start := time.Now()
	method := req.Method()
	c.srv.active.Add(1)
	res, err := c.call(ctx, method, req.Params())
	c.srv.active.Add(-1)
	c.srv.served.Add(1)
	level := slog.LevelDebug
	if writes[method] && err == nil {
		level = slog.LevelInfo
	}
	attrs := []any{"method", method, "ms", float64(time.Since(start).Microseconds()) / 1000}
	if err != nil {
		attrs = append(attrs, "err", err)
	}
	if r, ok := res.(lunad.Result); ok {
		attrs = append(attrs, "artifact", r.Artifact.ID, "version", r.Version.Number, "commit", r.Version.Commit)
	} else if r, ok := res.(lunad.EditResult); ok {
		attrs = append(attrs, "artifact", r.Artifact.ID, "version", r.Version.Number, "commit", r.Version.Commit)
	}
	c.log.Log(ctx, level, "call", attrs...)
	if err != nil {
		return nil, wireError(err)
	}
	return res, nil
}
