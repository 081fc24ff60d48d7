package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/workspace/events"
)

// Client is a Workspace served by the workspace's daemon over its socket
// (see Connect). Its errors are the Service's: they errors.Is the same
// lunad sentinels (and editor errors), and their messages are the same.
// It is safe for concurrent use; calls run concurrently on one connection.
//
// A Client made by Connect outlives its daemon: when the connection is
// lost it reconnects (starting a daemon with AutoStart, as Connect does),
// subscribes again and delivers a "resync" event to Subscribe's channels.
// A call waits for the connection (at most reconnectWait) and is sent again
// when that is safe — reads, and writes with an idempotency key; a write
// without a key whose connection broke under it fails with
// lunad.ErrInterrupted, since it may or may not have been committed.
type Client struct {
	mu      sync.Mutex
	conn    jsonrpc2.Conn // the latest connection (maybe lost)
	status  Hello
	up      chan struct{} // closed while conn is usable
	lastErr error         // why the latest reconnection failed
	redial  func(ctx context.Context) error

	ctx    context.Context // done at Close: ends reconnection
	cancel context.CancelFunc

	events     *events.Hub // fans the daemon's events out to Subscribe's channels
	subMu      sync.Mutex
	subscribed bool           // Subscribe was called: the daemon-side subscription follows reconnections
	progress   progressTokens // the IndexReferences calls waiting for figures
	watching   sync.WaitGroup // the goroutine following the connection
	closed     chan struct{}
}

var _ lunad.Workspace = (*Client)(nil)

// reconnectWait bounds how long a call waits for a lost daemon to be
// reached again.
const reconnectWait = 20 * time.Second

func newClient() *Client {
	c := &Client{events: events.New(), closed: make(chan struct{}), up: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// dial connects to the daemon listening at path and greets it; the Client
// does not reconnect.
func dial(ctx context.Context, path string) (*Client, error) {
	c := newClient()
	if err := c.attach(ctx, path); err != nil {
		c.cancel()
		return nil, err
	}
	c.follow()
	return c, nil
}

// attach makes a connection to the daemon at path the Client's, once the
// daemon has greeted it, and returns what it said. check may refuse the
// daemon (its status); the connection is then closed.
func (c *Client) attach(ctx context.Context, path string, check ...func(Hello) error) error {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("%w (%s): %v", errNotListening, path, err)
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(nc), jsonrpc2.WithCodec(codec{}))
	conn.Go(context.Background(), c.handle)
	var st Hello
	if err := c.callOn(ctx, conn, mHello, noParams{}, &st); err != nil {
		conn.Close()
		return err
	}
	for _, f := range check {
		if err := f(st); err != nil {
			conn.Close()
			return err
		}
	}
	c.mu.Lock()
	c.conn, c.status = conn, st
	close(c.up)
	c.mu.Unlock()
	return nil
}

// follow starts the goroutine that notices a lost connection: it restores
// it (with redial) or ends the subscriptions.
func (c *Client) follow() {
	c.watching.Go(func() {
		defer c.events.Close()
		for {
			c.mu.Lock()
			conn := c.conn
			c.mu.Unlock()
			select {
			case <-conn.Done():
			case <-c.closed:
				return
			}
			if c.redial == nil || !c.reconnect() {
				return
			}
		}
	})
}

// reconnect restores the connection, with backoff, until it succeeds or
// the Client closes; then it subscribes again and tells subscribers to
// resync. It reports false if the Client closed.
func (c *Client) reconnect() bool {
	c.mu.Lock()
	c.markLost(c.conn)
	c.mu.Unlock()
	for delay := 20 * time.Millisecond; ; delay = min(2*delay, 2*time.Second) {
		err := c.redial(c.ctx)
		if err == nil {
			break
		}
		c.mu.Lock()
		c.lastErr = err
		c.mu.Unlock()
		select {
		case <-c.closed:
			return false
		case <-time.After(delay):
		}
	}
	c.subMu.Lock()
	defer c.subMu.Unlock()
	if c.subscribed {
		c.mu.Lock()
		conn := c.conn
		c.mu.Unlock()
		var r subscribeResult
		if err := c.callOn(c.ctx, conn, mSubscribe, noParams{}, &r); err != nil {
			return true // lost again: follow's next round reconnects
		}
	}
	c.events.Publish(lunad.Event{Kind: "resync"}) // whatever happened meanwhile
	return true
}

// markLost notes that conn is lost: calls wait for the next one. Callers
// hold c.mu.
func (c *Client) markLost(conn jsonrpc2.Conn) {
	select {
	case <-c.up:
		if c.conn == conn {
			c.up = make(chan struct{})
		}
	default: // already waiting for the next
	}
}

// connection returns a usable connection, waiting while one is restored.
func (c *Client) connection(ctx context.Context) (jsonrpc2.Conn, error) {
	c.mu.Lock()
	conn, up := c.conn, c.up
	c.mu.Unlock()
	if c.redial == nil {
		return conn, nil // its errors say it is gone
	}
	select {
	case <-up:
		c.mu.Lock()
		conn = c.conn
		c.mu.Unlock()
		return conn, nil
	default:
	}
	wait := time.NewTimer(reconnectWait)
	defer wait.Stop()
	select {
	case <-up:
		return c.connection(ctx)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, fmt.Errorf("%w: the client of the lunad daemon is closed", lunad.ErrInvalid)
	case <-wait.C:
		c.mu.Lock()
		err := c.lastErr
		c.mu.Unlock()
		return nil, fmt.Errorf("the lunad daemon of %s is gone and could not be reached again within %v: %v", c.Hello().Root, reconnectWait, err)
	}
}

// handle receives the daemon's notifications: events for Subscribe, and
// the index build's figures for IndexReferences. It runs on the
// connection's reader, before the messages that follow are read.
func (c *Client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case mEvent:
	case mIndexing:
		c.progress.tell(req.Params())
		return nil, nil
	default:
		return jsonrpc2.MethodNotFoundHandler(ctx, req)
	}
	var p eventParams
	if err := json.Unmarshal(req.Params(), &p); err == nil {
		c.events.Publish(p.Event) // never blocks: a slow subscriber gets "resync"
	}
	return nil, nil
}

// Close ends the connection; the daemon goes on serving others.
func (c *Client) Close() error {
	select {
	case <-c.closed:
	default:
		close(c.closed)
	}
	c.cancel()
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	err := conn.Close()
	c.watching.Wait()
	return err
}

// Hello is what the daemon said about itself when the Client connected
// (or last reconnected).
func (c *Client) Hello() Hello {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Refresh asks the daemon for its status now (calls served, clients).
func (c *Client) Refresh(ctx context.Context) (Hello, error) {
	return call[Hello](ctx, c, mHello, noParams{})
}

// Root is the workspace's root directory.
func (c *Client) Root() string { return c.Hello().Root }

// keyed is implemented by the parameters of writes: their idempotency key.
type keyed interface{ key() string }

// call makes one call with params and returns its result, an R; an error
// response becomes the error the Service returned (see remoteError). When
// the connection is lost under it, the call is sent again on the restored
// one if that is safe (see Client).
func call[R any](ctx context.Context, c *Client, method string, params any) (R, error) {
	var r R
	err := c.do(ctx, method, params, &r)
	return r, err
}

// do is call, decoding the result into result.
func (c *Client) do(ctx context.Context, method string, params, result any) error {
	retried, unsent := false, 0
	for {
		conn, err := c.connection(ctx)
		if err != nil {
			return err
		}
		err = c.callOn(ctx, conn, method, params, result)
		if !errors.Is(err, errTransport) || c.redial == nil {
			return err
		}
		c.lose(conn)
		switch {
		case errors.Is(err, jsonrpc2.ErrClientClosing) && unsent < 3:
			// The connection was down before the call was sent: send it on
			// the next one, whatever it is.
			unsent++
			continue
		case retried:
			return err
		}
		if k, ok := params.(keyed); writes[method] && (!ok || k.key() == "") {
			return fmt.Errorf("%w: the connection to the lunad daemon of %s broke while it handled %s, so the write may or may not have been committed; look at the artifact's history before writing again (an idempotency key makes such a retry safe): %v",
				lunad.ErrInterrupted, c.Root(), strings.TrimPrefix(method, "lunad/"), err)
		}
		retried = true
	}
}

// lose closes a connection found broken and makes calls wait for the
// next one (follow reconnects).
func (c *Client) lose(conn jsonrpc2.Conn) {
	conn.Close()
	c.mu.Lock()
	c.markLost(conn)
	c.mu.Unlock()
}

// errTransport marks a call that failed because its connection broke.
var errTransport = errors.New("connection to the daemon lost")

// callOn makes one call on conn.
func (c *Client) callOn(ctx context.Context, conn jsonrpc2.Conn, method string, params, result any) error {
	raw, err := codec{}.Marshal(params)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", lunad.ErrInvalid, method, err)
	}
	if max := c.Hello().MaxFrame; max > 0 && len(raw) > max-200 {
		return fmt.Errorf("%w: the request is %d bytes, more than the daemon's limit of %d bytes", lunad.ErrInvalid, len(raw), max)
	}
	_, err = conn.Call(ctx, method, jsonrpc2.RawMessage(raw), result)
	if err == nil {
		return nil
	}
	var we *jsonrpc2.Error
	switch {
	case errors.As(err, &we):
		return remote(we)
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return fmt.Errorf("lunad daemon of %s: %w: %w", c.Hello().Root, errTransport, err)
	}
}

// Subscribe delivers the workspace's events until ctx is done or the
// connection ends (then the channel is closed). The first call subscribes
// the connection at the daemon; events are fanned out to every channel.
func (c *Client) Subscribe(ctx context.Context) (<-chan lunad.Event, error) {
	ctx, cancel := context.WithCancel(ctx)
	ch := c.events.Subscribe(ctx) // before the daemon's: no event is missed
	c.subMu.Lock()
	defer c.subMu.Unlock()
	if !c.subscribed {
		if _, err := call[subscribeResult](ctx, c, mSubscribe, noParams{}); err != nil {
			cancel()
			return nil, err
		}
		c.subscribed = true
	}
	context.AfterFunc(ctx, cancel) // cancel's resources go with ctx
	return ch, nil
}

func (c *Client) List(ctx context.Context) ([]lunad.Artifact, error) {
	return call[[]lunad.Artifact](ctx, c, mList, noParams{})
}

func (c *Client) Artifact(ctx context.Context, ref string) (lunad.Artifact, error) {
	return call[lunad.Artifact](ctx, c, mArtifact, refParams{Ref: text(ref)})
}

func (c *Client) Read(ctx context.Context, ref, at string) ([]byte, lunad.Artifact, error) {
	r, err := call[readResult](ctx, c, mRead, readParams{Ref: text(ref), At: text(at)})
	return r.Content, r.Artifact, err
}

func (c *Client) History(ctx context.Context, ref string) ([]lunad.Version, error) {
	return call[[]lunad.Version](ctx, c, mHistory, refParams{Ref: text(ref)})
}

func (c *Client) Diff(ctx context.Context, id string, from, to int) (string, error) {
	r, err := call[text](ctx, c, mDiff, diffParams{ID: text(id), From: from, To: to})
	return string(r), err
}

func (c *Client) Create(ctx context.Context, req lunad.CreateSpec) (lunad.Result, error) {
	return call[lunad.Result](ctx, c, mCreate, fromCreate(req))
}

func (c *Client) Edit(ctx context.Context, req lunad.EditRequest) (lunad.EditResult, error) {
	return call[lunad.EditResult](ctx, c, mEdit, fromEdit(req))
}

func (c *Client) Undo(ctx context.Context, req lunad.RefRequest) (lunad.Result, error) {
	return call[lunad.Result](ctx, c, mUndo, fromRef(req))
}

func (c *Client) Redo(ctx context.Context, req lunad.RefRequest) (lunad.Result, error) {
	return call[lunad.Result](ctx, c, mRedo, fromRef(req))
}

func (c *Client) Restore(ctx context.Context, req lunad.RestoreRequest) (lunad.Result, error) {
	return call[lunad.Result](ctx, c, mRestore, fromRestore(req))
}

func (c *Client) Move(ctx context.Context, req lunad.MoveRequest) (lunad.Result, error) {
	return call[lunad.Result](ctx, c, mMove, fromMove(req))
}

func (c *Client) Archive(ctx context.Context, req lunad.RefRequest) (lunad.Result, error) {
	return call[lunad.Result](ctx, c, mArchive, fromRef(req))
}

func (c *Client) Remove(ctx context.Context, req lunad.RefRequest) (lunad.Result, error) {
	return call[lunad.Result](ctx, c, mRemove, fromRef(req))
}

func (c *Client) Link(ctx context.Context, req lunad.LinkRequest) (lunad.Result, error) {
	return call[lunad.Result](ctx, c, mLink, fromLink(req))
}

func (c *Client) Ack(ctx context.Context, req lunad.AckRequest) (lunad.Result, error) {
	return call[lunad.Result](ctx, c, mAck, fromAck(req))
}

func (c *Client) Branch(ctx context.Context, req lunad.BranchRequest) (lunad.Branch, error) {
	return call[lunad.Branch](ctx, c, mBranch, fromBranch(req))
}

func (c *Client) Switch(ctx context.Context, name string) (lunad.Branch, error) {
	return call[lunad.Branch](ctx, c, mSwitch, branchParams{Name: text(name)})
}

func (c *Client) Branches(ctx context.Context) ([]lunad.Branch, error) {
	return call[[]lunad.Branch](ctx, c, mBranches, noParams{})
}

func (c *Client) Symbols(ctx context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error) {
	r, err := call[symbolsResult](ctx, c, mSymbols, refParams{Ref: text(ref)})
	return r.Artifact, r.Symbols, err
}

func (c *Client) Refs(ctx context.Context, ref string) (lunad.RefReport, error) {
	return call[lunad.RefReport](ctx, c, mRefs, refParams{Ref: text(ref)})
}

func (c *Client) Outgoing(ctx context.Context, ref string) ([]lunad.Reference, error) {
	return call[[]lunad.Reference](ctx, c, mOutgoing, refParams{Ref: text(ref)})
}

func (c *Client) Stale(ctx context.Context) ([]lunad.Reference, error) {
	return call[[]lunad.Reference](ctx, c, mStale, noParams{})
}

func (c *Client) At(ctx context.Context, ref string, offset int) (lunad.Point, error) {
	return call[lunad.Point](ctx, c, mAt, atParams{Ref: text(ref), Offset: offset})
}

func (c *Client) SearchSymbols(ctx context.Context, query string, limit int) ([]lunad.SymbolHit, error) {
	return call[[]lunad.SymbolHit](ctx, c, mSearch, searchParams{Query: text(query), Limit: limit})
}
