package rpc

import (
	"context"
	"errors"
	"testing"

	"github.com/lunad/lunad"
)

// TestTypedErrorsCrossTheSocket: a Client's errors carry the root
// package's typed errors with their facts, as the Service's do, so that an
// adapter words its hints the same way in either case.
func TestTypedErrorsCrossTheSocket(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	serveTest(t, svc, ServeOptions{})
	a := create(t, svc, "a.md", "one\n")
	b := create(t, svc, "b.md", "two\n")
	if _, err := svc.Link(ctx, lunad.LinkRequest{Src: a, Dst: b}); err != nil {
		t.Fatal(err)
	}
	c := clientTest(t, svc.Root())
	for name, ws := range map[string]lunad.Workspace{"service": svc, "client": c} {
		t.Run(name, func(t *testing.T) {
			var nf *lunad.NotFoundError
			if _, err := ws.Artifact(ctx, "nope.md"); !errors.As(err, &nf) || nf.Kind != "artifact" || nf.Ref != "nope.md" {
				t.Errorf("unknown artifact: %v (%+v)", err, nf)
			}
			if _, _, err := ws.Read(ctx, a, "9"); !errors.As(err, &nf) || nf.Kind != "version" || nf.Artifact != a || nf.Latest != 2 { // created, then linked
				t.Errorf("unknown version: %v (%+v)", err, nf)
			}
			var le *lunad.LinkExistsError
			if _, err := ws.Link(ctx, lunad.LinkRequest{Src: a, Dst: b}); !errors.As(err, &le) || le.Src != a || le.Dst != b {
				t.Errorf("link again: %v (%+v)", err, le)
			}
			var kr *lunad.KeyReusedError
			if _, err := ws.Archive(ctx, lunad.RefRequest{Ref: create(t, svc, name+".md", "x\n"), Change: lunad.Change{IdempotencyKey: "used-" + name}}); err != nil {
				t.Fatal(err)
			}
			if _, err := ws.Archive(ctx, lunad.RefRequest{Ref: a, Change: lunad.Change{IdempotencyKey: "used-" + name}}); !errors.As(err, &kr) || kr.Key != "used-"+name {
				t.Errorf("key reused: %v (%+v)", err, kr)
			}
		})
	}
}
