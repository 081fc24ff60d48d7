package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/workspace"
)

// stalling is a Workspace whose Read, while armed, fails as fail says:
// with the context's error once the request's context ends (fail nil),
// or at once with fail's error.
type stalling struct {
	lunad.Workspace
	armed   atomic.Bool
	fail    error
	entered chan struct{}
}

func (w *stalling) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	if !w.armed.Load() {
		return w.Workspace.Read(ctx, ref, at)
	}
	if w.fail != nil {
		return nil, lunad.Artifact{}, fmt.Errorf("reading %s: %w", ref, w.fail)
	}
	select {
	case w.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, lunad.Artifact{}, fmt.Errorf("reading %s: %w", ref, ctx.Err())
}

// TestCancelledRequests: every request handler that waits on the
// workspace answers a request the
// client cancelled ($/cancelRequest) with RequestCancelled (-32800), as
// VS Code expects of a request it dropped while the user types, and a
// request whose context ended otherwise with its own code —
// ServerCancelled when cancelled by the server's side (a daemon call cut
// off), RequestFailed when its deadline passed — never -32603 "context
// canceled".
func TestCancelledRequests(t *testing.T) {
	pos := at(guideMd, "parse_config")
	requests := []struct {
		method string
		params func(s *session) any
	}{
		{"textDocument/documentSymbol", func(s *session) any {
			return &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI}}
		}},
		{"textDocument/hover", func(s *session) any {
			return &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI}, Position: pos}}
		}},
		{"textDocument/definition", func(s *session) any {
			return &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI}, Position: pos}}
		}},
		{"textDocument/references", func(s *session) any {
			return &protocol.ReferenceParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI}, Position: pos}}
		}},
		{"textDocument/codeLens", func(s *session) any {
			return &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.docURI}}
		}},
	}
	for _, cause := range []struct {
		name string
		fail error // nil: the client cancels
		code int
		msg  string
	}{
		{"cancelled by the client", nil, -32800, "was cancelled by the client"},
		{"cancelled by the server", fmt.Errorf("the daemon's call: %w", context.Canceled), -32802, "was cancelled by the server before it finished; send it again"},
		{"deadline passed", fmt.Errorf("the daemon's call: %w", context.DeadlineExceeded), -32803, "context deadline exceeded"},
	} {
		for _, r := range requests {
			t.Run(cause.name+"/"+r.method, func(t *testing.T) {
				ws := &stalling{fail: cause.fail, entered: make(chan struct{}, 1)}
				errs := make(chan []byte, 8)
				s := startConfigured(t, startConfig{
					wrap: func(svc *workspace.Service) lunad.Workspace { ws.Workspace = svc; return ws },
					wire: func(body []byte) {
						var m struct {
							ID    any             `json:"id"`
							Error json.RawMessage `json:"error"`
						}
						if json.Unmarshal(body, &m) == nil && m.ID != nil && m.Error != nil {
							errs <- body
						}
					},
				})
				// The diagnostics of the opened guide were read: no read
				// but the request's follows.
				s.cl.waitFor(t, "the guide's diagnostics", func() bool { _, ok := s.cl.diags[s.docURI]; return ok })
				ws.armed.Store(true)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go protocol.Call(ctx, s.conn, r.method, r.params(s), new(json.RawMessage))
				if cause.fail == nil {
					select {
					case <-ws.entered:
					case <-time.After(10 * time.Second):
						t.Fatal("the request never reached the workspace")
					}
					cancel()
				}
				var body []byte
				select {
				case body = <-errs:
				case <-time.After(10 * time.Second):
					t.Fatal("no error answer")
				}
				var m struct {
					Error struct {
						Code    int
						Message string
					}
				}
				json.Unmarshal(body, &m)
				if m.Error.Code != cause.code || !containsAll(m.Error.Message, cause.msg) {
					t.Errorf("answer %s, want code %d saying %q", body, cause.code, cause.msg)
				}
			})
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestCancelsBounded: a client sending $/cancelRequest for IDs that are
// not in flight (never sent, or answered already) makes the stream hold
// nothing; it holds a call only until it is answered.
func TestCancelsBounded(t *testing.T) {
	client, server := jsonrpc2.NewChannelStreamPair(16)
	c := newCancels(server)
	ctx := context.Background()
	send := func(msg jsonrpc2.Message) {
		t.Helper()
		if _, err := client.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cancel := func(id int) jsonrpc2.Message {
		return jsonrpc2.NewNotification(protocol.MethodCancelRequest, jsonrpc2.RawMessage(fmt.Sprintf(`{"id":%d}`, id)))
	}
	for i := range 1000 {
		send(cancel(i))
	}
	send(jsonrpc2.NewCall(jsonrpc2.NewNumberID(7), "textDocument/hover", jsonrpc2.RawMessage(`{}`)))
	send(cancel(7))
	if _, err := c.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.NewNumberID(7), nil, fmt.Errorf("reading: %w", context.Canceled))); err != nil {
		t.Fatal(err)
	}
	msg, _, err := client.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rerr *jsonrpc2.Error
	if r, ok := msg.(*jsonrpc2.Response); !ok || !errors.As(r.Err(), &rerr) || rerr.Code != protocol.CodeRequestCancelled {
		t.Errorf("answer %#v, want RequestCancelled", msg)
	}
	send(cancel(7)) // answered already
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.inFlight) != 0 || len(c.cancelled) != 0 {
		t.Errorf("the stream holds %d calls and %d cancellations, want none", len(c.inFlight), len(c.cancelled))
	}
}

// discard is a connection that takes every write and never has anything
// to read.
type discard struct{}

func (discard) Read([]byte) (int, error)    { select {} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// BenchmarkCancelsWrite measures what cancels adds to writing an answer:
// a document's symbols (100 of them, 18 KB) written to the header stream
// directly, and through cancels, which encodes and decodes it to read it.
func BenchmarkCancelsWrite(b *testing.B) {
	var syms []protocol.DocumentSymbol
	for i := range 100 {
		detail := "Container"
		syms = append(syms, protocol.DocumentSymbol{Name: fmt.Sprintf("symbol_%d", i), Detail: &detail, Kind: protocol.SymbolKindFunction,
			Range: protocol.Range{Start: protocol.Position{Line: uint32(i)}, End: protocol.Position{Line: uint32(i + 1)}}})
	}
	result, err := json.Marshal(syms)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		stream func() jsonrpc2.Stream
	}{
		{"direct", func() jsonrpc2.Stream { return jsonrpc2.NewHeaderStream(discard{}) }},
		{"cancels", func() jsonrpc2.Stream { return newCancels(jsonrpc2.NewHeaderStream(discard{})) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := c.stream()
			b.SetBytes(int64(len(result)))
			for i := 0; b.Loop(); i++ {
				if _, err := s.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.NewNumberID(int64(i)), result, nil)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
