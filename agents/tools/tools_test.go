package tools_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/tools"
	"github.com/lunad/lunad/internal/wstest"
	"github.com/lunad/lunad/workspace"
)

const article = "# Parsing config\n\nFirst paragraph calls `parse_config`.\n\nSecond paragraph.\n\nSecond paragraph.\n"

// fixture is a real workspace with a Python file and an article.
type fixture struct {
	s            *workspace.Service
	code, prose  string
	ov           *tools.Overlay
	coder, write *tools.Set
	review       *tools.Set
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s := wstest.NewService(t)
	f := &fixture{s: s, code: wstest.Create(t, s, "src/config.py", wstest.Src), prose: wstest.Create(t, s, "docs/config.md", article)}
	f.ov = tools.NewOverlay(s, nil)
	var err error
	for role, p := range map[string]**tools.Set{tools.Coder: &f.coder, tools.Writer: &f.write, tools.Reviewer: &f.review} {
		if *p, err = tools.For(role, f.ov); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func call(name, args string) llm.ToolCall {
	return llm.ToolCall{ID: "c1", Name: name, Arguments: json.RawMessage(args)}
}

func TestPermissions(t *testing.T) {
	f := newFixture(t)
	edit := func(id, search, replace string) string {
		b, _ := json.Marshal(map[string]any{"id": id, "blocks": []map[string]string{{"search": search, "replace": replace}}})
		return string(b)
	}
	cases := []struct {
		name  string
		set   *tools.Set
		call  llm.ToolCall
		want  string // in the refusal
		write bool
	}{
		{"writer edits code", f.write, call(tools.EditArtifact, edit(f.code, "def main():\n", "def run():\n")), "code is read-only for the writer; hand off to the coder", true},
		{"writer rewrites code", f.write, call(tools.RewriteArtifact, `{"id":"src/config.py","content":"x = 1\n"}`), "hand off to the coder", true},
		{"writer creates code", f.write, call(tools.CreateArtifact, `{"title":"t","path":"src/new.py","content":"x = 1\n"}`), "hand off to the coder", true},
		{"coder edits an article", f.coder, call(tools.EditArtifact, edit(f.prose, "First paragraph calls `parse_config`.\n", "x\n")), "prose is the writer's; hand off to the writer", true},
		{"reviewer edits", f.review, call(tools.EditArtifact, edit(f.prose, "Second paragraph.\n", "x\n")), "the reviewer cannot write", true},
		{"reviewer creates", f.review, call(tools.CreateArtifact, `{"title":"t","path":"docs/n.md","content":"x\n"}`), "the reviewer cannot write", true},
		{"reviewer rewrites", f.review, call(tools.RewriteArtifact, `{"id":"docs/config.md","content":"x\n"}`), "the reviewer cannot write", true},
		{"coder reports a finding", f.coder, call(tools.ReportFinding, `{"artifact":"docs/config.md","severity":"info","message":"m"}`), "the coder may not call report_finding", false},
		{"unknown tool", f.coder, call("run_shell", `{"cmd":"rm -rf /"}`), `unknown tool "run_shell": the tools you may call are read_artifact, list_artifacts`, false},
		{"invalid JSON", f.coder, call(tools.ReadArtifact, `{"id": "src/config.py"`), "the arguments are not valid JSON", false},
		{"not an object", f.coder, call(tools.ReadArtifact, `["src/config.py"]`), "must be a JSON object with from_line, id, to_line, not an array", false},
		{"wrong type", f.coder, call(tools.ReadArtifact, `{"id": 42}`), `argument "id" must be a string, not a JSON number`, false},
		{"wrong nested type", f.coder, call(tools.EditArtifact, `{"id":"src/config.py","blocks":[{"search":1,"replace":"x"}]}`), `argument "blocks.search" must be a string`, false},
		{"unknown argument", f.coder, call(tools.ReadArtifact, `{"id":"src/config.py","force":true}`), `unknown argument "force"; the arguments are from_line, id, to_line`, false},
		{"missing argument", f.coder, call(tools.EditArtifact, `{"id":"src/config.py"}`), `argument "blocks" is required`, false},
		{"handoff to self", f.coder, call(tools.Handoff, `{"to":"coder","reason":"r"}`), "you are the coder", false},
		{"handoff to nobody", f.coder, call(tools.Handoff, `{"to":"poet","reason":"r"}`), `no worker "poet"`, false},
		{"unknown artifact", f.coder, call(tools.ReadArtifact, `{"id":"nope"}`), `no artifact "nope": use an ID or path from list_artifacts`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.set.Call(context.Background(), c.call)
			if !r.IsError || !strings.Contains(r.Content, c.want) {
				t.Fatalf("result %+v; want an error containing %q", r, c.want)
			}
			if r.Control != nil || r.Progress {
				t.Errorf("a refused call has control %+v, progress %v", r.Control, r.Progress)
			}
			if c.write && r.Change == "" {
				t.Errorf("a refused write names no change: %+v", r)
			}
		})
	}
	if w := f.ov.Writes(); len(w) != 0 {
		t.Errorf("refused calls staged writes: %+v", w)
	}
	if got := wstest.Read(t, f.s, f.code); got != wstest.Src {
		t.Errorf("the code changed: %q", got)
	}
}

func TestOffered(t *testing.T) {
	f := newFixture(t)
	names := func(s *tools.Set) []string {
		var out []string
		for _, tl := range s.Tools() {
			if !json.Valid(tl.Schema) || tl.Description == "" {
				t.Errorf("tool %s: bad schema or no description", tl.Name)
			}
			out = append(out, tl.Name)
		}
		return out
	}
	for _, c := range []struct {
		set  *tools.Set
		want []string
	}{
		{f.coder, []string{"read_artifact", "list_artifacts", "find_references", "edit_artifact", "create_artifact", "rewrite_artifact", "handoff", "finish"}},
		{f.write, []string{"read_artifact", "list_artifacts", "find_references", "edit_artifact", "create_artifact", "rewrite_artifact", "handoff", "finish"}},
		{f.review, []string{"read_artifact", "list_artifacts", "find_references", "report_finding", "acknowledge", "handoff", "finish"}},
	} {
		t.Run(c.set.Role(), func(t *testing.T) {
			if got := names(c.set); !slices.Equal(got, c.want) {
				t.Errorf("offered %v, want %v", got, c.want)
			}
		})
	}
	if _, err := tools.For("poet", f.ov); err == nil || !strings.Contains(err.Error(), "the roles are coder, writer, reviewer") {
		t.Errorf("unknown role: %v", err)
	}
}

func TestEditThroughTheEngine(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	t.Run("no match quotes the closest lines", func(t *testing.T) {
		r := f.coder.Call(ctx, call(tools.EditArtifact, `{"id":"src/config.py","blocks":[{"search":"def parse_conf(path):\n","replace":"def load_config(path):\n"}]}`))
		if !r.IsError || r.Change != f.code || !strings.Contains(r.Content, "SEARCH text not found") || !strings.Contains(r.Content, "1 | def parse_config(path):") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("ambiguous names the candidate lines", func(t *testing.T) {
		r := f.write.Call(ctx, call(tools.EditArtifact, `{"id":"`+f.prose+`","blocks":[{"search":"Second paragraph.\n","replace":"Mentions JSON.\n"}]}`))
		if !r.IsError || !strings.Contains(r.Content, "matches 2 places") || !strings.Contains(r.Content, "starting at lines 5, 7") {
			t.Fatalf("%+v", r)
		}
	})
	if len(f.ov.Writes()) != 0 {
		t.Fatal("a failed edit was staged")
	}
	t.Run("an edit is staged, not written", func(t *testing.T) {
		r := f.coder.Call(ctx, call(tools.EditArtifact, `{"id":"src/config.py","blocks":[{"search":"def parse_config(path):\n","replace":"def load_config(path):\n"},{"search":"    print(parse_config('a.toml'))\n","replace":"    print(load_config('a.toml'))\n"}]}`))
		if r.IsError || !r.Progress || r.Change != f.code || !strings.Contains(r.Content, "block 1 at lines 1-1 (exact)") {
			t.Fatalf("%+v", r)
		}
		if got := wstest.Read(t, f.s, f.code); got != wstest.Src {
			t.Errorf("the workspace changed before the stage committed: %q", got)
		}
		read := f.coder.Call(ctx, call(tools.ReadArtifact, `{"id":"`+f.code+`","from_line":1,"to_line":2}`))
		if want := "    1| def load_config(path):\n    2|     with open(path) as f:\n"; !strings.HasSuffix(read.Content, want) {
			t.Errorf("read after edit:\n%s", read.Content)
		}
	})
	t.Run("create and list", func(t *testing.T) {
		r := f.write.Call(ctx, call(tools.CreateArtifact, `{"title":"Usage","path":"docs/usage.md","content":"# Usage\n\nCall load_config.\n"}`))
		if r.IsError {
			t.Fatal(r.Content)
		}
		again := f.write.Call(ctx, call(tools.CreateArtifact, `{"title":"Usage","path":"docs/config.md","content":"x\n"}`))
		if !again.IsError || !strings.Contains(again.Content, "already at docs/config.md: edit it") {
			t.Errorf("create over an artifact: %+v", again)
		}
		bad := f.write.Call(ctx, call(tools.CreateArtifact, `{"title":"x","path":".luna/x.md","content":"x\n"}`))
		if !bad.IsError || !strings.Contains(bad.Content, "lunad's own state") {
			t.Errorf("create in .luna: %+v", bad)
		}
		l := f.write.Call(ctx, call(tools.ListArtifacts, `{"type":"text/"}`))
		if !strings.Contains(l.Content, "docs/usage.md\tUsage") || strings.Contains(l.Content, "config.py") {
			t.Errorf("list:\n%s", l.Content)
		}
	})
	src, err := f.s.Artifact(ctx, f.code)
	if err != nil {
		t.Fatal(err)
	}
	want := []lunad.StageWrite{
		{Path: "docs/usage.md", Content: "# Usage\n\nCall load_config.\n", Title: "Usage", Type: "text/markdown"},
		{Path: "src/config.py", Content: strings.ReplaceAll(wstest.Src, "parse_config", "load_config"),
			// The version the edit was made on, and the edit: how the
			// workspace merges it into a version saved meanwhile.
			Base: src.Commit, Edits: []lunad.Block{
				{Search: "def parse_config(path):\n", Replace: "def load_config(path):\n"},
				{Search: "    print(parse_config('a.toml'))\n", Replace: "    print(load_config('a.toml'))\n"}}},
	}
	if got := f.ov.Writes(); !reflect.DeepEqual(got, want) {
		t.Errorf("writes %+v", got)
	}
	ch := f.ov.Changes()
	if len(ch) != 2 || !ch[0].Created || ch[0].Added != 3 || ch[1].Created || ch[1].Added != 2 || ch[1].Removed != 2 {
		t.Errorf("changes %+v", ch)
	}
}

func TestControlAndFindings(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	h := f.write.Call(ctx, call(tools.Handoff, `{"to":"coder","reason":"the code must change"}`))
	if h.IsError || h.Control == nil || *h.Control != (tools.Control{Kind: "handoff", To: "coder", Reason: "the code must change"}) {
		t.Errorf("handoff %+v", h)
	}
	fin := f.coder.Call(ctx, call(tools.Finish, `{"summary":"done"}`))
	if fin.Control == nil || fin.Control.Kind != "finish" || fin.Control.Summary != "done" {
		t.Errorf("finish %+v", fin)
	}
	r := f.review.Call(ctx, call(tools.ReportFinding, `{"artifact":"docs/config.md","line":3,"severity":"warning","message":"names parse_config"}`))
	if r.IsError {
		t.Fatal(r.Content)
	}
	bad := f.review.Call(ctx, call(tools.ReportFinding, `{"artifact":"docs/config.md","severity":"fatal","message":"m"}`))
	if !bad.IsError || !strings.Contains(bad.Content, "use info, warning or error") {
		t.Errorf("bad severity: %+v", bad)
	}
	f.review.Call(ctx, call(tools.Acknowledge, `{"id":"docs/config.md","symbol":"parse_config"}`))
	// A symbol none of the artifact's references names goes back to the
	// model (the workspace would refuse it when the engine records it).
	if r := f.review.Call(ctx, call(tools.Acknowledge, `{"id":"docs/config.md","symbol":"no_such"}`)); !r.IsError || !strings.Contains(r.Content, `has no reference to "no_such"`) {
		t.Errorf("ack of an unreferenced symbol: %+v", r)
	}
	if got := f.review.Findings(); len(got) != 1 || got[0] != (lunad.AskFinding{Artifact: f.prose, Line: 3, Severity: "warning", Message: "names parse_config"}) {
		t.Errorf("findings %+v", got)
	}
	if got := f.review.Acks(); len(got) != 1 || got[0] != (tools.Ack{ID: f.prose, Symbol: "parse_config"}) {
		t.Errorf("acks %+v", got)
	}
	refs := f.review.Call(ctx, call(tools.FindReferences, `{"id":"src/config.py"}`))
	if refs.IsError || !strings.Contains(refs.Content, "docs/config.md:3 code \"parse_config\" -> src/config.py#parse_config [ok]") {
		t.Errorf("references:\n%s", refs.Content)
	}
}

func TestLineDelta(t *testing.T) {
	for _, c := range []struct {
		name    string
		a, b    string
		add, rm int
	}{
		{"empty to two", "", "a\nb\n", 2, 0},
		{"one changed", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"moved", "a\nb\n", "b\na\n", 0, 0},
		{"removed", "a\nb\n", "", 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if add, rm := tools.LineDelta([]byte(c.a), []byte(c.b)); add != c.add || rm != c.rm {
				t.Errorf("+%d -%d, want +%d -%d", add, rm, c.add, c.rm)
			}
		})
	}
}

// FuzzCall: any tool call, any arguments: a result, never a panic, and
// an error result never stages a write.
func FuzzCall(f *testing.F) {
	for _, s := range []struct{ name, args string }{
		{tools.ReadArtifact, `{"id":"src/config.py","from_line":2}`},
		{tools.EditArtifact, `{"id":"src/config.py","blocks":[{"search":"x","replace":"y"}]}`},
		{tools.CreateArtifact, `{"title":"t","path":"a/../b.py","content":"x"}`},
		{tools.Handoff, `{"to":"writer","reason":1}`},
		{"nope", `null`},
		{tools.ListArtifacts, `{"type":null}`},
	} {
		f.Add(s.name, s.args)
	}
	ov := tools.NewOverlay(memSource{"src/config.py": wstest.Src}, nil)
	coder, err := tools.For(tools.Coder, ov)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		before := len(ov.Writes())
		r := coder.Call(context.Background(), call(name, args))
		if r.IsError && len(ov.Writes()) != before {
			t.Fatalf("a failed call %s %s staged a write", name, args)
		}
	})
}

// memSource is a Source of files in memory, by path (the path is the ID).
type memSource map[string]string

func (m memSource) art(ref string) (lunad.Artifact, error) {
	if _, ok := m[ref]; !ok {
		return lunad.Artifact{}, lunad.ErrNotFound
	}
	return lunad.Artifact{ID: ref, Path: ref, Type: tools.TypeForPath(ref), Title: ref, Version: 1}, nil
}

func (m memSource) List(context.Context) ([]lunad.Artifact, error) {
	var out []lunad.Artifact
	for p := range m {
		a, _ := m.art(p)
		out = append(out, a)
	}
	return out, nil
}
func (m memSource) Artifact(_ context.Context, ref string) (lunad.Artifact, error) { return m.art(ref) }
func (m memSource) Read(_ context.Context, ref, _ string) ([]byte, lunad.Artifact, error) {
	a, err := m.art(ref)
	return []byte(m[ref]), a, err
}
func (m memSource) Refs(_ context.Context, ref string) (lunad.RefReport, error) {
	a, err := m.art(ref)
	return lunad.RefReport{Artifact: a}, err
}
func (m memSource) Outgoing(_ context.Context, ref string) ([]lunad.Reference, error) {
	_, err := m.art(ref)
	return nil, err
}
func (m memSource) Symbols(_ context.Context, ref string) (lunad.Artifact, []lunad.Symbol, error) {
	a, err := m.art(ref)
	return a, nil, err
}

// TestCreateTitleAndType: a created artifact's write carries its title and
// type — the call's, else the planned artifact's (the route's
// new_artifact), else the file's name and the inferred type — and a type
// the workspace would refuse goes back to the model.
func TestCreateTitleAndType(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.ov.Plan(lunad.NewArtifact{Title: "Reading the config", Type: "text/markdown", Path: "docs/reading.md"})
	for _, c := range []struct{ name, args string }{
		{"planned", `{"path":"docs/reading.md","title":"","content":"# R\n"}`},
		{"own", `{"path":"docs/own.md","title":"My own","type":"text/plain","content":"o\n"}`},
		{"defaults", `{"path":"docs/bare.md","title":"","content":"b\n"}`},
	} {
		if r := f.write.Call(ctx, call(tools.CreateArtifact, c.args)); r.IsError {
			t.Fatalf("%s: %s", c.name, r.Content)
		}
	}
	bad := f.write.Call(ctx, call(tools.CreateArtifact, `{"path":"docs/bad.md","title":"Bad","type":"Markdown","content":"x\n"}`))
	if !bad.IsError || !strings.Contains(bad.Content, `type "Markdown" is not of the form kind/name`) {
		t.Errorf("bad type: %+v", bad)
	}
	want := []lunad.StageWrite{
		{Path: "docs/bare.md", Content: "b\n", Title: "bare.md", Type: "text/markdown"},
		{Path: "docs/own.md", Content: "o\n", Title: "My own", Type: "text/plain"},
		{Path: "docs/reading.md", Content: "# R\n", Title: "Reading the config", Type: "text/markdown"},
	}
	if got := f.ov.Writes(); !reflect.DeepEqual(got, want) {
		t.Errorf("writes\n%+v\nwant\n%+v", got, want)
	}
}
