package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// HTTPPath is where Serve answers streamable HTTP.
const HTTPPath = "/mcp"

// Listen opens a TCP listener for Serve on addr, which must be a loopback
// address (127.0.0.1, ::1 or localhost, any port): lunad's MCP over HTTP
// has no authentication, so it is never offered to the network. Returns
// lunad.ErrInvalid for any other address.
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: MCP HTTP address %q: %v (use 127.0.0.1:PORT)", lunad.ErrInvalid, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%w: MCP HTTP address %q is not a loopback address: it has no authentication, so it binds to 127.0.0.1 or ::1 only (use 127.0.0.1:PORT)", lunad.ErrInvalid, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("%w: MCP HTTP address %q resolved to %s, which is not a loopback address (use 127.0.0.1:PORT)", lunad.ErrInvalid, addr, ln.Addr())
	}
	return ln, nil
}

// Serve serves MCP over streamable HTTP at HTTPPath on ln (see Listen),
// one session per client, following the Workspace's events, until ctx is
// done; then it stops accepting, closes the sessions and returns nil.
// Requests whose Host is not a loopback name (DNS rebinding: the SDK) and
// cross-origin requests from browsers are refused with 403; a request that
// would open a session over Options.MaxSessionsPerAddress or MaxSessions
// with 429 or 503 (sessionCap); a session idle for Options.SessionTimeout
// is ended.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	timeout := cmp.Or(s.opts.SessionTimeout, DefaultSessionTimeout)
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		Logger:              s.opts.Logger,
		MaxRequestBodyBytes: maxRequestBody,
		SessionTimeout:      max(timeout, 0),
	})
	caps := newSessionCap(s.sdk, cmp.Or(s.opts.MaxSessions, DefaultMaxSessions), cmp.Or(s.opts.MaxSessionsPerAddress, DefaultMaxSessionsPerAddress), timeout)
	// A web page the user visits must not drive the workspace: browsers
	// mark cross-origin requests (Sec-Fetch-Site, Origin), refused here.
	mux.Handle(HTTPPath, http.NewCrossOriginProtection().Handler(caps.handler(mcpHandler)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { s.follow(ctx) })
	wg.Go(func() {
		<-ctx.Done()
		shutdown, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		hs.Shutdown(shutdown)
	})
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// maxRequestBody bounds one HTTP request: the largest artifact lunad
// takes (gitstore's default limit) as JSON, with room for escaping.
const maxRequestBody = 64 << 20
