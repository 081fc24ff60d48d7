package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/workspace"
)

// TestSubscriptionUpdates: a client subscribed to an artifact's resource
// is notified when the artifact changes through another client of the
// workspace, and again when it changes through an MCP tool; a resource it
// did not subscribe to sends nothing.
func TestSubscriptionUpdates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	svc, _, err := workspace.Init(t.TempDir(), gitstore.Options{NewID: func() string { n++; return fmt.Sprintf("f%07d", n) },
		Human: gitstore.Signature{Name: "Ada", Email: "ada@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	a, err := svc.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("alpha\n")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Create(ctx, lunad.CreateSpec{Title: "b", Path: "b.md", Content: []byte("beta\n")})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(ctx, svc, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { srv.Follow(ctx) })
	defer func() { cancel(); wg.Wait() }()

	updates := make(chan string, 16)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) { updates <- req.Params.URI },
	}).Connect(ctx, ct, legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	uri := ArtifactURI(a.Artifact.ID, 0)
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	expect := func(what string) {
		t.Helper()
		select {
		case got := <-updates:
			if got != uri {
				t.Fatalf("%s: update for %s, want %s", what, got, uri)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no notifications/resources/updated", what)
		}
	}
	if _, err := svc.Edit(ctx, lunad.EditRequest{ID: b.Artifact.ID, Rewrite: true, Content: []byte("beta 2\n")}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Edit(ctx, lunad.EditRequest{ID: a.Artifact.ID, Rewrite: true, Content: []byte("alpha 2\n")}); err != nil {
		t.Fatal(err)
	}
	expect("an edit by another client") // and none for b.md, which nobody subscribed to
	call(t, cs, "undo_edit", map[string]any{"id": a.Artifact.ID}, nil)
	expect("undo_edit through MCP")
	select {
	case got := <-updates:
		t.Fatalf("unexpected update %s", got)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestSubscribeRefusals: a subscription names an existing artifact by its
// ID; otherwise the error says which URI to subscribe to. (The handler is
// called directly: a client of the newest protocol subscribes through a
// subscriptions/listen stream, whose errors the Go SDK's client does not
// return from Subscribe.)
func TestSubscribeRefusals(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx := context.Background()
	a, err := svc.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("alpha\n")})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(ctx, svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := ArtifactURI(a.Artifact.ID, 0)
	for _, c := range []struct{ name, uri, says string }{
		{"by ID", want, ""},
		{"by path", "luna://artifacts/a.md", "subscribe to " + want},
		{"a version", ArtifactURI(a.Artifact.ID, 1), "subscribe to " + want},
		{"unknown", ArtifactURI("nope", 0), "not found"},
		{"not an artifact", "file:///etc/passwd", "subscribe to luna://artifacts/{id}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := srv.subscribe(ctx, &sdk.SubscribeRequest{Params: &sdk.SubscribeParams{URI: c.uri}})
			if c.says == "" && err != nil || c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)) {
				t.Errorf("subscribe(%s) = %v, want an error saying %q", c.uri, err, c.says)
			}
		})
	}
}
