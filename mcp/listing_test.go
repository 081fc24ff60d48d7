package mcp

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// TestResourceList: resources/list pages through every artifact that is
// not archived, each with its MIME type, lastModified and version; the
// SDK client's iterator follows the cursors.
func TestResourceList(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx := context.Background()
	for i := range 5 {
		if _, err := svc.Create(ctx, lunad.CreateSpec{Title: fmt.Sprint("doc ", i), Path: fmt.Sprintf("doc%d.md", i), Content: []byte("x\n")}); err != nil {
			t.Fatal(err)
		}
	}
	first, _ := svc.Artifact(ctx, "doc0.md")
	if _, err := svc.Edit(ctx, lunad.EditRequest{ID: first.ID, Rewrite: true, Content: []byte("y\n")}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Archive(ctx, lunad.RefRequest{Ref: "doc4.md"}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(ctx, svc, Options{PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, srv, nil)

	page, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Resources) != 2 || page.NextCursor == "" {
		t.Fatalf("first page: %d resources, cursor %q; want 2 and a cursor", len(page.Resources), page.NextCursor)
	}
	var got []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Name)
		a, err := svc.Artifact(ctx, r.Name)
		if err != nil {
			t.Fatal(err)
		}
		if r.URI != ArtifactURI(a.ID, 0) || r.MIMEType != "text/markdown" || r.Title != a.Title {
			t.Errorf("%s: %+v", r.Name, r)
		}
		if r.Annotations == nil || r.Annotations.LastModified != a.Modified.UTC().Format(time.RFC3339) || r.Meta["version"] != float64(a.Version) {
			t.Errorf("%s: annotations %+v, meta %v; want lastModified %v, version %d", r.Name, r.Annotations, r.Meta, a.Modified, a.Version)
		}
	}
	slices.Sort(got)
	if want := []string{"doc0.md", "doc1.md", "doc2.md", "doc3.md"}; !slices.Equal(got, want) {
		t.Errorf("listed %v, want %v (doc4.md is archived)", got, want)
	}

	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: ArtifactURI(first.ID, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Contents[0].Meta; m["version"] != float64(2) || m["path"] != "doc0.md" || m["lastModified"] == "" {
		t.Errorf("read meta = %v, want version 2 of doc0.md", m)
	}
}

// TestListChanged: creating, archiving and moving an artifact — through
// MCP or another client of the workspace — each send
// notifications/resources/list_changed; an edit does not, but the list
// shows its new version once the update is announced.
func TestListChanged(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := New(ctx, svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { srv.Follow(ctx) })
	defer func() { cancel(); wg.Wait() }()

	changed := make(chan struct{}, 16)
	updated := make(chan string, 16)
	cs := connectTo(t, srv, &sdk.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { changed <- struct{}{} },
		ResourceUpdatedHandler:     func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	names := func() []string {
		var got []string
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r.Name)
		}
		slices.Sort(got)
		return got
	}
	expect := func(what string, want ...string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no notifications/resources/list_changed", what)
		}
		if got := names(); !slices.Equal(got, want) {
			t.Errorf("%s: resources %v, want %v", what, got, want)
		}
	}

	var a writeOut
	call(t, cs, "create_artifact", map[string]any{"title": "a", "type": "text/markdown", "path": "a.md", "content": "alpha\n"}, &a)
	expect("create through MCP", "a.md")
	if _, err := svc.Create(ctx, lunad.CreateSpec{Title: "b", Path: "b.md", Content: []byte("beta\n")}); err != nil {
		t.Fatal(err)
	}
	expect("create by another client", "a.md", "b.md")
	if _, err := svc.Move(ctx, lunad.MoveRequest{Ref: "b.md", Path: "docs/b.md"}); err != nil {
		t.Fatal(err)
	}
	expect("move", "a.md", "docs/b.md")
	if _, err := svc.Archive(ctx, lunad.RefRequest{Ref: "docs/b.md"}); err != nil {
		t.Fatal(err)
	}
	expect("archive", "a.md")

	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: ArtifactURI(a.ID, 0)}); err != nil {
		t.Fatal(err)
	}
	version := func() any {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if r.URI == ArtifactURI(a.ID, 0) {
				return r.Meta["version"]
			}
		}
		return nil
	}
	if v := version(); v != float64(1) {
		t.Fatalf("listed at version %v, want 1", v)
	}
	call(t, cs, "rewrite_artifact", map[string]any{"id": a.ID, "content": "alpha 2\n"}, nil)
	select {
	case <-updated: // the edit was followed
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/updated for the edit")
	}
	if v := version(); v != float64(2) {
		t.Errorf("after the update, listed at version %v, want 2", v)
	}
	select {
	case <-changed:
		t.Error("an edit sent notifications/resources/list_changed")
	case <-time.After(200 * time.Millisecond):
	}
}
