package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRewriteDiffLink: rewrite_artifact replaces the content (and refuses
// a stale base_version), diff_versions shows the change, and
// link_artifacts makes a link that list_stale reports once its target
// changes.
func TestRewriteDiffLink(t *testing.T) {
	cs, _ := connect(t)
	var doc, code writeOut
	call(t, cs, "create_artifact", map[string]any{"title": "Guide", "type": "text/markdown", "path": "guide.md", "content": "# Guide\n\nRun it.\n"}, &doc)
	call(t, cs, "create_artifact", map[string]any{"title": "tool", "type": "code/python", "path": "tool.py", "content": "print('hi')\n"}, &code)

	var rw writeOut
	if res := call(t, cs, "rewrite_artifact", map[string]any{"id": "tool.py", "content": "print('hello')\n", "base_version": 1, "message": "greet"}, &rw); res.IsError {
		t.Fatalf("rewrite: %s", text(res))
	}
	if rw.ID != code.ID || rw.Version != 2 || rw.Commit == "" {
		t.Errorf("rewrite = %+v, want %s at version 2", rw, code.ID)
	}
	if res := call(t, cs, "rewrite_artifact", map[string]any{"id": code.ID, "content": "x\n", "base_version": 1}, nil); !res.IsError || !strings.Contains(text(res), "conflict") {
		t.Errorf("rewrite on a stale base: %s", text(res))
	}

	// Idempotent: the same rewrite again writes nothing and says so.
	wantError(t, call(t, cs, "rewrite_artifact", map[string]any{"id": code.ID, "content": "print('hello')\n"}, nil),
		"nothing was written", "the edit changes nothing in tool.py", "there is nothing to do")

	var d diffOut
	res := call(t, cs, "diff_versions", map[string]any{"id": code.ID}, &d)
	if res.IsError {
		t.Fatalf("diff: %s", text(res))
	}
	if d.From != 1 || d.To != 2 || !strings.Contains(d.Diff, "-print('hi')\n+print('hello')\n") || res.Content[0].(*sdk.TextContent).Text != d.Diff {
		t.Errorf("diff = %+v, text %q", d, text(res))
	}
	if res := call(t, cs, "diff_versions", map[string]any{"id": code.ID, "from": 2, "to": 9}, nil); !res.IsError {
		t.Errorf("diff to a version that does not exist: %s", text(res))
	}

	var l writeOut
	if res := call(t, cs, "link_artifacts", map[string]any{"id": doc.ID, "to": "tool.py", "kind": "explains"}, &l); res.IsError {
		t.Fatalf("link: %s", text(res))
	}
	if l.ID != doc.ID || l.Version != 2 {
		t.Errorf("link = %+v, want %s at version 2", l, doc.ID)
	}
	if res := call(t, cs, "link_artifacts", map[string]any{"id": doc.ID, "to": "tool.py", "kind": "explains"}, nil); !res.IsError || !strings.Contains(text(res), "already links") {
		t.Errorf("second link: %s", text(res))
	}
	if res := call(t, cs, "link_artifacts", map[string]any{"id": doc.ID, "to": code.ID, "kind": "Explains It"}, nil); !res.IsError || !strings.Contains(text(res), "lowercase") {
		t.Errorf("bad kind: %s", text(res))
	}
	call(t, cs, "rewrite_artifact", map[string]any{"id": code.ID, "content": "print('bye')\n"}, nil)
	var stale staleOut
	call(t, cs, "list_stale", map[string]any{}, &stale)
	if len(stale.References) != 1 || stale.References[0].From.ID != doc.ID || stale.References[0].Kind != "explicit" || stale.References[0].Text != "explains" {
		t.Errorf("stale = %+v, want the guide's explains link", stale.References)
	}
}

// TestTextResultsCarryJSON: read_artifact and diff_versions, whose first
// text block is the content or the diff, also give their structured
// result as a JSON text block, so a client that shows its model only the
// content still shows it the version to pass as base_version.
func TestTextResultsCarryJSON(t *testing.T) {
	cs, _ := connect(t)
	var a writeOut
	call(t, cs, "create_artifact", map[string]any{"title": "n", "type": "text/plain", "path": "n.txt", "content": "one\n"}, &a)
	call(t, cs, "rewrite_artifact", map[string]any{"id": a.ID, "content": "two\n"}, nil)
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		first      string
	}{
		{"read current", "read_artifact", map[string]any{"id": a.ID}, "two\n"},
		{"read a version", "read_artifact", map[string]any{"id": a.ID, "version": 1}, "one\n"},
		{"diff", "diff_versions", map[string]any{"id": a.ID}, "--- a/n.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-one\n+two\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := call(t, cs, c.tool, c.args, nil)
			if res.IsError || len(res.Content) != 2 {
				t.Fatalf("%s: %d content blocks: %s", c.tool, len(res.Content), text(res))
			}
			if got := res.Content[0].(*sdk.TextContent).Text; got != c.first {
				t.Errorf("first block %q, want %q", got, c.first)
			}
			var fromText, structured map[string]any
			if err := json.Unmarshal([]byte(res.Content[1].(*sdk.TextContent).Text), &fromText); err != nil {
				t.Fatalf("second block is not JSON: %v", err)
			}
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &structured)
			if !reflect.DeepEqual(fromText, structured) || fromText["id"] != a.ID {
				t.Errorf("second block %v, want the structured result %v", fromText, structured)
			}
		})
	}
}
