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

// TestSessionCaps: MCP over HTTP opens at most MaxSessionsPerAddress
// sessions from one address (429) and MaxSessions in all (503), each
// refusal saying so; a session its client ends makes room for a new one.
func TestSessionCaps(t *testing.T) {
	url, _ := httpServe(t, Options{MaxSessions: 3, MaxSessionsPerAddress: 2, SessionTimeout: -1})
	one, two, three := from("127.0.0.1"), from("127.0.0.2"), from("127.0.0.3")
	first := wantOpen(t, one, url)
	wantOpen(t, one, url)
	wantRefused(t, one, url, http.StatusTooManyRequests, "at most 2 sessions from one address (127.0.0.1 has 2)", "mcp.max_sessions_per_address", "HTTP DELETE")
	wantOpen(t, two, url)
	wantRefused(t, three, url, http.StatusServiceUnavailable, "at most 3 sessions and has 3", "mcp.max_sessions;")

	req, _ := http.NewRequest("DELETE", url, nil)
	req.Header.Set(sessionIDHeader, first)
	resp, err := one.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	wantOpen(t, three, url)
	wantRefused(t, one, url, http.StatusServiceUnavailable, "at most 3 sessions")
}

// TestSessionTimeout: a session with no request for SessionTimeout ends,
// and its place is free.
func TestSessionTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	url, _ := httpServe(t, Options{MaxSessions: 1, SessionTimeout: timeout})
	c := from("127.0.0.1")
	wantOpen(t, c, url)
	wantRefused(t, c, url, http.StatusServiceUnavailable, "at most 1 session and has 1", "no request for 300ms ends (mcp.session_timeout)")
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
