package rpc

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// wantClosed fails the test unless the daemon closes c (after what it
// sent already was read).
func (c *rawConn) wantClosed() {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if b, err := io.ReadAll(c.r); err != nil || len(b) > 0 {
		c.t.Fatalf("want the connection closed, got %q, %v", b, err)
	}
}

// TestConnectionCap: a daemon serves at most MaxConns connections; one
// more is answered with an error that says so — its first call, or unasked
// if it sends none — and closed, and Connect reports it; once a client
// leaves, a new one is served.
func TestConnectionCap(t *testing.T) {
	svc := newService(t)
	serveTest(t, svc, ServeOptions{MaxConns: 3, ConnIdleTimeout: -1})
	clients := []*Client{clientTest(t, svc.Root()), clientTest(t, svc.Root()), clientTest(t, svc.Root())}
	const msg = "the daemon serves at most 3 connections"

	over := rawDial(t, svc)
	over.send(`{"jsonrpc":"2.0","id":7,"method":"lunad/hello","params":{}}`)
	over.wantError("7", int(codeBusy), msg)
	over.wantClosed()

	silent := rawDial(t, svc)
	silent.wantError("null", int(codeBusy), "raise daemon.max_connections")
	silent.wantClosed()

	if ws, err := Connect(context.Background(), svc.Root(), ConnectOptions{}); !errors.Is(err, ErrNoDaemon) || !strings.Contains(err.Error(), msg) {
		t.Fatalf("connect over the cap: %v %v", ws, err)
	}
	for _, c := range clients {
		if st := status(t, c); st.Clients != 3 {
			t.Fatalf("status %+v", st)
		}
	}
	clients[0].Close()
	var next lunad.Workspace
	waitFor(t, "a connection once a client left", func() bool {
		ws, err := Connect(context.Background(), svc.Root(), ConnectOptions{})
		next = ws
		return err == nil
	})
	defer next.Close()
	if _, err := next.List(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestConnIdleTimeout: a connection with no call in flight and no
// subscription is told and closed after ConnIdleTimeout; a subscribed
// client, and one whose call is still running, are not.
func TestConnIdleTimeout(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	const idle = 300 * time.Millisecond
	serveTest(t, svc, ServeOptions{ConnIdleTimeout: idle})

	subscribed := clientTest(t, svc.Root())
	events, err := subscribed.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	busy := clientTest(t, svc.Root())
	release := holdLock(t, svc)
	created := make(chan error, 1)
	go func() {
		_, err := busy.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
		created <- err
	}()
	waitFor(t, "the create to wait for the lock", func() bool { return status(t, subscribed).Active == 1 })

	// Each raw connection is closed after idle: twice over, the others
	// have waited longer than that.
	for range 2 {
		quiet := rawDial(t, svc)
		quiet.wantError("null", int(codeIdle), "no call in flight and no subscription for 300ms (daemon.conn_idle_timeout)")
		quiet.wantClosed()
	}
	answered := rawDial(t, svc)
	answered.send(`{"jsonrpc":"2.0","id":1,"method":"lunad/hello","params":{}}`)
	if r, err := answered.recv(); err != nil || r.Error != nil {
		t.Fatalf("hello: %+v %v", r, err)
	}
	answered.wantError("null", int(codeIdle), "connect again")
	answered.wantClosed()

	release()
	if err := <-created; err != nil {
		t.Fatalf("the create waiting for the lock: %v", err)
	}
	select {
	case e, ok := <-events:
		if !ok || e.Kind != "created" {
			t.Fatalf("event %+v, open %v", e, ok)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the subscribed client got no event")
	}
	if _, err := subscribed.List(ctx); err != nil {
		t.Fatalf("the subscribed client: %v", err)
	}
}
