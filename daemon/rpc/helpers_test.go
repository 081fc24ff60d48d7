package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

const src = wstest.Src

var (
	newService = wstest.NewService
	run        = wstest.Run
	create     = wstest.Create
	read       = wstest.Read
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
