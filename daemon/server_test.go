package daemon

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/daemon/rpc"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/workspace"
)

// TestServer: New opens the workspace and its socket, Run serves clients
// until its context is done, and Close closes the rest. While it serves,
// a second daemon of the workspace is refused, or gives way (Run returns
// at once) if a client started it.
func TestServer(t *testing.T) {
	dir := t.TempDir()
	svc, _, err := workspace.Init(dir, gitstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	o := Options{Dir: dir, Root: dir, Config: cfg, Store: gitstore.Options{LockTimeout: cfg.LockTimeout, MaxContent: cfg.MaxContent},
		Stderr: io.Discard, Getenv: envOf()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()

	ws, err := rpc.Connect(ctx, dir, rpc.ConnectOptions{Config: Settings(o.Store)})
	if err != nil {
		t.Fatalf("a client cannot reach the daemon: %v", err)
	}
	if _, err := ws.List(ctx); err != nil {
		t.Fatalf("list through the daemon: %v", err)
	}
	ws.Close()

	if _, err := New(ctx, o); !errors.Is(err, rpc.ErrDaemonRunning) {
		t.Fatalf("a second daemon: %v, want rpc.ErrDaemonRunning", err)
	}
	auto := o
	auto.Auto = true
	second, err := New(ctx, auto)
	if err != nil {
		t.Fatalf("a second daemon started by a client: %v", err)
	}
	if err := second.Run(ctx); err != nil {
		t.Fatalf("the second daemon gives way: %v", err)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}

	cancel()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after its context was done")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}
