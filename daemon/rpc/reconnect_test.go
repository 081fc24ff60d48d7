package rpc

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/lunad/lunad"
)

// flakyDaemon speaks the daemon's protocol on a socket and breaks the
// connection under the first call of each method in drop, so that a
// Client's reconnection and retry rules can be watched call by call.
type flakyDaemon struct {
	path string
	mu   sync.Mutex
	seen map[string]int // calls received per method
	drop map[string]bool
}

func newFlakyDaemon(t *testing.T, drop ...string) *flakyDaemon {
	d := &flakyDaemon{path: filepath.Join(t.TempDir(), "d.sock"), seen: map[string]int{}, drop: map[string]bool{}}
	for _, m := range drop {
		d.drop[m] = true
	}
	ln, err := net.Listen("unix", d.path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(nc))
			conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
				method := strings.Clone(req.Method()) // it may alias the read buffer
				d.mu.Lock()
				d.seen[method]++
				drop := d.drop[method]
				d.drop[method] = false
				d.mu.Unlock()
				if drop {
					nc.Close()
					return nil, errors.New("dropped")
				}
				switch req.Method() {
				case mHello:
					return Hello{Protocol: protocolVersion, Root: "/ws"}, nil
				case mList:
					return []lunad.Artifact{}, nil
				case mSubscribe:
					return subscribeResult{Subscription: 1}, nil
				case mEdit:
					return lunad.EditResult{Result: lunad.Result{Artifact: lunad.Artifact{ID: "a"}, Version: lunad.Version{Number: 2}}}, nil
				}
				return nil, errors.New("unexpected method " + req.Method())
			})
			wg.Go(func() { <-conn.Done() })
		}
	})
	return d
}

func (d *flakyDaemon) calls(method string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seen[method]
}

// reconnecting is a Client of d that restores its connection.
func (d *flakyDaemon) client(t *testing.T) *Client {
	c := newClient()
	c.redial = func(ctx context.Context) error { return c.attach(ctx, d.path) }
	if err := c.attach(context.Background(), d.path); err != nil {
		t.Fatal(err)
	}
	c.follow()
	t.Cleanup(func() { c.Close() })
	return c
}

// TestClientReconnects: when the connection breaks under a call, a read and
// a write with an idempotency key are sent again on the restored
// connection; a write without a key is not (it may have been committed)
// and fails with lunad.ErrInterrupted; subscriptions are made again and
// get a "resync" event.
func TestClientReconnects(t *testing.T) {
	ctx := context.Background()
	t.Run("read retried", func(t *testing.T) {
		d := newFlakyDaemon(t, mList)
		if _, err := d.client(t).List(ctx); err != nil {
			t.Fatal(err)
		}
		if n := d.calls(mList); n != 2 {
			t.Fatalf("%d list calls, want 2", n)
		}
	})
	t.Run("keyed write retried", func(t *testing.T) {
		d := newFlakyDaemon(t, mEdit)
		res, err := d.client(t).Edit(ctx, lunad.EditRequest{ID: "a", Patch: "p", Change: lunad.Change{IdempotencyKey: "k"}})
		if err != nil || res.Version.Number != 2 {
			t.Fatalf("%+v %v", res, err)
		}
		if n := d.calls(mEdit); n != 2 {
			t.Fatalf("%d edit calls, want 2", n)
		}
	})
	t.Run("write without key not retried", func(t *testing.T) {
		d := newFlakyDaemon(t, mEdit)
		c := d.client(t)
		_, err := c.Edit(ctx, lunad.EditRequest{ID: "a", Patch: "p"})
		if !errors.Is(err, lunad.ErrInterrupted) {
			t.Fatalf("edit: %v, want ErrInterrupted", err)
		}
		if n := d.calls(mEdit); n != 1 {
			t.Fatalf("%d edit calls, want 1", n)
		}
		if _, err := c.List(ctx); err != nil { // the connection is restored
			t.Fatal(err)
		}
	})
	t.Run("subscription restored", func(t *testing.T) {
		d := newFlakyDaemon(t, mList)
		c := d.client(t)
		events, err := c.Subscribe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.List(ctx); err != nil { // breaks the connection once
			t.Fatal(err)
		}
		select {
		case e := <-events:
			if e.Kind != "resync" {
				t.Fatalf("event %+v, want resync", e)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("no resync event")
		}
		if n := d.calls(mSubscribe); n != 2 {
			t.Fatalf("%d subscribe calls, want 2", n)
		}
	})
}
