package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad/mcp"
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
	res := call(3, "tools/call", `{"name":"create_artifact","arguments":{"title":"Notes","type":"text/markdown","path":"notes.md","content":"# Notes\n"}}`)
	if res["isError"] == true {
		t.Fatalf("create_artifact: %v", res)
	}
	if author, msg := w.lastCommit(); author != "probe" || !strings.Contains(msg, "create notes.md") {
		t.Fatalf("last commit by %q: %q, want the MCP client probe creating notes.md", author, msg)
	}
}

// TestMCPHTTP runs `lunad mcp --http 127.0.0.1:0` and `lunad mcp
// --http-unix PATH` as processes: the token printed alone on stdout (and
// in the logged token file, mode 0600, never in the log) lets a client of
// the Go SDK create an artifact over streamable HTTP under its own name; a
// request without it gets 401; SIGTERM stops the server cleanly and
// removes the token file and the socket. A non-loopback address is
// refused.
func TestMCPHTTP(t *testing.T) {
	w, _ := newWSWith(t, "a.md", "alpha\n")
	if r := w.run("mcp", "--http", "0.0.0.0:0"); r.code != 1 || !strings.Contains(r.stderr, "not a loopback address") {
		t.Fatalf("--http 0.0.0.0:0: %s", r)
	}
	if r := w.run("mcp", "--http", "127.0.0.1:0", "--http-unix", filepath.Join(w.home, "s")); r.code != 2 || !strings.Contains(r.stderr, "give one of them") {
		t.Fatalf("--http and --http-unix: %s", r)
	}
	sock := filepath.Join(w.home, "mcp.sock")
	for _, tc := range []struct {
		name string
		args []string
		// transport reaches the server whose logged URL is url.
		transport func(url string) http.RoundTripper
	}{
		{"loopback port", []string{"--http", "127.0.0.1:0"}, func(string) http.RoundTripper { return &http.Transport{} }},
		{"unix socket", []string{"--http-unix", sock}, func(string) http.RoundTripper {
			return &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, "unix", sock)
			}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(lunadBin, append([]string{"--dir", w.dir, "mcp"}, tc.args...)...)
			cmd.Env = env(w.home, "LUNAD_IDLE_TIMEOUT=2s")
			stderr, _ := cmd.StderrPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			type started struct{ url, tokenFile string }
			ready := make(chan started, 1)
			var logged strings.Builder
			scanned := make(chan struct{})
			go func() {
				defer close(scanned)
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					logged.WriteString(sc.Text() + "\n")
					if _, u, ok := strings.Cut(sc.Text(), "url="); ok {
						u, _, _ = strings.Cut(u, " ")
						_, f, _ := strings.Cut(sc.Text(), "token_file=")
						f, _, _ = strings.Cut(f, " ")
						ready <- started{u, f}
					}
				}
			}()
			printed := make(chan string, 1)
			go func() {
				line, _ := bufio.NewReader(stdout).ReadString('\n')
				printed <- strings.TrimSpace(line)
				io.Copy(io.Discard, stdout)
			}()
			var srv started
			var token string
			select {
			case srv = <-ready:
				token = <-printed
			case <-time.After(20 * time.Second):
				t.Fatal("no URL logged")
			}
			if len(token) != 64 {
				t.Fatalf("stdout's first line %q, want the 64-digit token", token)
			}
			if b, err := os.ReadFile(srv.tokenFile); err != nil || string(b) != token+"\n" {
				t.Fatalf("token file %q: %q %v, want the printed token", srv.tokenFile, b, err)
			}
			if fi, err := os.Stat(srv.tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("token file %q: %v, want mode 0600", srv.tokenFile, err)
			}
			if fi, err := os.Stat(filepath.Dir(srv.tokenFile)); err != nil || fi.Mode().Perm() != 0o700 {
				t.Fatalf("token directory of %q: %v, want mode 0700", srv.tokenFile, err)
			}

			req, _ := http.NewRequest("POST", srv.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err := (&http.Client{Transport: tc.transport(srv.url)}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
				t.Fatalf("a request without the token: %s (WWW-Authenticate %q), want 401 with WWW-Authenticate", resp.Status, resp.Header.Get("WWW-Authenticate"))
			}

			ctx := context.Background()
			client := &http.Client{Transport: mcp.WithToken(tc.transport(srv.url), token)}
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "http-probe", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: srv.url, HTTPClient: client}, nil)
			if err != nil {
				t.Fatal(err)
			}
			path := strings.ReplaceAll(tc.name, " ", "-") + ".md"
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "create_artifact", Arguments: map[string]any{"title": "Notes", "type": "text/markdown", "path": path, "content": "# Notes\n"}})
			if err != nil || res.IsError {
				t.Fatalf("create_artifact: %v %+v", err, res)
			}
			if author, msg := w.lastCommit(); author != "http-probe" || !strings.Contains(msg, "create "+path) {
				t.Fatalf("last commit by %q: %q, want the MCP client http-probe creating %s", author, msg, path)
			}
			cs.Close()
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { <-scanned; done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("lunad mcp %s after SIGTERM: %v\n%s", tc.args[0], err, logged.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("lunad mcp %s did not exit after SIGTERM", tc.args[0])
			}
			if strings.Contains(logged.String(), token) {
				t.Errorf("the token is in the log:\n%s", logged.String())
			}
			for _, f := range []string{srv.tokenFile, sock} {
				if _, err := os.Lstat(f); !os.IsNotExist(err) {
					t.Errorf("%s after exit: %v, want it removed", f, err)
				}
			}
		})
	}
}

// TestMCPFollowsGit: a client of `lunad mcp` (the Go SDK's, over the
// process's stdio) subscribed to an artifact is told when the CLI edits it
// and when a hand-run `git checkout` changes it, and reads the content of
// each.
func TestMCPFollowsGit(t *testing.T) {
	w, id := newWSWith(t, "a.md", "alpha\n")
	w.env = append(w.env, "LUNAD_IDLE_TIMEOUT=3s")
	cmd := exec.Command(lunadBin, "--dir", w.dir, "mcp")
	cmd.Env = env(w.home, w.env...)
	ctx := context.Background()
	updated := make(chan string, 16)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "follower", Version: "1"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	}).Connect(ctx, &sdk.CommandTransport{Command: cmd},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // Subscribe returns once registered
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	uri := mcp.ArtifactURI(id, 0)
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	expect := func(what, content string) {
		t.Helper()
		select {
		case got := <-updated:
			if got != uri {
				t.Fatalf("%s: update for %s, want %s", what, got, uri)
			}
		case <-time.After(20 * time.Second):
			log, _ := os.ReadFile(filepath.Join(w.dir, ".git", "luna", "lunad.log"))
			t.Fatalf("%s: no notifications/resources/updated\n%s", what, log)
		}
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil || res.Contents[0].Text != content {
			t.Fatalf("%s: read %+v %v, want %q", what, res, err, content)
		}
	}

	w.git("checkout", "-q", "-b", "feature")
	os.WriteFile(filepath.Join(w.home, "new.txt"), []byte("beta\n"), 0o644)
	if r := w.run("edit", id, "--content-file", filepath.Join(w.home, "new.txt")); r.code != 0 {
		t.Fatal(r)
	}
	expect("lunad edit on branch feature", "beta\n")
	w.git("checkout", "-q", "main")
	expect("git checkout main by hand", "alpha\n")
}
