package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/internal/unixsock"
	"github.com/lunad/lunad/workspace"
)

// waitFor polls cond until it holds, failing the test after 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// rawConn speaks the wire protocol by hand.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func rawDial(t *testing.T, svc *workspace.Service) *rawConn {
	t.Helper()
	nc, err := net.Dial("unix", clientSocket(svc.StateDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

func (c *rawConn) send(body string) {
	c.t.Helper()
	c.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

func (c *rawConn) write(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.nc, s); err != nil {
		c.t.Fatal(err)
	}
}

type rawResponse struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"` // of a notification
	Params json.RawMessage `json:"params"` // of a notification
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// recv reads one message; it fails the test on EOF unless eof is wanted.
func (c *rawConn) recv() (rawResponse, error) {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	n := -1
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return rawResponse{}, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return rawResponse{}, err
	}
	var r rawResponse
	if err := json.Unmarshal(body, &r); err != nil {
		c.t.Fatalf("response %s: %v", body, err)
	}
	return r, nil
}

func (c *rawConn) wantError(id string, code int, msg string) rawResponse {
	c.t.Helper()
	r, err := c.recv()
	if err != nil {
		c.t.Fatalf("want error %d: %v", code, err)
	}
	if string(r.ID) != id || r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message, msg) {
		c.t.Fatalf("want id %s error %d mentioning %q, got id %s %+v result %s", id, code, msg, r.ID, r.Error, r.Result)
	}
	return r
}

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

// holdLock takes the workspace's writer lock as another lunad process
// would, so that writes wait; the returned function releases it.
func holdLock(t *testing.T, svc *workspace.Service) (release func()) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(svc.StateDir(), "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			f.Close()
		}
	}
	t.Cleanup(release)
	return release
}

func status(t *testing.T, c *Client) Hello {
	t.Helper()
	st, err := c.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestConcurrentRequests checks that a request waiting (an edit, for the
// writer lock) blocks neither the other requests of its connection nor
// other connections, and that a client stalled in the middle of a message
// blocks nobody.
func TestConcurrentRequests(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	r, err := svc.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	serveTest(t, svc, ServeOptions{})

	stalled := rawDial(t, svc)
	stalled.write("Content-Length: 100\r\n\r\n{\"jsonrpc\":")

	c, other := clientTest(t, svc.Root()), clientTest(t, svc.Root())
	release := holdLock(t, svc)
	edited := make(chan error, 1)
	go func() {
		_, err := c.Edit(ctx, lunad.EditRequest{ID: r.Artifact.ID, Rewrite: true, Content: []byte("two\n")})
		edited <- err
	}()
	waitFor(t, "the edit to wait for the lock", func() bool { return status(t, c).Active == 1 })
	if st := status(t, other); st.Active != 1 || st.Clients != 3 {
		t.Fatalf("status from another client: %+v", st)
	}
	release()
	if err := <-edited; err != nil {
		t.Fatal(err)
	}
	if got, _, err := other.Read(ctx, r.Artifact.ID, ""); err != nil || string(got) != "two\n" {
		t.Fatalf("read %q %v", got, err)
	}
}

// TestDisconnectMidRequest checks that a client leaving while its edit
// waits breaks nothing: the edit lands, the others are served.
func TestDisconnectMidRequest(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	r, err := svc.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	serveTest(t, svc, ServeOptions{})
	other := clientTest(t, svc.Root())
	release := holdLock(t, svc)
	gone := rawDial(t, svc)
	gone.send(`{"jsonrpc":"2.0","id":1,"method":"lunad/edit","params":{"id":"` + r.Artifact.ID + `","rewrite":true,"content":"dHdvCg==","change":{}}}`)
	waitFor(t, "the edit to wait for the lock", func() bool { return status(t, other).Active == 1 })
	gone.nc.Close()
	// The daemon answers while the departed client's edit still waits.
	if st := status(t, other); st.Active != 1 {
		t.Fatalf("status %+v", st)
	}
	release()
	waitFor(t, "the edit to land", func() bool {
		h, err := other.History(ctx, r.Artifact.ID)
		return err == nil && len(h) == 2
	})
	waitFor(t, "the client to be gone", func() bool { return status(t, other).Clients == 1 })
	if got, _, err := other.Read(ctx, r.Artifact.ID, ""); err != nil || string(got) != "two\n" {
		t.Fatalf("read %q %v", got, err)
	}
}

// TestShutdownWaitsForInFlightEdit checks the graceful shutdown: Serve
// stops accepting at once, but returns only after the edit in flight is
// committed and answered.
func TestShutdownWaitsForInFlightEdit(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	r, err := svc.Create(ctx, lunad.CreateSpec{Title: "a", Path: "a.md", Content: []byte("one\n")})
	if err != nil {
		t.Fatal(err)
	}
	stop := serveTest(t, svc, ServeOptions{})
	c := clientTest(t, svc.Root())
	release := holdLock(t, svc)
	type result struct {
		res lunad.EditResult
		err error
	}
	edited := make(chan result, 1)
	go func() {
		req := lunad.EditRequest{ID: r.Artifact.ID, Rewrite: true, Content: []byte("two\n")}
		req.Message = "in flight at shutdown"
		res, err := c.Edit(ctx, req)
		edited <- result{res, err}
	}()
	waitFor(t, "the edit to wait for the lock", func() bool { return status(t, c).Active == 1 })
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	waitFor(t, "the daemon to stop accepting", func() bool {
		ws, err := Connect(ctx, svc.Root(), ConnectOptions{})
		if err == nil {
			ws.Close()
		}
		return errors.Is(err, ErrNoDaemon)
	})
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) with an edit in flight", err)
	default:
	}
	release()
	got := <-edited
	if got.err != nil || got.res.Version.Number != 2 {
		t.Fatalf("the edit in flight: %+v %v", got.res, got.err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", svc.Root(), "log", "-1", "--format=%H %s").CombinedOutput()
	if err != nil || string(out) != got.res.Version.Commit+" edit a.md: in flight at shutdown\n" {
		t.Fatalf("git log: %q %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(svc.StateDir(), sockName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
}

// TestOneDaemonPerWorkspace checks the socket's mode, that a second daemon
// is refused with a clear error, and that the socket and the lock go with
// the daemon.
func TestOneDaemonPerWorkspace(t *testing.T) {
	svc := newService(t)
	stop := serveTest(t, svc, ServeOptions{})
	path := clientSocket(svc.StateDir())
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: %v %v", path, fi.Mode(), err)
	}
	_, err = Listen(svc)
	if !errors.Is(err, ErrDaemonRunning) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second daemon: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
	ln, err := Listen(svc)
	if err != nil {
		t.Fatalf("listen after the first daemon stopped: %v", err)
	}
	ln.Close()
}

// TestStaleSocketReplaced checks that a socket left by a daemon that died
// is replaced.
func TestStaleSocketReplaced(t *testing.T) {
	svc := newService(t)
	path, fallback, err := socketPath(svc.StateDir(), svc.Root())
	if err != nil {
		t.Fatal(err)
	}
	if fallback {
		if err := unixsock.PrivateDir(filepath.Dir(path)); err != nil {
			t.Fatal(err)
		}
	}
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close()
	if _, err := net.Dial("unix", path); err == nil {
		t.Fatal("the dead socket answers")
	}
	serveTest(t, svc, ServeOptions{})
	if _, err := clientTest(t, svc.Root()).List(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestLongPathSocket checks the socket of a workspace whose state
// directory is too deep for a unix socket path.
func TestLongPathSocket(t *testing.T) {
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(runtime)
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	svc, _, err := workspace.Init(deep, gitstore.Options{Human: gitstore.Signature{Name: "Ada", Email: "ada@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	stop := serveTest(t, svc, ServeOptions{})
	path := clientSocket(svc.StateDir())
	if !strings.HasPrefix(path, filepath.Join(runtime, "lunad")+"/") || len(path) > maxSockPath {
		t.Fatalf("socket %s", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory: %v %v", fi.Mode(), err)
	}
	c := clientTest(t, deep)
	if c.Root() != svc.Root() {
		t.Fatalf("root %s", c.Root())
	}
	c.Close()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Join(svc.StateDir(), addrName)} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s left behind: %v", p, err)
		}
	}
}

// TestIdleTimeout checks that Serve returns once no client has been
// connected for the idle timeout, and not while one is.
func TestIdleTimeout(t *testing.T) {
	svc := newService(t)
	ln, err := Listen(svc)
	if err != nil {
		t.Fatal(err)
	}
	const idle = 200 * time.Millisecond
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), svc, ln, ServeOptions{IdleTimeout: idle, Logger: slog.New(slog.DiscardHandler)})
	}()
	c := clientTest(t, svc.Root())
	time.Sleep(3 * idle) // a connected client keeps the daemon
	select {
	case err := <-done:
		t.Fatalf("Serve returned (%v) with a client connected", err)
	default:
	}
	if _, err := c.List(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return once idle")
	}
	if _, err := Connect(context.Background(), svc.Root(), ConnectOptions{}); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("connect after the idle exit: %v", err)
	}
}

// TestConnectErrors checks what Connect says when there is no usable
// daemon.
func TestConnectErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Connect(ctx, t.TempDir(), ConnectOptions{}); !errors.Is(err, ErrNoDaemon) || !errors.Is(err, lunad.ErrNotWorkspace) {
		t.Fatalf("no workspace: %v", err)
	}
	svc := newService(t)
	if ws, err := Connect(ctx, svc.Root(), ConnectOptions{}); !errors.Is(err, ErrNoDaemon) || ws != nil {
		t.Fatalf("no daemon: %v %v", ws, err)
	}
	serveTest(t, svc, ServeOptions{Config: &Settings{Author: "ada"}})
	if _, err := Connect(ctx, svc.Root(), ConnectOptions{Config: &Settings{Author: "bob"}}); !errors.Is(err, ErrNoDaemon) ||
		!strings.Contains(err.Error(), "another configuration") {
		t.Fatalf("another configuration: %v", err)
	}
	ws, err := Connect(ctx, filepath.Join(svc.Root(), ".luna"), ConnectOptions{Config: &Settings{Author: "ada"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if st := ws.(*Client).Hello(); st.Protocol != protocolVersion || st.PID != os.Getpid() || st.Root != svc.Root() || st.MaxFrame != DefaultMaxFrame {
		t.Fatalf("status %+v", st)
	}
}

// TestEventsEndWithTheDaemon checks that a Client's event channel closes
// when the daemon goes away.
func TestEventsEndWithTheDaemon(t *testing.T) {
	svc := newService(t)
	stop := serveTest(t, svc, ServeOptions{})
	c := clientTest(t, svc.Root())
	events, err := c.Subscribe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-events:
			if !ok {
				if _, err := c.List(context.Background()); err == nil {
					t.Fatal("a call succeeds after the daemon stopped")
				}
				return
			}
		case <-deadline:
			t.Fatal("events not closed after the daemon stopped")
		}
	}
}

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
