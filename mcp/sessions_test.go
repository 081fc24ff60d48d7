package mcp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// httpServe serves MCP over HTTP on a loopback port, over a new Service,
// with testToken, and returns its URL and a function that ends Serve and
// returns its result (called at the end of the test if not before).
func httpServe(t *testing.T, opts Options) (url string, stop func() error) {
	t.Helper()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + ln.Addr().String() + HTTPPath, serveOn(t, opts, ln, testToken)
}

// serveOn serves MCP over HTTP on ln, over a new Service, requiring token,
// and returns a function that ends Serve and returns its result (called
// at the end of the test if not before).
func serveOn(t *testing.T, opts Options, ln net.Listener, token string) (stop func() error) {
	t.Helper()
	svc, _ := newService(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := New(ctx, svc, opts)
	if err != nil {
		ln.Close()
		cancel()
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln, token) }()
	var once sync.Once
	var serr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case serr = <-served:
			case <-time.After(10 * time.Second):
				serr = errors.New("Serve did not return after ctx ended")
			}
		})
		return serr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
	return stop
}

// testToken is the bearer token of httpServe's servers.
const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// authed is an HTTP client that sends testToken.
var authed = &http.Client{Transport: WithToken(nil, testToken)}

// from is an HTTP client, sending testToken, whose connections come from
// the loopback address ip (127.0.0.2 ...: all of 127/8 is local).
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: WithToken(&http.Transport{DialContext: d.DialContext}, testToken), Timeout: 10 * time.Second}
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// open posts an initialize request and returns the status, the session ID
// and the body.
func open(t *testing.T, c *http.Client, url string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(sessionIDHeader), string(b)
}

// wantOpen opens a session and fails the test unless it was admitted.
func wantOpen(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	code, id, body := open(t, c, url)
	if code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %q %s", code, id, body)
	}
	return id
}

// wantRefused opens a session and fails the test unless it was refused
// with code and a message saying each of want.
func wantRefused(t *testing.T, c *http.Client, url string, code int, want ...string) {
	t.Helper()
	got, id, body := open(t, c, url)
	if got != code || id != "" {
		t.Fatalf("initialize: %d %q %s, want %d", got, id, body, code)
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("refusal %q does not say %q", body, w)
		}
	}
}

// TestSessionCaps: while every session is active, MCP over HTTP opens at
// most MaxSessionsPerAddress sessions from one address (429) and
// MaxSessions in all (503), each refusal saying so; a session its client
// ends makes room for a new one.
func TestSessionCaps(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	url, _ := httpServe(t, Options{MaxSessions: 3, MaxSessionsPerAddress: 2, SessionTimeout: -1, Clock: func() time.Time { return now }})
	one, two, three := from("127.0.0.1"), from("127.0.0.2"), from("127.0.0.3")
	first := wantOpen(t, one, url)
	wantOpen(t, one, url)
	wantRefused(t, one, url, http.StatusTooManyRequests, "at most 2 sessions from one address and 127.0.0.1 has 2 active (a request in the last 1m0s)", "mcp.max_sessions_per_address", "HTTP DELETE")
	wantOpen(t, two, url)
	wantRefused(t, three, url, http.StatusServiceUnavailable, "at most 3 sessions and all 3 are active", "mcp.max_sessions;")

	if code, _ := request(t, one, "DELETE", url, first, ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	wantOpen(t, three, url)
	wantRefused(t, one, url, http.StatusServiceUnavailable, "at most 3 sessions")
}

// request sends one request of session id (none if "") with body, and
// returns the status and the body of the answer.
func request(t *testing.T, c *http.Client, method, url, id, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if id != "" {
		req.Header.Set(sessionIDHeader, id)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// oneShot is what the MCP Inspector's CLI sends after initialize, and
// then it exits without ending its session.
const (
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listTools   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

// TestSessionEviction: one-shot clients that never end their sessions do
// not lock others out. At a cap, a new session evicts the longest-idle one
// (its address's at the address's cap), whose client's next request gets
// 404 saying the session expired, and which initializes anew and works;
// an active session — a request in the last SessionActive, or one still
// open like a GET stream — is never evicted, so a client opening sessions
// in a loop is refused once its own are all active.
func TestSessionEviction(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	url, _ := httpServe(t, Options{MaxSessions: 3, MaxSessionsPerAddress: 2, SessionTimeout: -1, SessionActive: time.Minute, Clock: clock})
	one, two, three, four := from("127.0.0.1"), from("127.0.0.2"), from("127.0.0.3"), from("127.0.0.4")
	oneShot := func(c *http.Client) string {
		id := wantOpen(t, c, url)
		if code, body := request(t, c, "POST", url, id, initialized); code != http.StatusAccepted {
			t.Fatalf("initialized: %d %s", code, body)
		}
		if code, body := request(t, c, "POST", url, id, listTools); code != http.StatusOK || !strings.Contains(body, "read_artifact") {
			t.Fatalf("tools/list: %d %s", code, body)
		}
		return id
	}
	works := func(c *http.Client, id string) {
		t.Helper()
		if code, body := request(t, c, "POST", url, id, listTools); code != http.StatusOK || !strings.Contains(body, "read_artifact") {
			t.Fatalf("tools/list of session %s: %d %s", id, code, body)
		}
	}

	a := oneShot(one)
	advance(10 * time.Second)
	b := oneShot(one)
	advance(2 * time.Minute)
	c := oneShot(one) // one's cap: evicts a, its idlest
	code, body := request(t, one, "POST", url, a, listTools)
	if want := "session expired: lunad mcp ended this session, idle for 2m10s, to admit a new one (at most 3 sessions, 2 sessions from one address); initialize a new session"; code != http.StatusNotFound || strings.TrimSpace(body) != want {
		t.Fatalf("request of the evicted session: %d %q, want 404 %q", code, body, want)
	}
	works(one, b)
	works(one, c)

	// The server's cap: the idlest session of all goes.
	advance(10 * time.Second)
	d := oneShot(two)
	advance(2 * time.Minute)
	works(one, c)
	e := oneShot(three) // evicts b, idle since before d opened
	if code, body := request(t, one, "POST", url, b, listTools); code != http.StatusNotFound || !strings.Contains(body, "session expired") {
		t.Fatalf("b after the server's cap: %d %s, want 404", code, body)
	}
	works(two, d)
	wantRefused(t, four, url, http.StatusServiceUnavailable, "at most 3 sessions and all 3 are active")

	// An open GET stream keeps its session active however long; a client
	// opening sessions in a loop evicts the idle ones, then is refused.
	cancel := getStream(t, two, url, d)
	defer cancel()
	advance(time.Hour)
	wantOpen(t, four, url)
	wantOpen(t, four, url)
	wantRefused(t, four, url, http.StatusTooManyRequests, "127.0.0.4 has 2 active")
	for _, id := range []string{c, e} {
		if code, _ := request(t, one, "POST", url, id, listTools); code != http.StatusNotFound {
			t.Errorf("session %s, idle for an hour: %d, want 404 (evicted)", id, code)
		}
	}
	works(two, d)
}

// getStream opens the standalone GET stream of session id, as clients do
// to be sent notifications, and returns what closes it.
func getStream(t *testing.T, c *http.Client, url, id string) (closeStream func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set(sessionIDHeader, id)
	resp, err := (&http.Client{Transport: c.Transport}).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET stream: %s", resp.Status)
	}
	return func() { cancel(); resp.Body.Close() }
}

// TestSessionTimeout: a session with no request for SessionTimeout ends,
// and its place is free.
func TestSessionTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	url, _ := httpServe(t, Options{MaxSessions: 1, SessionTimeout: timeout})
	c := from("127.0.0.1")
	wantOpen(t, c, url)
	wantRefused(t, c, url, http.StatusServiceUnavailable, "at most 1 session and all 1 are active", "no request for 300ms ends (mcp.session_timeout)")
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, id, body := open(t, c, url)
		if code == http.StatusOK && id != "" {
			return
		}
		if code != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("initialize after the timeout: %d %s", code, body)
		}
		time.Sleep(timeout / 4)
	}
}
