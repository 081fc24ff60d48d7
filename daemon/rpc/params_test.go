package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/lunad/lunad"
)

func TestTextIsLossless(t *testing.T) {
	for _, s := range []string{"", "plain", "é and \u2028", "bad \xff\xfe bytes", "<html> & \"quotes\""} {
		b, err := json.Marshal(text(s))
		if err != nil {
			t.Fatal(err)
		}
		var got text
		if err := json.Unmarshal(b, &got); err != nil || string(got) != s {
			t.Fatalf("%q -> %s -> %q %v", s, b, got, err)
		}
	}
}

// TestRequestsRoundTrip: every request a client sends reaches the daemon's
// Workspace as it was made, strings that are not UTF-8 included.
func TestRequestsRoundTrip(t *testing.T) {
	const bad = "bad \xff\xfe bytes"
	ch := lunad.Change{Agent: bad + " agent", Message: bad + " message", IdempotencyKey: bad + " key", BaseVersion: 3,
		Extra: map[string]string{bad + " k": bad + " v"}}
	roundTrip(t, fromCreate, lunad.CreateSpec{Title: bad, Type: bad, Path: bad, Status: bad, Content: []byte(bad), Change: ch})
	roundTrip(t, fromEdit, lunad.EditRequest{ID: bad, Blocks: []lunad.Block{{Path: bad, Search: bad, Replace: bad}},
		BlocksText: bad, Patch: bad, Content: []byte(bad), Rewrite: true, Change: ch})
	roundTrip(t, fromRef, lunad.RefRequest{Ref: bad, Change: ch})
	roundTrip(t, fromRestore, lunad.RestoreRequest{Ref: bad, Version: 2, Change: ch})
	roundTrip(t, fromMove, lunad.MoveRequest{Ref: bad, Path: bad, Change: ch})
	roundTrip(t, fromLink, lunad.LinkRequest{Src: bad, Dst: bad, Kind: bad, Change: ch})
	roundTrip(t, fromAck, lunad.AckRequest{Ref: bad, Symbol: bad, Change: ch})
	roundTrip(t, fromBranch, lunad.BranchRequest{Name: bad, From: bad})
}

// roundTrip sends req as a client does (from, the codec) and decodes it as
// the daemon does (decodeParams, the params' request method).
func roundTrip[P interface{ request() R }, R any](t *testing.T, from func(R) P, req R) {
	t.Helper()
	b, err := codec{}.Marshal(from(req))
	if err != nil {
		t.Fatal(err)
	}
	var p P
	if err := decodeParams(b, &p); err != nil {
		t.Fatal(err)
	}
	if got := p.request(); fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", req) {
		t.Errorf("sent %#v\nthe daemon got %#v", req, got)
	}
}

// TestForgedTrailersRefused: a socket client cannot set the trailers lunad
// writes itself through change.extra; the write is refused and nothing is
// committed.
func TestForgedTrailersRefused(t *testing.T) {
	svc := newService(t)
	serveTest(t, svc, ServeOptions{})
	c := rawDial(t, svc)
	for i, name := range []string{"Op", "Artifact", "Idempotency-Key", "Match", "Target-Version", "AGENT"} {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"lunad/create","params":{"title":"T","path":"t%d.md","content":"eA==","change":{"extra":[{"key":%q,"value":"forged"}]}}}`, i+1, i, name))
		c.wantError(fmt.Sprint(i+1), int(codeInvalid), "is lunad's own")
	}
	if arts, err := clientTest(t, svc.Root()).List(context.Background()); err != nil || len(arts) != 0 {
		t.Fatalf("after refused writes: %v %v", arts, err)
	}
}
