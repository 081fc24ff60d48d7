package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad/daemon/rpc"
)

// peer speaks JSON-RPC to a lunad process over its stdin/stdout: framed by
// Content-Length (LSP) or one message per line (MCP's stdio).
type peer struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	framed bool
	msgs   chan map[string]any
	stderr *syncBuffer
	mu     sync.Mutex
	seen   []map[string]any // notifications received, in order
}

func startPeer(t *testing.T, w *ws, framed bool, args ...string) *peer {
	t.Helper()
	p := &peer{t: t, framed: framed, msgs: make(chan map[string]any, 256), stderr: &syncBuffer{}}
	p.cmd = exec.Command(lunadBin, args...)
	p.cmd.Dir = w.dir
	p.cmd.Env = env(w.home, "LUNAD_IDLE_TIMEOUT=1m")
	p.cmd.Stderr = p.stderr
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(bufio.NewReaderSize(out, 1<<20))
	t.Cleanup(func() {
		p.in.Close()
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-done
		}
	})
	return p
}

func (p *peer) read(r *bufio.Reader) {
	defer close(p.msgs)
	for {
		var body []byte
		if p.framed {
			h, err := textproto.NewReader(r).ReadMIMEHeader()
			if err != nil {
				return
			}
			n, _ := strconv.Atoi(h.Get("Content-Length"))
			body = make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
		} else {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			body = line
		}
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			p.msgs <- m
		}
	}
}

func (p *peer) send(v string) {
	if p.framed {
		fmt.Fprintf(p.in, "Content-Length: %d\r\n\r\n%s", len(v), v)
	} else {
		io.WriteString(p.in, v+"\n")
	}
}

func (p *peer) notify(method, params string) {
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params))
}

// call sends a request and returns its result, failing on an error answer.
// Requests from the server (LSP's workDoneProgress/create, say) are
// answered with null; notifications are kept for await.
func (p *peer) call(id int, method, params string) any {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	for {
		m := p.next(method)
		if _, isReq := m["method"]; isReq {
			p.handle(m)
			continue
		}
		if m["id"] == float64(id) {
			if m["error"] != nil {
				p.t.Fatalf("%s: %v\n%s", method, m["error"], p.stderr)
			}
			return m["result"]
		}
	}
}

// await returns the first notification (from now on, or received since the
// last await) that ok accepts.
func (p *peer) await(what string, ok func(map[string]any) bool) {
	p.t.Helper()
	p.mu.Lock()
	for i, m := range p.seen {
		if ok(m) {
			p.seen = p.seen[i+1:]
			p.mu.Unlock()
			return
		}
	}
	p.seen = nil
	p.mu.Unlock()
	for {
		m := p.next(what)
		if _, isReq := m["method"]; isReq {
			if p.handle(m); ok(m) {
				return
			}
		}
	}
}

func (p *peer) next(what string) map[string]any {
	p.t.Helper()
	select {
	case m, ok := <-p.msgs:
		if !ok {
			p.t.Fatalf("%s: the process closed its output\n%s", what, p.stderr)
		}
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatalf("%s: nothing within 30s\n%s", what, p.stderr)
	}
	return nil
}

// handle answers a request from the server and keeps a notification.
func (p *peer) handle(m map[string]any) {
	if id, ok := m["id"]; ok {
		b, _ := json.Marshal(id)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, b))
		return
	}
	p.mu.Lock()
	p.seen = append(p.seen, m)
	p.mu.Unlock()
}

// killDaemon SIGKILLs the workspace's daemon and waits until it is gone;
// it returns its pid.
func killDaemon(t *testing.T, w *ws) int {
	t.Helper()
	c, err := rpc.Connect(context.Background(), w.dir, rpc.ConnectOptions{})
	if err != nil {
		t.Fatalf("no daemon to kill: %v", err)
	}
	pid := c.(*rpc.Client).Hello().PID
	c.Close()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); running(pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon (pid %d) survived SIGKILL", pid)
		}
	}
	return pid
}

// daemonPID is the pid of the daemon serving the workspace now.
func daemonPID(t *testing.T, w *ws) int {
	t.Helper()
	c, err := rpc.Connect(context.Background(), w.dir, rpc.ConnectOptions{})
	if err != nil {
		t.Fatalf("no daemon: %v", err)
	}
	defer c.Close()
	return c.(*rpc.Client).Hello().PID
}

// `lunad lsp` outlives its daemon: after a SIGKILL of the daemon it
// reconnects to a new one (auto-started), re-publishes the open document's
// diagnostics (the resync), and answers requests; before, every request
// answered "jsonrpc2: client is closing: EOF" until the editor restarted it.
func TestLSPSurvivesDaemonKill(t *testing.T) {
	w, _ := newWSWith(t, "config.py", "def parse_config():\n    pass\n")
	w.create("guide.md", "# Guide\n\nUse `parse_config`.\n")
	p := startPeer(t, w, true, "lsp")
	root := "file://" + w.dir
	p.call(1, "initialize", fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{}}`, root))
	p.notify("initialized", `{}`)
	guide := root + "/guide.md"
	p.notify("textDocument/didOpen", fmt.Sprintf(`{"textDocument":{"uri":%q,"languageId":"markdown","version":1,"text":"# Guide\n\nUse `+"`parse_config`"+`.\n"}}`, guide))
	diagnostics := func(m map[string]any) bool {
		params, _ := m["params"].(map[string]any)
		return m["method"] == "textDocument/publishDiagnostics" && params["uri"] == guide
	}
	p.await("the first diagnostics", diagnostics)
	old := killDaemon(t, w)
	p.await("diagnostics after the daemon was killed", diagnostics)
	res, _ := p.call(2, "workspace/symbol", `{"query":"parse_config"}`).([]any)
	if len(res) != 1 {
		t.Fatalf("workspace/symbol after the kill: %v", res)
	}
	if pid := daemonPID(t, w); pid == old {
		t.Fatalf("still the killed daemon %d", pid)
	}
}

// `lunad mcp` outlives its daemon: after a SIGKILL it reconnects, tells the
// client subscribed to an artifact that it may have changed, and an edit
// lands exactly once.
func TestMCPSurvivesDaemonKill(t *testing.T) {
	w, id := newWSWith(t, "a.md", "alpha\n")
	p := startPeer(t, w, false, "--dir", w.dir, "mcp")
	p.call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}`)
	p.notify("notifications/initialized", `{}`)
	uri := "luna://artifacts/" + id
	p.call(2, "resources/subscribe", fmt.Sprintf(`{"uri":%q}`, uri))
	killDaemon(t, w)
	p.await("resources/updated after the daemon was killed", func(m map[string]any) bool {
		params, _ := m["params"].(map[string]any)
		return m["method"] == "notifications/resources/updated" && params["uri"] == uri
	})
	res := p.call(3, "tools/call", fmt.Sprintf(`{"name":"edit_artifact","arguments":{"id":%q,"changes":[{"search":"alpha\n","replace":"beta\n"}]}}`, id)).(map[string]any)
	if res["isError"] == true {
		t.Fatalf("edit_artifact after the kill: %v", res)
	}
	if got := w.show(id); got != "beta\n" {
		t.Fatalf("content %q", got)
	}
	if n := strings.Count(w.git("log", "--format=%s"), "edit a.md"); n != 1 {
		t.Fatalf("%d commits of the edit, want 1:\n%s", n, w.git("log", "--format=%s"))
	}
}
