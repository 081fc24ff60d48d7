package rpc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestProtocolErrors checks that bad messages are answered with JSON-RPC
// errors and that the daemon goes on serving, on the same connection when
// the framing allows it.
func TestProtocolErrors(t *testing.T) {
	svc := newService(t)
	serveTest(t, svc, ServeOptions{MaxFrame: 4096})
	c := rawDial(t, svc)

	c.send(`{"jsonrpc":"2.0","id":1,"method":"lunad/nope"}`)
	c.wantError("1", -32601, "unknown method")
	c.send(`{"jsonrpc":"2.0","id":2,"method":"lunad/read","params":{"ref":5}}`)
	c.wantError("2", -32602, "invalid params")
	c.send(`{"jsonrpc":"2.0","id":3,"method":"lunad/list","params":{"bogus":1}}`)
	c.wantError("3", -32602, "unknown field")
	c.send(`{"jsonrpc":"2.0","id":4,"method":"lunad/list","params":[1]}`)
	c.wantError("4", -32602, "invalid params")
	c.send(`{"jsonrpc":"2.0","id":5,"meth`)
	c.wantError("null", -32700, "")
	c.send(`[{"jsonrpc":"2.0","id":6,"method":"lunad/list"}]`)
	c.wantError("null", -32600, "batches are not supported")
	c.send(`{"jsonrpc":"2.0","id":7}`)
	c.wantError("null", -32600, "")
	c.send(`{"jsonrpc":"2.0","id":8,"method":"lunad/list","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`)
	c.wantError("null", -32600, "larger than the daemon's limit of 4096 bytes")
	c.send(`{"jsonrpc":"2.0","method":"lunad/some-notification"}`) // no answer
	c.send(`{"jsonrpc":"2.0","id":9,"method":"lunad/artifact","params":{"ref":"zzz"}}`)
	r := c.wantError("9", int(codeNotFound), `not found: no artifact "zzz"`)
	var data errorData
	if err := json.Unmarshal(r.Error.Data, &data); err != nil || len(data.Errors) != 1 || data.Errors[0] != "not_found" {
		t.Fatalf("error data %s: %v", r.Error.Data, err)
	}
	c.send(`{"jsonrpc":"2.0","id":10,"method":"lunad/list"}`)
	if r, err := c.recv(); err != nil || string(r.ID) != "10" || r.Error != nil || string(r.Result) != "[]" {
		t.Fatalf("list after the errors: %+v %v", r, err)
	}

	// A header that does not parse cannot be skipped: it is answered and
	// the connection ends; the daemon serves the next one.
	c.write("Content-Length: lots\r\n\r\n{}")
	c.wantError("null", -32700, "Content-Length")
	if _, err := c.recv(); err == nil {
		t.Fatal("the connection goes on after a bad header")
	}
	c = rawDial(t, svc)
	c.write("X-Padding: " + strings.Repeat("x", 5000) + "\r\n")
	c.wantError("null", -32700, "header longer than")
	if arts, err := clientTest(t, svc.Root()).List(context.Background()); err != nil || len(arts) != 0 {
		t.Fatalf("list from a new client: %v %v", arts, err)
	}
}
