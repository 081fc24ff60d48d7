package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// cancels is the stream beneath the connection that gives every answer to
// a cancelled request its LSP error code, whichever handler failed and
// however: a request the client cancelled ($/cancelRequest) that ends in
// an error is answered RequestCancelled (-32800) — VS Code drops those
// silently, where any other code is "Request … failed" in its log —, and
// a request cancelled otherwise (its handler's context ended while the
// client still waited) ServerCancelled (-32802). It knows the calls in
// flight from the messages read, and forgets each once answered, so what
// it holds is bounded by the requests being served.
type cancels struct {
	jsonrpc2.Stream

	mu        sync.Mutex
	inFlight  map[jsonrpc2.ID]string // call → its method
	cancelled map[jsonrpc2.ID]bool   // calls in flight the client cancelled
}

func newCancels(s jsonrpc2.Stream) *cancels {
	return &cancels{Stream: s, inFlight: map[jsonrpc2.ID]string{}, cancelled: map[jsonrpc2.ID]bool{}}
}

func (c *cancels) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	msg, n, err := c.Stream.Read(ctx)
	switch m := msg.(type) {
	case *jsonrpc2.Call:
		c.mu.Lock()
		c.inFlight[ownID(m.ID())] = strings.Clone(m.Method())
		c.mu.Unlock()
	case *jsonrpc2.Notification:
		if m.Method() != protocol.MethodCancelRequest {
			break
		}
		var p struct{ ID json.RawMessage }
		if json.Unmarshal(m.Params(), &p) != nil {
			break
		}
		var id jsonrpc2.ID
		var num int64
		var str string
		switch {
		case json.Unmarshal(p.ID, &num) == nil:
			id = jsonrpc2.NewNumberID(num)
		case json.Unmarshal(p.ID, &str) == nil:
			id = jsonrpc2.NewStringID(str)
		default:
			return msg, n, err
		}
		c.mu.Lock()
		if _, ok := c.inFlight[id]; ok {
			c.cancelled[id] = true
		}
		c.mu.Unlock()
	}
	return msg, n, err
}

// Write passes msg on, a response to a cancelled request rewritten with
// its code. The connection hands responses over in its own wire form, so
// a response is encoded here, and its envelope decoded, to be read.
func (c *cancels) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if _, call := msg.(*jsonrpc2.Call); call {
		return c.Stream.Write(ctx, msg)
	}
	b, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return c.Stream.Write(ctx, msg)
	}
	// A result, perhaps large, need not be decoded: only the envelope
	// before it, which holds the ID. (`,"result":` cannot occur earlier:
	// a string ID's quotes are escaped.)
	if i := bytes.Index(b, []byte(`,"result":`)); i >= 0 {
		b = append(b[:i:i], `,"result":null}`...)
	}
	decoded, err := jsonrpc2.DecodeMessage(b)
	r, ok := decoded.(*jsonrpc2.Response)
	if err != nil || !ok {
		return c.Stream.Write(ctx, msg)
	}
	c.mu.Lock()
	method, byClient := c.inFlight[r.ID()], c.cancelled[r.ID()]
	delete(c.inFlight, r.ID())
	delete(c.cancelled, r.ID())
	c.mu.Unlock()
	var rerr *jsonrpc2.Error
	switch {
	case r.Err() == nil:
	case byClient:
		msg = jsonrpc2.NewResponse(r.ID(), nil, &jsonrpc2.Error{Code: protocol.CodeRequestCancelled, Message: "lunad: " + method + " was cancelled by the client"})
	case errors.As(r.Err(), &rerr) && rerr.Code == protocol.CodeRequestCancelled:
		msg = jsonrpc2.NewResponse(r.ID(), nil, &jsonrpc2.Error{Code: jsonrpc2.Code(protocol.LSPErrorCodesServerCancelled),
			Message: "lunad: " + method + " was cancelled by the server before it finished; send it again"})
	}
	return c.Stream.Write(ctx, msg)
}

// ownID is id with its own copy of a string ID (a call's ID may borrow the
// stream's read buffer).
func ownID(id jsonrpc2.ID) jsonrpc2.ID {
	if s, ok := id.StringValue(); ok {
		return jsonrpc2.NewStringID(strings.Clone(s))
	}
	return id
}
