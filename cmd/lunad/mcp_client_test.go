package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad/daemon/rpc"
)

// mcpClientDir holds the Node.js client of TestMCPNodeClient and its
// locked dependencies (package-lock.json).
const mcpClientDir = "testdata/mcpclient"

// nodeSummary is what testdata/mcpclient/client.mjs prints when its
// scenario passed: the artifact it created and the writes it was told of.
type nodeSummary struct {
	ID                 string
	Create, Edit, Undo struct {
		Version int
		Commit  string
	}
}

// TestMCPNodeClient runs a client of the official TypeScript MCP SDK
// (testdata/mcpclient/client.mjs) against `lunad mcp` over stdio, and over
// streamable HTTP, where it first checks that a client without the
// server's token is refused (401) and then sends the token lunad printed
// as "Authorization: Bearer TOKEN", the SDK's way: it lists
// the tools and resource templates, creates an artifact, subscribes to it,
// edits it, gets notified, fails an edit with a misspelled SEARCH and
// undoes the edit, asserting every reply. Then git shows exactly three
// commits — create, edit, undo — by the client "e2e-client", the ones the
// client was told about, and the daemon `lunad mcp` started exits once
// idle.
func TestMCPNodeClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: install Node.js 18 or later (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the MCP SDK for the Node.js client is not installed: run `npm ci --prefix cmd/lunad/testdata/mcpclient` (make test does): %v", err)
	}
	for _, mode := range []string{"stdio", "http"} {
		t.Run(mode, func(t *testing.T) { nodeClient(t, node, mode) })
	}
}

// nodeClient runs client.mjs over the transport mode and checks what it
// wrote.
func nodeClient(t *testing.T, node, mode string) {
	w := newWS(t)
	base := w.head()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(mcpClientDir, "client.mjs"), lunadBin, w.dir, mode)
	// The client passes its environment on to lunad mcp, and lunad mcp to
	// the daemon it starts, which exits 2s after its last client left.
	cmd.Env = env(w.home, "LUNAD_IDLE_TIMEOUT=2s")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 10 * time.Second
	runErr := cmd.Run()
	// lunad mcp started the workspace's daemon, which outlives it until
	// idle. Once the daemon has exited it has also brought the git index
	// up to date (which lags its commits by design), and git status is
	// clean.
	waitDaemonGone(t, w.dir)
	if runErr != nil {
		t.Fatalf("node client.mjs: %v\nstdout:\n%s\nstderr:\n%s", runErr, stdout.String(), stderr.String())
	}
	var got nodeSummary
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("client.mjs printed no summary (%v):\n%s", err, stdout.String())
	}

	// Three commits since init, newest first, authored by the client: the
	// failed edit wrote none.
	var want strings.Builder
	for _, c := range []struct {
		op      string
		version int
		commit  string
	}{{"undo", got.Undo.Version, got.Undo.Commit}, {"edit", got.Edit.Version, got.Edit.Commit}, {"create", got.Create.Version, got.Create.Commit}} {
		fmt.Fprintf(&want, "%s e2e-client <e2e-client@agents.lunad> %s %s v%d\n", c.commit, got.ID, c.op, c.version)
	}
	format := "%H %an <%ae> %(trailers:key=Luna-Artifact,valueonly,separator=%x2C) %(trailers:key=Luna-Op,valueonly,separator=%x2C) v%(trailers:key=Luna-Version,valueonly,separator=%x2C)"
	if log := w.git("log", "--format="+format, base+"..HEAD"); log != want.String() {
		t.Fatalf("git log since init:\n%s\nwant (what the client was told):\n%s", log, want.String())
	}
	// Each commit holds the content the client read after it.
	const original = "# Plan\n\n- gather requirements\n- write the design\n- ship it\n"
	const edited = "# Plan\n\n- gather requirements\n- write the design\n- review the design\n- ship it\n"
	for commit, content := range map[string]string{got.Create.Commit: original, got.Edit.Commit: edited, got.Undo.Commit: original} {
		if blob := w.git("show", commit+":notes/plan.md"); blob != content {
			t.Errorf("git show %s:notes/plan.md = %q, want %q", commit, blob, content)
		}
	}
	w.clean()
}

// waitDaemonGone waits until the workspace's daemon, if one runs, has
// exited once idle. If it is still there after 20s, the test fails and the
// daemon is killed.
func waitDaemonGone(t *testing.T, dir string) {
	t.Helper()
	c, err := rpc.Connect(context.Background(), dir, rpc.ConnectOptions{})
	if errors.Is(err, rpc.ErrNoDaemon) {
		return
	}
	if err != nil {
		t.Errorf("the daemon: %v", err)
		return
	}
	pid := c.(*rpc.Client).Hello().PID
	c.Close()
	for deadline := time.Now().Add(20 * time.Second); running(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the daemon (pid %d) did not exit once idle; killed it", pid)
			return
		}
	}
}

// running reports whether process pid exists and has not exited (a zombie
// not yet reaped by its new parent has).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) // no /proc: trust kill
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	_, rest, _ := strings.Cut(string(stat[bytes.LastIndexByte(stat, ')')+1:]), " ")
	return !strings.HasPrefix(rest, "Z")
}
