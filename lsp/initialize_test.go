package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/lunad/lunad/internal/version"
)

// TestInitializeBadRoot: `lunad lsp` answers an initialize whose root
// cannot be served with a JSON-RPC error code a client can act on
// (InvalidParams) and a message saying why — not code 0.
func TestInitializeBadRoot(t *testing.T) {
	bin := buildLunad(t)
	tmp := t.TempDir()
	for _, tc := range []struct {
		name, root string
		code       int
		msg        string
	}{
		{"missing directory", "file://" + tmp + "/missing", -32602, "no git repository at or above " + tmp + "/missing; run `lunad init`"},
		{"not a workspace", "file://" + tmp, -32602, "not a lunad workspace"},
		{"not a file URI", "http://example.com/x", -32602, `the root "http://example.com/x" is not a file: URI`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "lsp")
			cmd.Dir = tmp
			cmd.Env = e2eEnv(tmp)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer in.Close()
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{}}}`, tc.root)
			fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(body), body)
			var resp struct {
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			readFrame(t, bufio.NewReader(out), &resp)
			if resp.Error == nil || resp.Error.Code != tc.code || !strings.Contains(resp.Error.Message, tc.msg) {
				t.Fatalf("initialize with root %s answered %+v, want code %d mentioning %q", tc.root, resp.Error, tc.code, tc.msg)
			}
		})
	}
}

// readFrame reads one LSP message into v.
func readFrame(t *testing.T, r *bufio.Reader, v any) {
	t.Helper()
	h, err := textproto.NewReader(r).ReadMIMEHeader()
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
}

// TestServerInfo: initialize names the server and its build's version.
func TestServerInfo(t *testing.T) {
	s := start(t)
	info := s.init.ServerInfo
	if v, _ := info.Version.Get(); info.Name != "lunad" || v != version.String() {
		t.Errorf("serverInfo = %s %q, want lunad %s", info.Name, v, version.String())
	}
}
