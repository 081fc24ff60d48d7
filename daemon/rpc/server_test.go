package rpc

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// TestConcurrentRequests checks that a request waiting (an edit, for the
// writer lock) blocks neither the other requests of its connection nor
// other connections, and that a client stalled in the middle of a message
// blocks nobody.
func TestConcurrentRequests(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	r, err := svc.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	serveTest(t, svc, ServeOptions{})

	stalled := rawDial(t, svc)
	stalled.write("Content-Length: 100\r\n\r\n{\"jsonrpc\":")

	c, other := clientTest(t, svc.Root()), clientTest(t, svc.Root())
	release := holdLock(t, svc)
	edited := make(chan error, 1)
	go func() {
		_, err := c.Edit(ctx, lunad.EditRequest{ID: r.Artifact.ID, Rewrite: true, Content: []byte("two\n")})
		edited <- err
	}()
	waitFor(t, "the edit to wait for the lock", func() bool { return status(t, c).Active == 1 })
	if st := status(t, other); st.Active != 1 || st.Clients != 3 {
		t.Fatalf("status from another client: %+v", st)
	}
	release()
	if err := <-edited; err != nil {
		t.Fatal(err)
	}
	if got, _, err := other.Read(ctx, r.Artifact.ID, ""); err != nil || string(got) != "two\n" {
		t.Fatalf("read %q %v", got, err)
	}
}

// TestDisconnectMidRequest checks that a client leaving while its edit
// waits breaks nothing: the edit lands, the others are served.
func TestDisconnectMidRequest(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	r, err := svc.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	serveTest(t, svc, ServeOptions{})
	other := clientTest(t, svc.Root())
	release := holdLock(t, svc)
	gone := rawDial(t, svc)
	gone.send(`{"jsonrpc":"2.0","id":1,"method":"lunad/edit","params":{"id":"` + r.Artifact.ID + `","rewrite":true,"content":"dHdvCg==","change":{}}}`)
	waitFor(t, "the edit to wait for the lock", func() bool { return status(t, other).Active == 1 })
	gone.nc.Close()
	// The daemon answers while the departed client's edit still waits.
	if st := status(t, other); st.Active != 1 {
		t.Fatalf("status %+v", st)
	}
	release()
	waitFor(t, "the edit to land", func() bool {
		h, err := other.History(ctx, r.Artifact.ID)
		return err == nil && len(h) == 2
	})
	waitFor(t, "the client to be gone", func() bool { return status(t, other).Clients == 1 })
	if got, _, err := other.Read(ctx, r.Artifact.ID, ""); err != nil || string(got) != "two\n" {
		t.Fatalf("read %q %v", got, err)
	}
}

// TestShutdownWaitsForInFlightEdit checks the graceful shutdown: Serve
// stops accepting at once, but returns only after the edit in flight is
// committed and answered.
func TestShutdownWaitsForInFlightEdit(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	r, err := svc.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	stop := serveTest(t, svc, ServeOptions{})
	c := clientTest(t, svc.Root())
	release := holdLock(t, svc)
	type result struct {
		res lunad.EditResult
		err error
	}
	edited := make(chan result, 1)
	go func() {
		req := lunad.EditRequest{ID: r.Artifact.ID, Rewrite: true, Content: []byte("two\n")}
		req.Message = "in flight at shutdown"
		res, err := c.Edit(ctx, req)
		edited <- result{res, err}
	}()
	waitFor(t, "the edit to wait for the lock", func() bool { return status(t, c).Active == 1 })
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	waitFor(t, "the daemon to stop accepting", func() bool {
		ws, err := Connect(ctx, svc.Root(), ConnectOptions{})
		if err == nil {
			ws.Close()
		}
		return errors.Is(err, ErrNoDaemon)
	})
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) with an edit in flight", err)
	default:
	}
	release()
	got := <-edited
	if got.err != nil || got.res.Version.Number != 2 {
		t.Fatalf("the edit in flight: %+v %v", got.res, got.err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", svc.Root(), "log", "-1", "--format=%H %s").CombinedOutput()
	if err != nil || string(out) != got.res.Version.Commit+" edit a.md: in flight at shutdown\n" {
		t.Fatalf("git log: %q %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(svc.StateDir(), sockName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
}

// TestIdleTimeout checks that Serve returns once no client has been
// connected for the idle timeout, and not while one is.
func TestIdleTimeout(t *testing.T) {
	svc := newService(t)
	ln, err := Listen(svc)
	if err != nil {
		t.Fatal(err)
	}
	const idle = 200 * time.Millisecond
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), svc, ln, ServeOptions{IdleTimeout: idle, Logger: slog.New(slog.DiscardHandler)})
	}()
	c := clientTest(t, svc.Root())
	time.Sleep(3 * idle) // a connected client keeps the daemon
	select {
	case err := <-done:
		t.Fatalf("Serve returned (%v) with a client connected", err)
	default:
	}
	if _, err := c.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return once idle")
	}
	if _, err := Connect(context.Background(), svc.Root(), ConnectOptions{}); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("connect after the idle exit: %v", err)
	}
}

// TestEventsEndWithTheDaemon checks that a Client's event channel closes
// when the daemon goes away.
func TestEventsEndWithTheDaemon(t *testing.T) {
	svc := newService(t)
	stop := serveTest(t, svc, ServeOptions{})
	c := clientTest(t, svc.Root())
	events, err := c.Subscribe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-events:
			if !ok {
				if _, err := c.List(context.Background()); err == nil {
					t.Fatal("a call succeeds after the daemon stopped")
				}
				return
			}
		case <-deadline:
			t.Fatal("events not closed after the daemon stopped")
		}
	}
}
