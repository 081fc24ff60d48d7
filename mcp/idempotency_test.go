package mcp

import (
	"context"
	"testing"
)

// TestIdempotencyKeyPerClient: a client that reuses another client's
// idempotency key — with the same changes or other ones — gets a conflict
// saying whose write the key belongs to, not the other write's result
// marked replayed; its own retry still replays.
func TestIdempotencyKeyPerClient(t *testing.T) {
	svc, _ := newService(t, nil)
	ctx := context.Background()
	srv, err := New(ctx, svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := connectAs(t, srv, "alice", nil), connectAs(t, srv, "bob", nil)
	var a writeOut
	call(t, alice, "create_artifact", map[string]any{"title": "plan", "type": "text/plain", "path": "plan.txt", "content": "one\n"}, &a)
	edit := func(changes string) map[string]any {
		return map[string]any{"id": a.ID, "idempotency_key": "k", "changes": []map[string]string{{"search": "one\n", "replace": changes}}}
	}
	var first editOut
	if res := call(t, alice, "edit_artifact", edit("alice\n"), &first); res.IsError {
		t.Fatal(text(res))
	}
	used := `idempotency key "k" was already used for edit of ` + a.ID + " by alice at " + first.Commit[:12]
	for _, changes := range []string{"alice\n", "bob\n"} {
		res := call(t, bob, "edit_artifact", edit(changes), nil)
		wantError(t, res, "conflict, nothing was written", "new idempotency_key", used, "this request is by bob")
	}
	var again editOut
	if res := call(t, alice, "edit_artifact", edit("alice\n"), &again); res.IsError || !again.Replayed || again.Commit != first.Commit {
		t.Fatalf("alice's retry: %s", text(res))
	}
	var r readOut
	call(t, bob, "read_artifact", map[string]any{"id": a.ID}, &r)
	if r.Content != "alice\n" || r.Version != 2 {
		t.Fatalf("content %q at version %d", r.Content, r.Version)
	}
}
