package rpc

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"
)

// TestDaemonStatus checks that "lunad/daemon" answers the Hello and the
// assembled daemon's part as ServeOptions.Status makes it.
func TestDaemonStatus(t *testing.T) {
	svc := newService(t)
	info := DaemonInfo{ConfigFile: "/w/.luna/config.toml", Config: map[string]string{"llm.model": "m1"}, RunsInFlight: 2, Restarted: "author changed"}
	serveTest(t, svc, ServeOptions{Status: func() DaemonInfo { return info }})
	c := clientTest(t, svc.Root())
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.PID != os.Getpid() || st.Root != svc.Root() || st.Clients != 1 || st.Daemon.ConfigFile != info.ConfigFile ||
		st.Daemon.Config["llm.model"] != "m1" || st.Daemon.RunsInFlight != 2 || st.Daemon.Restarted != "author changed" {
		t.Fatalf("status %+v", st)
	}
}

// TestDaemonStop checks that "lunad/stop" makes Serve return nil after
// answering the call.
func TestDaemonStop(t *testing.T) {
	svc := newService(t)
	ln, err := Listen(svc)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), svc, ln, ServeOptions{Logger: slog.New(slog.DiscardHandler)})
	}()
	c := clientTest(t, svc.Root())
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after lunad/stop")
	}
}

// TestRestartWhenIdle checks that a restart waits while Busy reports true
// and Serve returns ErrRestart once it reports false.
func TestRestartWhenIdle(t *testing.T) {
	svc := newService(t)
	ln, err := Listen(svc)
	if err != nil {
		t.Fatal(err)
	}
	restart := make(chan string, 1)
	busy := make(chan bool, 1)
	busy <- true
	isBusy := func() bool {
		b := <-busy
		busy <- b
		return b
	}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), svc, ln, ServeOptions{Logger: slog.New(slog.DiscardHandler), Restart: restart, Busy: isBusy})
	}()
	restart <- "author changed"
	select {
	case err := <-done:
		t.Fatalf("Serve returned while busy: %v", err)
	case <-time.After(3 * restartCheck):
	}
	<-busy
	busy <- false
	select {
	case err := <-done:
		if !errors.Is(err, ErrRestart) {
			t.Fatalf("Serve: %v, want ErrRestart", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not restart once idle")
	}
}
