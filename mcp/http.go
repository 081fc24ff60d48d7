package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/internal/unixsock"
)

// HTTPPath is where Serve answers streamable HTTP.
const HTTPPath = "/mcp"

// Listen opens a TCP listener for Serve on addr, which must be a loopback
// address (127.0.0.1, ::1 or localhost, any port): lunad's MCP over HTTP
// is plain HTTP, its token readable on the wire, so it is never offered to
// the network. Returns lunad.ErrInvalid for any other address.
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: MCP HTTP address %q: %v (use 127.0.0.1:PORT)", lunad.ErrInvalid, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%w: MCP HTTP address %q is not a loopback address: it is plain HTTP, so it binds to 127.0.0.1 or ::1 only (use 127.0.0.1:PORT)", lunad.ErrInvalid, addr)
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

// ListenUnix opens a unix socket listener for Serve at path, mode 0600
// from the start (unixsock.Listen): only the owner (and root) can connect.
// Closing it removes the socket. A live socket at path, or a file that is
// not a socket, is an error.
func ListenUnix(path string) (net.Listener, error) {
	ln, err := unixsock.Listen(path)
	if err != nil {
		return nil, fmt.Errorf("MCP HTTP socket: %w", err)
	}
	return &unixListener{UnixListener: ln, path: path}, nil
}

// unixListener removes its socket when closed.
type unixListener struct {
	*net.UnixListener
	path string
	once sync.Once
	err  error
}

func (l *unixListener) Close() error {
	l.once.Do(func() {
		l.err = l.UnixListener.Close()
		os.Remove(l.path)
	})
	return l.err
}

// Serve serves MCP over streamable HTTP at HTTPPath on ln (see Listen and
// ListenUnix), one session per client, following the Workspace's events,
// until ctx is done; then it stops accepting, closes the sessions and
// returns nil. Every request must carry token as its bearer token
// ("Authorization: Bearer TOKEN"; see WriteToken): any local account can
// connect to a loopback port, so without it one is refused with 401 before
// anything else is looked at. An empty token is lunad.ErrInvalid. Requests whose Host is not a loopback name (DNS rebinding: the SDK) and
// cross-origin requests from browsers are refused with 403; a request that
// would open a session over Options.MaxSessionsPerAddress or MaxSessions
// evicts the longest-idle session, or is refused with 429 or 503 when
// every session is active (sessionCap); a session idle for
// Options.SessionTimeout is ended.
func (s *Server) Serve(ctx context.Context, ln net.Listener, token string) error {
	if token == "" {
		return fmt.Errorf("%w: MCP over HTTP needs a token (WriteToken)", lunad.ErrInvalid)
	}
	mux := http.NewServeMux()
	timeout := cmp.Or(s.opts.SessionTimeout, DefaultSessionTimeout)
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		Logger:              s.opts.Logger,
		MaxRequestBodyBytes: maxRequestBody,
		SessionTimeout:      max(timeout, 0),
	})
	caps := newSessionCap(s.sdk, cmp.Or(s.opts.MaxSessions, DefaultMaxSessions), cmp.Or(s.opts.MaxSessionsPerAddress, DefaultMaxSessionsPerAddress),
		timeout, cmp.Or(s.opts.SessionActive, DefaultSessionActive), s.opts.Clock)
	// A web page the user visits must not drive the workspace: browsers
	// mark cross-origin requests (Sec-Fetch-Site, Origin), refused here.
	mux.Handle(HTTPPath, http.NewCrossOriginProtection().Handler(caps.handler(mcpHandler)))
	hs := &http.Server{Handler: requireToken(token, mux), ReadHeaderTimeout: 10 * time.Second}

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
