package mcp

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of the limits on sessions over HTTP (Options).
const (
	DefaultMaxSessions           = 256
	DefaultMaxSessionsPerAddress = 64
	DefaultSessionTimeout        = 30 * time.Minute
)

// sessionIDHeader carries a streamable HTTP session's ID.
const sessionIDHeader = "Mcp-Session-Id"

// sessionCap admits new HTTP sessions within two caps: max live sessions
// in all, perAddr from one client address. (The rate limit is per
// session: without the caps, a client could open sessions without end.)
// A session counts from the request that opens it until the SDK lets it
// go: closed by its client (DELETE), expired (SessionTimeout), or refused
// at initialization.
type sessionCap struct {
	srv          *sdk.Server
	max, perAddr int
	timeout      time.Duration // for the refusal's message; <= 0 never

	mu       sync.Mutex
	addrOf   map[string]string // session ID → client address
	starting map[string]int    // client address → sessions being opened
}

func newSessionCap(srv *sdk.Server, max, perAddr int, timeout time.Duration) *sessionCap {
	return &sessionCap{srv: srv, max: max, perAddr: perAddr, timeout: timeout,
		addrOf: map[string]string{}, starting: map[string]int{}}
}

// handler refuses a request that would open a session over a cap — 429
// Too Many Requests over the address's, 503 Service Unavailable over the
// server's — with a message saying which and what to do; other requests go
// to next.
func (c *sessionCap) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" {
			next.ServeHTTP(w, r)
			return
		}
		addr := r.RemoteAddr
		if host, _, err := net.SplitHostPort(addr); err == nil {
			addr = host
		}
		if code, msg := c.admit(addr); code != 0 {
			w.Header().Set("Retry-After", "10")
			http.Error(w, msg, code)
			return
		}
		defer func() { c.opened(addr, w.Header().Get(sessionIDHeader)) }()
		next.ServeHTTP(w, r)
	})
}

// admit reserves a session for addr, or says why not (an HTTP status and
// a message).
func (c *sessionCap) admit(addr string) (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune()
	total, fromAddr := len(c.addrOf), c.starting[addr]
	for _, a := range c.starting {
		total += a
	}
	for _, a := range c.addrOf {
		if a == addr {
			fromAddr++
		}
	}
	expiry := "sessions never expire here (mcp.session_timeout 0)"
	if c.timeout > 0 {
		expiry = fmt.Sprintf("a session with no request for %v ends (mcp.session_timeout)", c.timeout)
	}
	switch {
	case fromAddr >= c.perAddr:
		return http.StatusTooManyRequests, fmt.Sprintf("lunad mcp serves at most %s from one address (%s has %d); end sessions you no longer use (HTTP DELETE with their %s) or raise mcp.max_sessions_per_address; %s",
			plural(c.perAddr, "session"), addr, fromAddr, sessionIDHeader, expiry)
	case total >= c.max:
		return http.StatusServiceUnavailable, fmt.Sprintf("lunad mcp serves at most %s and has %d; end sessions you no longer use (HTTP DELETE with their %s) or raise mcp.max_sessions; %s",
			plural(c.max, "session"), total, sessionIDHeader, expiry)
	}
	c.starting[addr]++
	return 0, ""
}

// opened ends addr's reservation: the session id now counts, if the
// request opened one.
func (c *sessionCap) opened(addr, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.starting[addr]--; c.starting[addr] <= 0 {
		delete(c.starting, addr)
	}
	if id != "" {
		c.addrOf[id] = addr
	}
	c.prune() // a session refused at initialization is gone already
}

// prune forgets the sessions the SDK no longer has. c.mu is held.
func (c *sessionCap) prune() {
	live := map[string]bool{}
	for ss := range c.srv.Sessions() {
		live[ss.ID()] = true
	}
	for id := range c.addrOf {
		if !live[id] {
			delete(c.addrOf, id)
		}
	}
}
