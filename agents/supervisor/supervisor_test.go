package supervisor_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/supervisor"
	"github.com/lunad/lunad/internal/wstest"
)

// answers is a provider answering with its texts in order, keeping the
// requests.
type answers struct {
	texts []string
	reqs  []llm.Request
}

func (a *answers) Name() string { return "scripted" }

func (a *answers) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	a.reqs = append(a.reqs, req)
	if len(a.reqs) > len(a.texts) {
		return llm.Response{}, &llm.Error{Provider: "scripted", Kind: llm.Permanent, Err: errors.New("no more answers")}
	}
	return llm.Response{Model: "m1", Message: llm.Message{Role: llm.RoleAssistant, Content: a.texts[len(a.reqs)-1]}, Usage: llm.Usage{InputTokens: 50, OutputTokens: 20}}, nil
}

const (
	articleA = "# Parsing\n\nFirst paragraph of A.\n\nSecond paragraph of A.\n"
	articleB = "# Loading\n\nFirst paragraph of B.\n\nSecond paragraph of B.\n"
)

func TestDecide(t *testing.T) {
	s := wstest.NewService(t)
	code := wstest.Create(t, s, "src/config.py", wstest.Src)
	a := wstest.Create(t, s, "docs/a.md", articleA)
	b := wstest.Create(t, s, "docs/b.md", articleB)
	arts, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	route := func(intent, worker, target, extra string) string {
		tg := "null"
		if target != "" {
			tg = `"` + target + `"`
		}
		if extra == "" {
			extra = `"new_artifact":null,"read_deps":[]`
		}
		return `{"intent":"` + intent + `","worker":"` + worker + `","target":` + tg + `,` + extra + `,"reason":"r","question":null}`
	}
	cases := []struct {
		name     string
		active   string
		texts    []string
		calls    int
		target   string // of the route ("" no route)
		question string // in the question ("" none)
		failSafe bool
		retryMsg string // in the retry's last message
	}{
		{name: "create", texts: []string{route("create", "writer", "", `"new_artifact":{"title":"About","type":"text/markdown","path":"docs/about.md"},"read_deps":["src/config.py"]`)}, calls: 1},
		{name: "edit by path", texts: []string{route("edit", "coder", "src/config.py", "")}, calls: 1, target: code},
		{name: "edit of the active artifact", active: b, texts: []string{route("edit", "writer", "", "")}, calls: 1, target: b},
		{name: "ambiguous edit is a question", texts: []string{route("edit", "writer", "", "")}, calls: 1, question: `Which artifact do you mean: docs/a.md ("docs/a.md", ` + a + `), or docs/b.md ("docs/b.md", ` + b + `)?`},
		{name: "the model asks", texts: []string{`{"intent":"answer","worker":"writer","target":null,"new_artifact":null,"read_deps":[],"reason":"two articles","question":"Which article?"}`}, calls: 1, question: "Which article?"},
		{name: "one retry with the error", texts: []string{route("edit", "writer", "src/config.py", ""), route("edit", "coder", "src/config.py", "")}, calls: 2, target: code, retryMsg: "src/config.py is code/python: code goes to the coder, not the writer"},
		{name: "unknown target retried", texts: []string{route("edit", "coder", "nope", ""), route("edit", "coder", code, "")}, calls: 2, target: code, retryMsg: `target "nope" is not an artifact of the workspace`},
		{name: "not JSON twice is fail-safe", texts: []string{"sure, I will edit it", `{"intent":"edit"`}, calls: 2, failSafe: true, question: "Nothing was changed: please say which artifact you mean", retryMsg: "the answer is not a route object"},
		{name: "create without a path", texts: []string{route("create", "coder", "", ""), route("create", "coder", "", "")}, calls: 2, failSafe: true, question: "a create needs new_artifact with a title and a path"},
		{name: "review by the writer", texts: []string{route("review", "writer", a, ""), route("review", "reviewer", a, "")}, calls: 2, target: a, retryMsg: "a review goes to the reviewer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &answers{texts: c.texts}
			mem := memory.New("r1", memory.Options{Clock: func() time.Time { return time.Unix(0, 0) }})
			d, err := supervisor.Decide(context.Background(), supervisor.Deps{Provider: p, Model: "m1", Memory: mem}, supervisor.Input{Request: "do it", Active: c.active, Artifacts: arts})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.reqs) != c.calls {
				t.Errorf("%d calls, want %d", len(p.reqs), c.calls)
			}
			if c.question != "" {
				if d.Route != nil || !strings.Contains(d.Question, c.question) {
					t.Errorf("route %+v, question %q; want a question containing %q", d.Route, d.Question, c.question)
				}
			} else if d.Route == nil || d.Question != "" {
				t.Fatalf("no route: %+v", d)
			} else if c.target != "" && (d.Route.Target == nil || *d.Route.Target != c.target) {
				t.Errorf("target %v, want %s", d.Route.Target, c.target)
			}
			if d.FailSafe != c.failSafe {
				t.Errorf("fail-safe %v", d.FailSafe)
			}
			if c.retryMsg != "" {
				last := p.reqs[1].Messages[len(p.reqs[1].Messages)-1]
				if !strings.Contains(last.Content, c.retryMsg) {
					t.Errorf("retry message %q; want %q", last.Content, c.retryMsg)
				}
			}
			if u := mem.Usage(); u.Calls != c.calls {
				t.Errorf("memory saw %d calls", u.Calls)
			}
		})
	}
}

// TestMetadataOnly: the supervisor's prompt has every artifact's metadata
// and no artifact's content, and asks for the route schema.
func TestMetadataOnly(t *testing.T) {
	s := wstest.NewService(t)
	wstest.Create(t, s, "src/config.py", wstest.Src)
	a := wstest.Create(t, s, "docs/a.md", articleA)
	arts, _ := s.List(context.Background())
	req := supervisor.Request(supervisor.Deps{Model: "m1"}, supervisor.Input{Request: "change the second paragraph", Active: a, Artifacts: arts})
	text := req.System + req.Messages[0].Content
	for _, line := range strings.Split(wstest.Src+articleA, "\n") {
		if len(line) > 3 && strings.Contains(text, line) {
			t.Errorf("the supervisor's prompt carries content: %q", line)
		}
	}
	for _, want := range []string{"Active artifact: " + a, a + "\tdocs/a.md\ttext/markdown\t\"docs/a.md\"\tactive\tv1", "\tsrc/config.py\tcode/python\t"} {
		if !strings.Contains(req.Messages[0].Content, want) {
			t.Errorf("no %q in:\n%s", want, req.Messages[0].Content)
		}
	}
	if req.Format == nil || req.Format.Name != "route" || len(req.Tools) != 0 {
		t.Errorf("format %+v, tools %d", req.Format, len(req.Tools))
	}
	if id, _ := supervisor.Prompt(); id != "supervisor@1" {
		t.Errorf("prompt %s", id)
	}
}

func TestBudget(t *testing.T) {
	mem := memory.New("r1", memory.Options{Budget: memory.Budget{Calls: 1}, Clock: func() time.Time { return time.Unix(0, 0) }})
	p := &answers{texts: []string{"no", "no"}}
	_, err := supervisor.Decide(context.Background(), supervisor.Deps{Provider: p, Memory: mem}, supervisor.Input{Request: "x"})
	if !errors.Is(err, memory.ErrBudget) || len(p.reqs) != 1 {
		t.Fatalf("err %v after %d calls", err, len(p.reqs))
	}
}

// FuzzDecide: any answer of the model is a route that names real
// artifacts, or a question; never a panic.
func FuzzDecide(f *testing.F) {
	f.Add(`{"intent":"edit","worker":"coder","target":"src/config.py","new_artifact":null,"read_deps":[],"reason":"r","question":null}`)
	f.Add(`{"intent":"create","worker":"writer","target":null,"new_artifact":{"title":"t","type":"","path":"a.md"},"read_deps":["x"],"reason":"r","question":null}`)
	f.Add(`{"intent":"answer"} trailing`)
	f.Add(`[]`)
	arts := []lunad.Artifact{{ID: "c1", Path: "src/config.py", Type: "code/python"}, {ID: "d1", Path: "docs/a.md", Type: "text/markdown"}}
	f.Fuzz(func(t *testing.T, text string) {
		mem := memory.New("r1", memory.Options{Clock: func() time.Time { return time.Unix(0, 0) }})
		d, err := supervisor.Decide(context.Background(), supervisor.Deps{Provider: &answers{texts: []string{text, text}}, Memory: mem}, supervisor.Input{Request: "x", Artifacts: arts})
		if err != nil {
			t.Fatal(err)
		}
		if (d.Route == nil) == (d.Question == "") {
			t.Fatalf("neither or both a route and a question: %+v", d)
		}
		if r := d.Route; r != nil {
			for _, ref := range append(r.ReadDeps, deref(r.Target)) {
				if ref != "" && ref != "c1" && ref != "d1" {
					t.Fatalf("route names %q, not an artifact ID", ref)
				}
			}
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
