package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad/gitstore"
	"github.com/lunad/lunad/workspace"
)

const clientName = "test-agent"

// legacy has test clients speak MCP 2025-11-25, as Claude Desktop, Cursor
// and the TypeScript SDK do: resources/subscribe is then a request, done
// when it returns. (At the SDK's newest protocol the Go client's Subscribe
// returns before the server has registered the subscription.)
var legacy = &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

// connect starts a Service in a temp dir, an MCP server over it, and a
// client named clientName over in-memory transports.
func connect(t *testing.T) (*sdk.ClientSession, string) {
	t.Helper()
	svc, dir := newService(t, nil)
	srv, err := New(context.Background(), svc, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return connectTo(t, srv, nil), dir
}

// newService starts a Service in a temp dir with a fixed clock, IDs and
// human; tune, if not nil, adjusts its options.
func newService(t *testing.T, tune func(*gitstore.Options)) (*workspace.Service, string) {
	t.Helper()
	dir := t.TempDir()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	opts := gitstore.Options{
		Clock: func() time.Time { clock = clock.Add(time.Second); return clock },
		NewID: func() string { n++; return fmt.Sprintf("m%07d", n) },
		Human: gitstore.Signature{Name: "Ada", Email: "ada@example.com"},
	}
	if tune != nil {
		tune(&opts)
	}
	svc, _, err := workspace.Init(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, dir
}

// connectTo connects a client named clientName to srv over in-memory
// transports.
func connectTo(t *testing.T, srv *Server, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	return connectAs(t, srv, clientName, copts)
}

// connectAs connects a client named name to srv over in-memory transports.
func connectAs(t *testing.T, srv *Server, name string, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, copts).Connect(ctx, ct, legacy)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out (if not
// nil); it fails the test on a protocol error, and returns the result.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decoding %s: %v", name, raw, err)
		}
	}
	return res
}

// wantError fails the test unless res is an error result saying each of
// want.
func wantError(t *testing.T, res *sdk.CallToolResult, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("no error: %s", text(res))
	}
	for _, w := range want {
		if !strings.Contains(text(res), w) {
			t.Errorf("error %q does not say %q", text(res), w)
		}
	}
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestListTools(t *testing.T) {
	cs, _ := connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	want := []struct {
		name        string
		readOnly    bool
		required    []string
		destructive bool
	}{
		{"create_artifact", false, []string{"title", "type", "content"}, false},
		{"read_artifact", true, []string{"id"}, false},
		{"list_artifacts", true, nil, false},
		{"edit_artifact", false, []string{"id", "changes"}, false},
		{"rewrite_artifact", false, []string{"id", "content"}, false},
		{"diff_versions", true, []string{"id"}, false},
		{"link_artifacts", false, []string{"id", "to"}, false},
		{"undo_edit", false, []string{"id"}, false},
		{"restore_version", false, []string{"id", "version"}, false},
		{"artifact_history", true, []string{"id"}, false},
		{"find_references", true, []string{"id"}, false},
		{"list_stale", true, nil, false},
		{"acknowledge", false, []string{"id"}, false},
		{"run_workflow", false, []string{"workflow"}, false},
		{"run_status", true, nil, false},
		{"list_workflows", true, nil, false},
		{"ask", false, []string{"request"}, false},
		{"goal", false, []string{"goal"}, false},
		{"accept_run", false, []string{"id"}, false},
		{"discard_run", false, []string{"id"}, true}, // deletes the run's branch
	}
	if len(tools) != len(want) {
		t.Errorf("got %d tools, want %d", len(tools), len(want))
	}
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			tool, ok := tools[w.name]
			if !ok {
				t.Fatal("missing")
			}
			raw, err := json.Marshal(tool.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			var schema struct {
				Type     string   `json:"type"`
				Required []string `json:"required"`
			}
			if err := json.Unmarshal(raw, &schema); err != nil || schema.Type != "object" {
				t.Fatalf("input schema %s is not an object schema (%v)", raw, err)
			}
			for _, r := range w.required {
				if !slices.Contains(schema.Required, r) {
					t.Errorf("input schema %s does not require %q", raw, r)
				}
			}
			a := tool.Annotations
			if a == nil {
				t.Fatal("no annotations")
			}
			if a.ReadOnlyHint != w.readOnly {
				t.Errorf("readOnlyHint = %v, want %v", a.ReadOnlyHint, w.readOnly)
			}
			if !w.readOnly && (a.DestructiveHint == nil || *a.DestructiveHint != w.destructive) {
				t.Errorf("destructiveHint %v, want %v (a versioned write is not destructive)", a.DestructiveHint, w.destructive)
			}
		})
	}
}

const py = "def parse_config(path):\n    with open(path) as f:\n        return toml.load(f)\n\n\ndef main():\n    print(parse_config('a.toml'))\n"

func TestEditFlow(t *testing.T) {
	cs, dir := connect(t)

	var created writeOut
	if res := call(t, cs, "create_artifact", map[string]any{"title": "config", "type": "code/python", "path": "config.py", "content": py}, &created); res.IsError {
		t.Fatalf("create: %s", text(res))
	}
	if created.ID == "" || created.Version != 1 || created.Path != "config.py" || created.Commit == "" {
		t.Fatalf("create = %+v", created)
	}
	id := created.ID

	var edited editOut
	res := call(t, cs, "edit_artifact", map[string]any{"id": id, "base_version": 1, "changes": []map[string]string{
		{"search": "        return toml.load(f)\n", "replace": "        return tomllib.load(f)\n"},
	}}, &edited)
	if res.IsError {
		t.Fatalf("edit: %s", text(res))
	}
	if edited.Version != 2 || !slices.Equal(edited.Tiers, []string{"exact"}) {
		t.Fatalf("edit = %+v, want version 2 with tiers [exact]", edited)
	}

	var read readOut
	if res := call(t, cs, "read_artifact", map[string]any{"id": id}, &read); res.IsError {
		t.Fatalf("read: %s", text(res))
	}
	if !strings.Contains(read.Content, "tomllib.load") || read.Version != 2 || read.TotalLines != 7 {
		t.Fatalf("read = %+v", read)
	}

	t.Run("read ranges and versions", func(t *testing.T) {
		cases := []struct {
			name string
			args map[string]any
			want string
		}{
			{"lines", map[string]any{"id": id, "start_line": 2, "end_line": 3}, "    with open(path) as f:\n        return tomllib.load(f)\n"},
			{"version 1 by path", map[string]any{"id": "config.py", "version": 1}, py},
			{"to the end", map[string]any{"id": id, "start_line": 7}, "    print(parse_config('a.toml'))\n"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				var out readOut
				if res := call(t, cs, "read_artifact", c.args, &out); res.IsError {
					t.Fatalf("read: %s", text(res))
				}
				if out.Content != c.want {
					t.Errorf("content = %q, want %q", out.Content, c.want)
				}
			})
		}
	})

	t.Run("errors", func(t *testing.T) {
		cases := []struct {
			name string
			tool string
			args map[string]any
			want []string
		}{
			{"search does not match", "edit_artifact", map[string]any{"id": id, "changes": []map[string]string{
				{"search": "def parse_config(pth):\n    with open(pth) as fh:\n", "replace": "def parse_config(p):\n"},
			}}, []string{"did you mean lines 1-2", "copy"}},
			{"conflict", "edit_artifact", map[string]any{"id": id, "base_version": 1, "changes": []map[string]string{
				{"search": "def main():\n", "replace": "def run():\n"},
			}}, []string{"conflict", "is at version 2"}},
			{"unknown artifact", "read_artifact", map[string]any{"id": "nope"}, []string{"not found", "list_artifacts"}},
			{"no changes", "edit_artifact", map[string]any{"id": id, "changes": []map[string]string{}}, []string{"changes is empty"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				wantError(t, call(t, cs, c.tool, c.args, nil), c.want...)
			})
		}
	})

	var undone writeOut
	if res := call(t, cs, "undo_edit", map[string]any{"id": id}, &undone); res.IsError {
		t.Fatalf("undo: %s", text(res))
	}
	if undone.Version != 3 {
		t.Errorf("undo = %+v, want version 3", undone)
	}
	var restored writeOut
	if res := call(t, cs, "restore_version", map[string]any{"id": id, "version": 2}, &restored); res.IsError {
		t.Fatalf("restore: %s", text(res))
	}

	var hist historyOut
	if res := call(t, cs, "artifact_history", map[string]any{"id": id}, &hist); res.IsError {
		t.Fatalf("history: %s", text(res))
	}
	if len(hist.Versions) != 4 {
		t.Fatalf("history has %d versions, want 4: %+v", len(hist.Versions), hist.Versions)
	}
	for _, v := range hist.Versions {
		if v.Agent != clientName {
			t.Errorf("version %d (%s) by %q, want %q", v.Number, v.Op, v.Agent, clientName)
		}
	}

	out, err := exec.Command("git", "-C", dir, "log", "--format=%an %s").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	edits := 0
	for _, l := range lines {
		if strings.Contains(l, "edit") {
			edits++
			if !strings.HasPrefix(l, clientName+" ") {
				t.Errorf("edit commit %q is not authored by %s", l, clientName)
			}
		}
	}
	if edits == 0 {
		t.Errorf("no edit commit in git log:\n%s", out)
	}

	t.Run("explicit agent", func(t *testing.T) {
		var e editOut
		if res := call(t, cs, "edit_artifact", map[string]any{"id": id, "agent": "reviewer", "changes": []map[string]string{
			{"search": "def main():\n", "replace": "def run():\n"},
		}}, &e); res.IsError {
			t.Fatalf("edit: %s", text(res))
		}
		var h historyOut
		call(t, cs, "artifact_history", map[string]any{"id": id}, &h)
		if last := h.Versions[len(h.Versions)-1]; last.Agent != "reviewer" {
			t.Errorf("last version by %q, want reviewer", last.Agent)
		}
	})
}

func TestResources(t *testing.T) {
	cs, _ := connect(t)
	ctx := context.Background()
	var c writeOut
	if res := call(t, cs, "create_artifact", map[string]any{"title": "Notes", "type": "text/markdown", "path": "notes.md", "content": "# Notes\n"}, &c); res.IsError {
		t.Fatalf("create: %s", text(res))
	}
	if res := call(t, cs, "edit_artifact", map[string]any{"id": c.ID, "changes": []map[string]string{{"search": "# Notes\n", "replace": "# Notes\n\nMore.\n"}}}, nil); res.IsError {
		t.Fatalf("edit: %s", text(res))
	}
	cases := []struct {
		name, uri, mime, text string
	}{
		{"current", ArtifactURI(c.ID, 0), "text/markdown", "# Notes\n\nMore.\n"},
		{"version 1", ArtifactURI(c.ID, 1), "text/markdown", "# Notes\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: tc.uri})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].Text != tc.text || res.Contents[0].MIMEType != tc.mime {
				t.Errorf("read %s = %+v", tc.uri, res.Contents)
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: ArtifactURI("nope", 0)}); err == nil {
			t.Error("no error for an unknown artifact")
		}
	})
	t.Run("templates", func(t *testing.T) {
		res, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, rt := range res.ResourceTemplates {
			got = append(got, rt.URITemplate)
		}
		slices.Sort(got)
		if want := []string{"luna://artifacts/{id}", "luna://artifacts/{id}/versions/{n}"}; !slices.Equal(got, want) {
			t.Errorf("templates = %v, want %v", got, want)
		}
	})
}

func TestMIMEType(t *testing.T) {
	for typ, want := range map[string]string{
		"text/markdown": "text/markdown", "code/python": "text/x-python", "code/go": "text/x-go",
		"config/json": "application/json", "config/ini": "text/plain", "text/plain": "text/plain", "odd": "text/plain",
	} {
		t.Run(typ, func(t *testing.T) {
			if got := MIMEType(typ); got != want {
				t.Errorf("MIMEType(%q) = %q, want %q", typ, got, want)
			}
		})
	}
}

func TestReferences(t *testing.T) {
	cs, _ := connect(t)
	var code, doc writeOut
	call(t, cs, "create_artifact", map[string]any{"title": "config", "type": "code/python", "path": "config.py", "content": py}, &code)
	call(t, cs, "create_artifact", map[string]any{"title": "Config notes", "type": "text/markdown", "path": "notes.md", "content": "# Config notes\n\n`parse_config` reads TOML.\n"}, &doc)
	if res := call(t, cs, "edit_artifact", map[string]any{"id": code.ID, "changes": []map[string]string{
		{"search": "        return toml.load(f)\n", "replace": "        return tomllib.load(f)\n"},
	}}, nil); res.IsError {
		t.Fatalf("edit: %s", text(res))
	}

	var refs refsOut
	if res := call(t, cs, "find_references", map[string]any{"id": code.ID, "symbol": "parse_config"}, &refs); res.IsError {
		t.Fatalf("find_references: %s", text(res))
	}
	if len(refs.Incoming) != 1 || refs.Incoming[0].From.ID != doc.ID {
		t.Fatalf("incoming = %+v, want one from %s", refs.Incoming, doc.ID)
	}

	var stale staleOut
	call(t, cs, "list_stale", map[string]any{}, &stale)
	if len(stale.References) != 1 || stale.References[0].From.ID != doc.ID || stale.References[0].Since == nil || stale.References[0].Since.Agent != clientName {
		t.Fatalf("stale = %+v, want the notes' reference, made stale by %s", stale.References, clientName)
	}
	if res := call(t, cs, "acknowledge", map[string]any{"id": doc.ID, "symbol": "parse_config"}, nil); res.IsError {
		t.Fatalf("acknowledge: %s", text(res))
	}
	call(t, cs, "list_stale", map[string]any{}, &stale)
	if len(stale.References) != 0 {
		t.Errorf("after acknowledge, stale = %+v", stale.References)
	}
}
