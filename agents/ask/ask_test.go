package ask_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/internal/wstest"
)

const (
	code    = "import tomllib\n\n\ndef parse_config(path):\n    with open(path, 'rb') as f:\n        return tomllib.load(f)\n"
	article = "# Reading the config\n\nThe function `parse_config` reads a TOML file.\n\nIt returns a dict.\n"
)

// TestScenario: code, then an article about it, then a rename in the
// code that makes the article stale, each through the ask workflow on a
// real workspace and engine.
func TestScenario(t *testing.T) {
	e := newEnv(t, memory.Options{}, 0)
	sup, coder, writer := e.models["supervisor"], e.models["coder"], e.models["writer"]

	// 1. The code.
	sup.add(route(lunad.AskRoute{Intent: "create", Worker: "coder", NewArtifact: &lunad.NewArtifact{Title: "Config parser", Type: "code/python", Path: "src/config.py"}, Reason: "code"}))
	coder.add(tool("create_artifact", map[string]string{"title": "Config parser", "path": "src/config.py", "content": code}), finish("wrote parse_config"))
	info, res := e.ask("write a Python function that parses a TOML config", "", false)
	if info.Status != lunad.RunCompleted || res.Status != lunad.AskDone || !slices.Equal(res.Workers, []string{"coder"}) || res.Summary != "wrote parse_config" {
		t.Fatalf("status %s, result %+v", info.Status, res)
	}
	if len(res.Changes) != 1 || !res.Changes[0].Created || res.Changes[0].Path != "src/config.py" || res.Changes[0].Added != 6 || res.Changes[0].Version != 1 || res.Changes[0].Worker != "coder" {
		t.Fatalf("changes %+v", res.Changes)
	}
	codeID := res.Changes[0].ID
	if a, err := e.s.Artifact(context.Background(), codeID); err != nil || a.Title != "Config parser" || a.Type != "code/python" {
		t.Errorf("the created code is %q (%s), %v; want the title the coder gave it", a.Title, a.Type, err)
	}
	var sum memory.Summary
	if err := json.Unmarshal(res.Memory, &sum); err != nil {
		t.Fatalf("memory summary %s: %v", res.Memory, err)
	}
	if res.Usage.Calls != 3 || res.Usage.InputTokens != 300 || sum.Run != info.ID || sum.Roles["coder"].Calls != 2 || sum.Roles["supervisor"].Calls != 1 ||
		len(sum.Edges) != 1 || sum.Edges[0].From != "supervisor" || sum.Edges[0].To != "coder" {
		t.Errorf("usage %+v, memory %s", res.Usage, res.Memory)
	}
	log := wstest.GitRun(t, e.s.Root(), "log", "-1", "--format=%an <%ae>%n%(trailers:key=Luna-Model,key=Luna-Prompt,key=Luna-Run,key=Luna-Stage)")
	for _, want := range []string{"coder <", "Luna-Model: m-coder", "Luna-Prompt: coder@1", "Luna-Run: " + info.ID, "Luna-Stage: coder"} {
		if !strings.Contains(log, want) {
			t.Errorf("commit lacks %q:\n%s", want, log)
		}
	}

	// 2. The article, with the code read-only; the writer names no title,
	// so the route's new artifact gives it.
	sup.add(route(lunad.AskRoute{Intent: "create", Worker: "writer", NewArtifact: &lunad.NewArtifact{Title: "Reading the config", Type: "text/markdown", Path: "docs/config.md"}, ReadDeps: []string{codeID}, Reason: "prose"}))
	writer.add(tool("create_artifact", map[string]string{"title": "", "path": "docs/config.md", "content": article}), finish("explained it"))
	_, res = e.ask("write an article explaining it", "", false)
	if res.Status != lunad.AskDone || len(res.Changes) != 1 || res.Changes[0].Path != "docs/config.md" || res.Changes[0].Worker != "writer" {
		t.Fatalf("article: %+v", res)
	}
	articleID := res.Changes[0].ID
	if a, err := e.s.Artifact(context.Background(), articleID); err != nil || a.Title != "Reading the config" || res.Changes[0].Title != "Reading the config" {
		t.Errorf("the created article is %q (result %q), %v; want the route's title", a.Title, res.Changes[0].Title, err)
	}
	wreq := writer.reqs[0]
	if !strings.Contains(wreq.Messages[0].Content, `mode="read_only"`) || !strings.Contains(wreq.Messages[0].Content, "def parse_config(path):") {
		t.Errorf("the writer does not see the code read-only:\n%s", wreq.Messages[0].Content)
	}
	creq := coder.reqs[0]
	for _, line := range strings.Split(creq.System, "\n") {
		if strings.TrimSpace(line) != "" && strings.Contains(wreq.System, line) {
			t.Errorf("the writer's system prompt carries the coder's line %q", line)
		}
	}
	if strings.Contains(wreq.System, "coder of a workspace") || wreq.System == creq.System {
		t.Error("the writer's system prompt is the coder's")
	}
	if got := toolNames(wreq); !slices.Contains(got, "edit_artifact") || slices.Contains(got, "report_finding") {
		t.Errorf("writer offered %v", got)
	}
	if a := wstest.GitRun(t, e.s.Root(), "log", "-1", "--format=%an %(trailers:key=Luna-Prompt,valueonly)"); !strings.HasPrefix(a, "writer writer@1") {
		t.Errorf("article commit: %q", a)
	}

	// 3. "change the second paragraph" with the article active edits it,
	// never the code.
	sup.add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Reason: "the active article"}))
	writer.add(tool("edit_artifact", map[string]any{"id": articleID, "blocks": []map[string]string{{"search": "It returns a dict.\n", "replace": "It returns a dict, as JSON would.\n"}}}), finish("mentioned JSON"))
	_, res = e.ask("change the second paragraph to mention JSON", articleID, false)
	if res.Status != lunad.AskDone || res.Route == nil || res.Route.Target == nil || *res.Route.Target != articleID || len(res.Changes) != 1 || res.Changes[0].ID != articleID {
		t.Fatalf("edit: %+v", res)
	}
	if got := wstest.Read(t, e.s, codeID); got != code {
		t.Errorf("the code changed: %q", got)
	}
	if live := e.agents.Live(); len(live) != 0 {
		t.Errorf("memories of finished runs are kept: %v", live)
	}

	// 4. Rename in the code: the article goes stale, and is named.
	sup.add(route(lunad.AskRoute{Intent: "edit", Worker: "coder", Target: ptr(codeID), Reason: "rename"}))
	coder.add(tool("edit_artifact", map[string]any{"id": codeID, "blocks": []map[string]string{{"search": "def parse_config(path):\n", "replace": "def load_config(path):\n"}}}), finish("renamed"))
	_, res = e.ask("rename parse_config to load_config", "", false)
	if res.Status != lunad.AskDone || len(res.Changes) != 1 || res.Changes[0].ID != codeID || res.Changes[0].Added != 1 || res.Changes[0].Removed != 1 || res.Changes[0].Version != 2 {
		t.Fatalf("rename: %+v", res)
	}
	if len(res.Stale) != 1 || res.Stale[0].ID != articleID || !slices.Equal(res.Stale[0].Symbols, []string{"parse_config"}) {
		t.Errorf("stale follow-ups %+v", res.Stale)
	}
	if got := wstest.Read(t, e.s, articleID); !strings.Contains(got, "The function `parse_config` reads") {
		t.Errorf("the article changed: %q", got)
	}

	// 5. "update the stale docs": the supervisor sees which artifact is
	// stale (metadata, no content) and routes it to the writer.
	sup.add(route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr(articleID), ReadDeps: []string{codeID}, Reason: "stale"}))
	writer.add(tool("edit_artifact", map[string]any{"id": articleID, "blocks": []map[string]string{{"search": "The function `parse_config` reads a TOML file.\n", "replace": "The function `load_config` reads a TOML file.\n"}}}), finish("updated"))
	_, res = e.ask("update the stale docs", "", false)
	if u := sup.reqs[len(sup.reqs)-1].Messages[0].Content; !strings.Contains(u, articleID+"\tdocs/config.md\ttext/markdown\t\"Reading the config\"\tactive\tv2\tstale: src/config.py") {
		t.Errorf("the supervisor was not told the article is stale:\n%s", u)
	}
	if res.Status != lunad.AskDone || len(res.Changes) != 1 || res.Changes[0].ID != articleID || len(res.Stale) != 0 {
		t.Fatalf("update: %+v", res)
	}
	if st := wstest.StaleSet(t, e.s); len(st) != 0 {
		t.Errorf("still stale: %v", st)
	}

	// 6. A live replay of each run serves the recorded model calls and
	// workspace reads: the same path, status and tree, no model called.
	runs, err := e.s.Runs(context.Background())
	if err != nil || len(runs) != 5 {
		t.Fatalf("%d runs: %v", len(runs), err)
	}
	calls := func() (n int) {
		for _, m := range e.models {
			n += m.calls()
		}
		return n
	}
	before := calls()
	for _, r := range runs {
		rep, err := e.s.ReplayRun(context.Background(), r.ID, true)
		if err != nil || !rep.Identical || rep.Divergence != 0 || rep.Tree != rep.ReplayTree {
			t.Errorf("replay of %s: %+v %v", r.ID, rep, err)
		}
	}
	if calls() != before {
		t.Errorf("the replays called the models %d times", calls()-before)
	}
}

func toolNames(req llm.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestOutputsCarryMemory(t *testing.T) {
	e := newEnv(t, memory.Options{}, 0)
	e.models["supervisor"].add(route(lunad.AskRoute{Intent: "answer", Worker: "writer", Reason: "just answer"}))
	e.models["writer"].add(finish("42"))
	info, res := e.ask("what is the answer?", "", false)
	if res.Status != lunad.AskDone || res.Summary != "42" {
		t.Fatalf("%+v", res)
	}
	for _, st := range info.Stages {
		var out struct {
			Memory memory.Snapshot `json:"memory"`
			Visit  int             `json:"visit"`
		}
		if err := json.Unmarshal(st.Output, &out); err != nil {
			t.Fatal(err)
		}
		if out.Memory.Run != info.ID || out.Memory.Total.Calls != st.Visit || out.Visit != st.Visit {
			t.Errorf("stage %s: snapshot %+v", st.Stage, out.Memory)
		}
	}
}
