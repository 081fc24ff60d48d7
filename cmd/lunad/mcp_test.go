package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMCPCommand runs `lunad mcp` as a process and speaks MCP to it over
// stdin/stdout (newline-delimited JSON-RPC): initialize as client
// "probe", list the tools, create an artifact; git log names the client as
// the commit's author.
func TestMCPCommand(t *testing.T) {
	w, _ := newWSWith(t, "a.md", "alpha\n")
	cmd := exec.Command(lunadBin, "--dir", w.dir, "mcp")
	cmd.Env = env(w.home, "LUNAD_IDLE_TIMEOUT=2s")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("lunad mcp did not exit after stdin closed\n%s", stderr.String())
		}
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	call := func(id int, method, params string) map[string]any {
		t.Helper()
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("%s: stdout closed\n%s", method, stderr.String())
				}
				var msg map[string]any
				if err := json.Unmarshal([]byte(line), &msg); err != nil {
					t.Fatalf("%s: not JSON on stdout: %q", method, line)
				}
				if msg["id"] == float64(id) {
					if msg["error"] != nil {
						t.Fatalf("%s: %v", method, msg["error"])
					}
					return msg["result"].(map[string]any)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%s: no reply\n%s", method, stderr.String())
			}
		}
	}
	call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}`)
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	tools := call(2, "tools/list", `{}`)["tools"].([]any)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "create_artifact") || !strings.Contains(got, "edit_artifact") {
		t.Fatalf("tools: %s", got)
	}
	res := call(3, "tools/call", `{"name":"create_artifact","arguments":{"title":"Notes","path":"notes.md","content":"# Notes\n"}}`)
	if res["isError"] == true {
		t.Fatalf("create_artifact: %v", res)
	}
	if author, msg := w.lastCommit(); author != "probe" || !strings.Contains(msg, "create notes.md") {
		t.Fatalf("last commit by %q: %q, want the MCP client probe creating notes.md", author, msg)
	}
}
