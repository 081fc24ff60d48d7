package mcp

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of the limits on sessions over HTTP (Options).
const (
	DefaultMaxSessions           = 256
	DefaultMaxSessionsPerAddress = 64
	DefaultSessionTimeout        = 30 * time.Minute
	// DefaultSessionActive is how long after its last request a session
	// counts as active: never evicted, and counted against its address.
	DefaultSessionActive = time.Minute
)

// sessionIDHeader carries a streamable HTTP session's ID.
const sessionIDHeader = "Mcp-Session-Id"

// maxEvicted bounds the evicted session IDs remembered to answer their
// client "session expired" (an older one gets the SDK's plain 404).
const maxEvicted = 4096

// sessionCap admits new HTTP sessions within two caps: max live sessions
// in all, perAddr from one client address. (The rate limit is per
// session: without the caps, a client could open sessions without end.)
// A session counts from the request that opens it until the SDK lets it
// go: closed by its client (DELETE), expired (SessionTimeout), refused at
// initialization, or evicted here.
//
// Many clients never end their sessions (one-shot clients such as the MCP
// Inspector's CLI send no DELETE), so at a cap the longest-idle session
// is evicted — closed, its next request answered 404 "session expired" —
// to make room. A session is active while a request of its is open (a
// call, a GET stream) and for `active` after its last one ended; active
// sessions are never evicted, and an address with perAddr active sessions
// is refused (429), so that a client opening sessions in a loop evicts
// idle sessions at most, never live ones, and then stops.
type sessionCap struct {
	srv          *sdk.Server
	max, perAddr int
	timeout      time.Duration // for the refusal's message; <= 0 never
	active       time.Duration
	now          func() time.Time

	mu       sync.Mutex
	sessions map[string]*capped // session ID → what the cap knows of it
	starting map[string]int     // client address → sessions being opened
	evicted  map[string]string  // evicted session ID → why, for its client
	order    []string           // evicted IDs, oldest first
}

// capped is one live session as the cap sees it.
type capped struct {
	addr string
	last time.Time // when its last request began or ended
	open int       // requests of it being served
}

func newSessionCap(srv *sdk.Server, max, perAddr int, timeout, active time.Duration, now func() time.Time) *sessionCap {
	return &sessionCap{srv: srv, max: max, perAddr: perAddr, timeout: timeout, active: active, now: now,
		sessions: map[string]*capped{}, starting: map[string]int{}, evicted: map[string]string{}}
}

// handler refuses a request that would open a session over a cap — 429
// Too Many Requests over the address's active sessions, 503 Service
// Unavailable when every session is active — with a message saying which
// and what to do, evicting the longest-idle session when that makes room;
// answers a request of an evicted session 404 saying it expired; and
// passes other requests to next, keeping each session's idle time.
func (c *sessionCap) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(sessionIDHeader); id != "" {
			if why, gone := c.begin(id); gone {
				http.Error(w, why, http.StatusNotFound)
				return
			}
			defer c.end(id)
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		addr := r.RemoteAddr
		if host, _, err := net.SplitHostPort(addr); err == nil {
			addr = host
		}
		code, msg, evict := c.admit(addr)
		if code != 0 {
			w.Header().Set("Retry-After", "10")
			http.Error(w, msg, code)
			return
		}
		if evict != nil {
			evict.Close() // its onClose takes it off the SDK's lists
		}
		defer func() { c.opened(addr, w.Header().Get(sessionIDHeader)) }()
		next.ServeHTTP(w, r)
	})
}

// begin marks a request of session id as open; if the session was
// evicted, it says so instead (gone) with what its client should do.
func (c *sessionCap) begin(id string) (why string, gone bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if why, ok := c.evicted[id]; ok {
		return why, true
	}
	if s := c.sessions[id]; s != nil {
		s.open++
		s.last = c.now()
	}
	return "", false
}

// end marks a request of session id as done.
func (c *sessionCap) end(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.sessions[id]; s != nil {
		s.open--
		s.last = c.now()
	}
}

// admit reserves a session for addr — evicting the longest-idle session
// if a cap is reached (the caller closes it) — or says why not (an HTTP
// status and a message).
func (c *sessionCap) admit(addr string) (int, string, *sdk.ServerSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	live := c.prune()
	now := c.now()
	total, fromAddr, activeFromAddr := len(c.sessions), c.starting[addr], c.starting[addr]
	for _, n := range c.starting {
		total += n
	}
	for _, s := range c.sessions {
		if s.addr == addr {
			fromAddr++
			if c.isActive(s, now) {
				activeFromAddr++
			}
		}
	}
	expiry := "sessions never expire here (mcp.session_timeout 0)"
	if c.timeout > 0 {
		expiry = fmt.Sprintf("a session with no request for %v ends (mcp.session_timeout)", c.timeout)
	}
	var victim string
	switch {
	case activeFromAddr >= c.perAddr:
		return http.StatusTooManyRequests, fmt.Sprintf("lunad mcp serves at most %s from one address and %s has %d active (a request in the last %v); end sessions you no longer use (HTTP DELETE with their %s) or raise mcp.max_sessions_per_address; %s",
			plural(c.perAddr, "session"), addr, activeFromAddr, c.active, sessionIDHeader, expiry), nil
	case fromAddr >= c.perAddr:
		victim = c.idlest(now, addr)
	case total >= c.max:
		if victim = c.idlest(now, ""); victim == "" {
			return http.StatusServiceUnavailable, fmt.Sprintf("lunad mcp serves at most %s and all %d are active (a request in the last %v); end sessions you no longer use (HTTP DELETE with their %s) or raise mcp.max_sessions; %s",
				plural(c.max, "session"), total, c.active, sessionIDHeader, expiry), nil
		}
	}
	c.starting[addr]++
	if victim == "" {
		return 0, "", nil
	}
	s := c.sessions[victim]
	delete(c.sessions, victim)
	c.remember(victim, fmt.Sprintf("session expired: lunad mcp ended this session, idle for %v, to admit a new one (at most %s, %s from one address); initialize a new session",
		now.Sub(s.last).Round(time.Second), plural(c.max, "session"), plural(c.perAddr, "session")))
	return 0, "", live[victim]
}

// isActive reports whether s may not be evicted.
func (c *sessionCap) isActive(s *capped, now time.Time) bool {
	return s.open > 0 || now.Sub(s.last) < c.active
}

// idlest is the ID of the session, from addr unless it is "", idle the
// longest and not active; "" if there is none. c.mu is held.
func (c *sessionCap) idlest(now time.Time, addr string) string {
	var id string
	var at time.Time
	for k, s := range c.sessions {
		if (addr != "" && s.addr != addr) || c.isActive(s, now) {
			continue
		}
		if id == "" || s.last.Before(at) || (s.last.Equal(at) && k < id) {
			id, at = k, s.last
		}
	}
	return id
}

// remember records that session id was evicted, and why, forgetting the
// oldest record beyond maxEvicted. c.mu is held.
func (c *sessionCap) remember(id, why string) {
	c.evicted[id] = why
	c.order = append(c.order, id)
	if len(c.order) > maxEvicted {
		delete(c.evicted, c.order[0])
		c.order = slices.Delete(c.order, 0, 1)
	}
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
		c.sessions[id] = &capped{addr: addr, last: c.now()}
	}
	c.prune() // a session refused at initialization is gone already
}

// prune forgets the sessions the SDK no longer has and returns those it
// has, by ID. c.mu is held.
func (c *sessionCap) prune() map[string]*sdk.ServerSession {
	live := map[string]*sdk.ServerSession{}
	for ss := range c.srv.Sessions() {
		live[ss.ID()] = ss
	}
	for id := range c.sessions {
		if live[id] == nil {
			delete(c.sessions, id)
		}
	}
	return live
}
