package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad/gitstore"
)

// TestBadInput: each bad call is an error that says what to do, and
// nothing is written (git log has one commit, the create).
func TestBadInput(t *testing.T) {
	svc, dir := newService(t, func(o *gitstore.Options) { o.MaxContent = 64 })
	srv, err := New(context.Background(), svc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, srv, nil)
	var a writeOut
	if res := call(t, cs, "create_artifact", map[string]any{"title": "a", "type": "text/markdown", "path": "a.md", "content": "alpha\n"}, &a); res.IsError {
		t.Fatal(text(res))
	}
	commits := func() string {
		out, err := exec.Command("git", "-C", dir, "rev-list", "--count", "HEAD").CombinedOutput()
		if err != nil {
			t.Fatalf("git rev-list: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	before := commits()

	cases := []struct {
		name string
		tool string
		args any
		want []string
	}{
		{"unknown argument", "read_artifact", map[string]any{"id": a.ID, "line": 3},
			[]string{`unexpected additional properties ["line"]`, "read_artifact takes: id (string, required), version (integer), start_line (integer), end_line (integer)"}},
		{"null changes", "edit_artifact", map[string]any{"id": a.ID, "changes": nil},
			[]string{`validating /properties/changes`, `has type "null", want "array"`}},
		{"wrong type", "edit_artifact", map[string]any{"id": a.ID, "changes": "alpha -> beta"},
			[]string{"changes", "array", "edit_artifact takes: id (string, required), changes (array of {search (string, required), replace (string, required)}, required)"}},
		{"missing argument", "restore_version", map[string]any{"id": a.ID},
			[]string{`missing properties: ["version"]`, "restore_version takes"}},
		{"path out of the workspace", "create_artifact", map[string]any{"title": "x", "type": "text/markdown", "path": "../x.md", "content": "x\n"},
			[]string{"nothing was written: invalid input", "leads out of the workspace with .."}},
		{"path into .git", "create_artifact", map[string]any{"title": "x", "type": "text/plain", "path": ".git/hooks/pre-commit", "content": "x\n"},
			[]string{"nothing was written: invalid input", "points into .git"}},
		{"oversized content", "rewrite_artifact", map[string]any{"id": a.ID, "content": strings.Repeat("long line\n", 10)},
			[]string{"content is 100 bytes; the limit is 64"}},
		{"invalid UTF-8", "rewrite_artifact", json.RawMessage("{\"id\":\"" + a.ID + "\",\"content\":\"caf\xe9\\n\"}"),
			[]string{"not valid UTF-8 (byte 0xe9 at offset", "nothing was written"}},
		{"lone surrogate", "rewrite_artifact", json.RawMessage(`{"id":"` + a.ID + `","content":"\ud83d!\n"}`),
			[]string{`lone high surrogate \ud83d`, "nothing was written"}},
		{"NUL byte", "rewrite_artifact", map[string]any{"id": a.ID, "content": "a\x00b"},
			[]string{"binary content (NUL byte at offset 1, line 1)"}},
		{"negative version", "read_artifact", map[string]any{"id": a.ID, "version": -1},
			[]string{"invalid input: version, start_line and end_line count from 1"}},
		{"start past the end", "read_artifact", map[string]any{"id": a.ID, "start_line": 5},
			[]string{"start_line 5 is past the end: a.md has 1 line"}},
		{"start after end", "read_artifact", map[string]any{"id": a.ID, "start_line": 3, "end_line": 2},
			[]string{"start_line 3 is after end_line 2"}},
		{"a version that does not exist", "read_artifact", map[string]any{"id": a.ID, "version": 7},
			[]string{"has no version 7 (it is at version 1; see artifact_history {\"id\": \"" + a.ID + "\"})"}},
		{"undo at the first state", "undo_edit", map[string]any{"id": a.ID},
			[]string{"nothing was written: invalid input: nothing to undo"}},
		{"path taken", "create_artifact", map[string]any{"title": "a", "type": "text/markdown", "path": "a.md", "content": "x\n"},
			[]string{"nothing was written", "already tracked", "use edit_artifact"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, call(t, cs, c.tool, c.args, nil), c.want...)
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "delete_artifact", Arguments: map[string]any{"id": a.ID}})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "lunad's tools are accept_run, acknowledge, artifact_history, ask, create_artifact, diff_versions, discard_run") {
			t.Errorf("err = %v, want invalid params naming the tools", err)
		}
	})
	if after := commits(); after != before {
		t.Errorf("bad calls made commits: %s before, %s after", before, after)
	}
	content, _, err := svc.Read(context.Background(), a.ID, "")
	if err != nil || string(content) != "alpha\n" {
		t.Errorf("content = %q, %v; want it unchanged", content, err)
	}
}

func TestBadText(t *testing.T) {
	cases := []struct{ name, raw, want string }{
		{"plain", `{"a":"b"}`, ""},
		{"pair", `{"a":"\ud83d\ude00"}`, ""},
		{"escaped backslash then u", `{"a":"\\ud83d"}`, ""},
		{"upper-case pair", `{"a":"\uD83D\uDE00"}`, ""},
		{"lone high at end", `{"a":"\ud83d"}`, "lone high surrogate"},
		{"high then non-low", `{"a":"\ud83d\u0041"}`, "lone high surrogate"},
		{"lone low", `{"a":"\ude00"}`, "lone low surrogate"},
		{"bad byte", "{\"a\":\"\xff\"}", "byte 0xff at offset 6"},
		{"truncated rune", "{\"a\":\"\xe2\x82\"}", "byte 0xe2 at offset 6"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := badText([]byte(c.raw))
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("badText(%q) = %q, want %q", c.raw, got, c.want)
			}
		})
	}
}

// FuzzBadText: on valid JSON, badText flags exactly the input that
// decodes to a U+FFFD it did not spell out.
func FuzzBadText(f *testing.F) {
	f.Add([]byte(`{"a":"\ud83d\ude00"}`))
	f.Add([]byte(`{"a":"\ud83d"}`))
	f.Add([]byte("{\"a\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := badText(raw)
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		replaced := strings.Contains(fmt.Sprint(v), "\uFFFD")
		if got != "" && !replaced {
			t.Errorf("badText(%q) = %q, but it decodes without loss", raw, got)
		}
		spelled := strings.Contains(string(raw), "\uFFFD") || strings.Contains(strings.ToLower(string(raw)), `\ufffd`)
		if got == "" && replaced && !spelled {
			t.Errorf("badText(%q) passed what decodes to U+FFFD", raw)
		}
	})
}

// TestRateLimit: a client gets Burst requests at once and then Rate per
// second; a refused tool call is an isError result saying when to retry,
// a refused other request a JSON-RPC error; another client has its own
// budget.
func TestRateLimit(t *testing.T) {
	svc, _ := newService(t, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	srv, err := New(context.Background(), svc, Options{Rate: 1, Burst: 2, Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, srv, nil)
	list := func(cs *sdk.ClientSession) *sdk.CallToolResult {
		return call(t, cs, "list_artifacts", map[string]any{}, nil)
	}
	for i := range 2 {
		if res := list(cs); res.IsError {
			t.Fatalf("call %d within the burst: %s", i+1, text(res))
		}
	}
	res := list(cs)
	if !res.IsError || !strings.Contains(text(res), "rate limit: this client may make 1 requests per second, 2 at once; nothing was done. Retry in 1s.") {
		t.Fatalf("third call: %s", text(res))
	}
	_, err = cs.ListResources(context.Background(), nil)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != codeRateLimited {
		t.Errorf("resources/list over the limit: %v, want code %d", err, codeRateLimited)
	}
	if res := list(connectTo(t, srv, nil)); res.IsError {
		t.Errorf("another client is limited too: %s", text(res))
	}
	now = now.Add(time.Second)
	if res := list(cs); res.IsError {
		t.Errorf("a second later: %s", text(res))
	}
	if err := (Options{Rate: 1}).Validate(); err == nil {
		t.Error("a rate without a burst is valid")
	}
}

// FuzzParseURI: a URI parseURI accepts names an artifact that ArtifactURI
// writes back to a URI parsing the same.
func FuzzParseURI(f *testing.F) {
	for _, s := range []string{"luna://artifacts/m0000001", "luna://artifacts/m0000001/versions/3", "luna://artifacts/a%2Fb.md",
		"luna://artifacts/x/versions/0", "luna://artifacts//versions/1", "file:///etc/passwd", "luna://artifacts/%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		id, at, ok := parseURI(uri)
		if !ok {
			return
		}
		if id == "" {
			t.Fatalf("parseURI(%q) accepted an empty id", uri)
		}
		n := 0
		if at != "" {
			if n = atoi(at); n < 1 {
				t.Fatalf("parseURI(%q) = version %q", uri, at)
			}
		}
		id2, at2, ok2 := parseURI(ArtifactURI(id, n))
		if !ok2 || id2 != id || at2 != at {
			t.Fatalf("parseURI(ArtifactURI(%q, %d)) = %q %q %v, want %q %q", id, n, id2, at2, ok2, id, at)
		}
	})
}
