package mcp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

func TestListenLoopbackOnly(t *testing.T) {
	cases := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:0", true},
		{"localhost:0", true},
		{"[::1]:0", true},
		{"0.0.0.0:0", false},
		{":0", false},
		{"192.0.2.1:0", false},
		{"example.com:80", false},
		{"127.0.0.1", false}, // no port
	}
	for _, c := range cases {
		t.Run(c.addr, func(t *testing.T) {
			ln, err := Listen(c.addr)
			if ln != nil {
				ln.Close()
			}
			if c.ok && err != nil && !strings.Contains(err.Error(), "cannot assign") {
				t.Errorf("Listen(%q) = %v", c.addr, err)
			}
			if !c.ok && (!errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "127.0.0.1:PORT")) {
				t.Errorf("Listen(%q) = %v, want ErrInvalid saying to use 127.0.0.1:PORT", c.addr, err)
			}
		})
	}
}

// TestServeHTTP: two clients over streamable HTTP each write under their
// own name, one is told of the other's edit, and a request naming a
// foreign Host (DNS rebinding) is refused. Serve returns when ctx ends.
func TestServeHTTP(t *testing.T) {
	ctx := context.Background()
	url, stop := httpServe(t, Options{})

	updated := make(chan string, 4)
	dial := func(name string, opts *sdk.ClientOptions) *sdk.ClientSession {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, opts).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: authed}, legacy)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return cs
	}
	alice := dial("alice", &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI }})
	bob := dial("bob", nil)

	var a writeOut
	if res := call(t, alice, "create_artifact", map[string]any{"title": "a", "type": "text/markdown", "path": "a.md", "content": "alpha\n"}, &a); res.IsError {
		t.Fatal(text(res))
	}
	if err := alice.Subscribe(ctx, &sdk.SubscribeParams{URI: ArtifactURI(a.ID, 0)}); err != nil {
		t.Fatal(err)
	}
	if res := call(t, bob, "edit_artifact", map[string]any{"id": a.ID, "changes": []map[string]string{{"search": "alpha\n", "replace": "beta\n"}}}, nil); res.IsError {
		t.Fatal(text(res))
	}
	select {
	case uri := <-updated:
		if uri != ArtifactURI(a.ID, 0) {
			t.Errorf("update for %s", uri)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("alice was not told of bob's edit")
	}
	var h historyOut
	call(t, alice, "artifact_history", map[string]any{"id": a.ID}, &h)
	if len(h.Versions) != 2 || h.Versions[0].Agent != "alice" || h.Versions[1].Agent != "bob" {
		t.Errorf("history = %+v, want a create by alice and an edit by bob", h.Versions)
	}

	for _, c := range []struct {
		name   string
		header map[string]string
	}{
		{"a foreign Host (DNS rebinding)", map[string]string{"Host": "attacker.example:80"}},
		{"a cross-site page in a browser", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}},
		{"a foreign Origin", map[string]string{"Origin": "http://evil.example"}},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		if h := c.header["Host"]; h != "" {
			req.Host = h
		}
		resp, err := authed.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s, want 403 Forbidden", c.name, resp.Status)
		}
	}

	alice.Close()
	bob.Close()
	if err := stop(); err != nil {
		t.Errorf("Serve = %v", err)
	}
}
