package main

import (
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

// scenarioKey is the API key the test's model servers accept.
const scenarioKey = "sk-test-7f3a9c0e5d2b"

// askWS is a workspace whose daemon (a real lunad serve process) calls
// the model server at url with protocol's provider.
func askWS(t *testing.T, provider, url, model string) *ws {
	t.Helper()
	w := newWS(t)
	cfg := fmt.Sprintf("[llm]\nprovider = %q\nbase_url = %q\nmodel = %q\ntemperature = 0.0\nseed = 1\n", provider, url, model)
	if err := os.WriteFile(filepath.Join(w.dir, ".luna", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	w.env = append(w.env, "OPENAI_API_KEY="+scenarioKey, "ANTHROPIC_API_KEY="+scenarioKey)
	w.serve()
	return w
}

// ask runs lunad ask --json and returns its result.
func (w *ws) ask(args ...string) lunad.AskResult {
	w.t.Helper()
	var res lunad.AskResult
	w.jsonOut(&res, append([]string{"ask"}, args...)...)
	return res
}

// TestAskScenario is the multi-artifact scenario end to end: a real
// daemon process, its agents calling a real HTTP server that speaks
// OpenAI's chat-completions protocol, five asks in a row. It checks what
// each ask did, what each role's model was sent (the writer's system
// prompt carries nothing of the coder's; the tools each was offered; the
// supervisor sees no content), the commits in git log (authors and
// trailers), and that replaying each run gives the same path and tree.
func TestAskScenario(t *testing.T) {
	for _, tc := range []struct {
		provider, model, path string
		server                func(*testing.T, *testModel) *httptest.Server
	}{
		{"openai", "gpt-test", "/v1", openAIServer},
		{"anthropic", "claude-test", "", anthropicServer},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			m := &testModel{Key: scenarioKey}
			srv := tc.server(t, m)
			w := askWS(t, tc.provider, srv.URL+tc.path, tc.model)
			askScenario(t, w, m, tc.model)
		})
	}
}

// askScenario runs the five asks on w, whose model is m.
func askScenario(t *testing.T, w *ws, m *testModel, model string) {

	// 1. The code.
	code := w.ask("write a Python function that parses a TOML config")
	if code.Status != lunad.AskDone || len(code.Changes) != 1 || !code.Changes[0].Created || code.Changes[0].Path != "src/config.py" ||
		code.Changes[0].Worker != "coder" || code.Changes[0].Added != strings.Count(configCode, "\n") || !slices.Equal(code.Workers, []string{"coder"}) {
		t.Fatalf("ask 1: %+v", code)
	}
	codeID := code.Changes[0].ID
	if got := w.ok("show", "src/config.py"); got != configCode {
		t.Fatalf("src/config.py:\n%s", got)
	}

	// 2. The article, with the code as a read-only dependency.
	article := w.ask("write an article explaining it")
	if article.Status != lunad.AskDone || article.Route == nil || article.Route.Worker != "writer" || !slices.Equal(article.Route.ReadDeps, []string{codeID}) ||
		len(article.Changes) != 1 || article.Changes[0].Path != "docs/config.md" || !article.Changes[0].Created || article.Changes[0].Worker != "writer" {
		t.Fatalf("ask 2: %+v (route %+v)", article, article.Route)
	}
	articleID := article.Changes[0].ID
	writer := m.requests("writer")
	if len(writer) == 0 {
		for _, s := range m.Seen {
			t.Logf("seen %s %q: %.200q", s.Role, s.Format, s.System)
		}
		t.Fatal("the writer's model was not called")
	}
	if !strings.Contains(writer[0].Turns[0].Text, `id="`+codeID+`"`) || !strings.Contains(writer[0].Turns[0].Text, `mode="read_only"`) {
		t.Fatalf("the writer's first request does not carry the code read-only:\n%s", writer[0].Turns[0].Text)
	}

	// 3. An edit of the article's second paragraph, never of the code.
	para := w.ask("change the second paragraph to mention JSON", "--artifact", "docs/config.md")
	if para.Status != lunad.AskDone || len(para.Changes) != 1 || para.Changes[0].ID != articleID || para.Changes[0].Version != 2 || para.Changes[0].Worker != "writer" {
		t.Fatalf("ask 3: %+v", para)
	}
	if got := w.ok("show", "docs/config.md"); !strings.Contains(got, "and a JSON file through the json module works the same way.") || strings.Count(got, "JSON") != 1 {
		t.Fatalf("docs/config.md after ask 3:\n%s", got)
	}

	// 4. A rename in the code, reporting the article stale.
	rename := w.ask("rename parse_config to load_config")
	if rename.Status != lunad.AskDone || len(rename.Changes) != 1 || rename.Changes[0].ID != codeID || rename.Changes[0].Worker != "coder" ||
		rename.Changes[0].Added != 1 || rename.Changes[0].Removed != 1 {
		t.Fatalf("ask 4: %+v", rename)
	}
	if len(rename.Stale) != 1 || rename.Stale[0].ID != articleID || !slices.Contains(rename.Stale[0].Symbols, "parse_config") {
		t.Logf("stale: %s\nrefs: %s\narticle:\n%s", w.run("stale").stdout, w.run("refs", "docs/config.md").stdout, w.ok("show", "docs/config.md"))
		t.Fatalf("ask 4 reports stale %+v, want the article about parse_config", rename.Stale)
	}

	// 5. The stale docs, fixed by the writer.
	docs := w.ask("update the stale docs")
	if docs.Status != lunad.AskDone || len(docs.Changes) != 1 || docs.Changes[0].ID != articleID || docs.Changes[0].Worker != "writer" || len(docs.Stale) != 0 {
		t.Fatalf("ask 5: %+v", docs)
	}
	if got := w.ok("show", "docs/config.md"); strings.Contains(got, "parse_config") || strings.Count(got, "`load_config`") != 2 {
		t.Fatalf("docs/config.md after ask 5:\n%s", got)
	}

	// What each role was sent.
	coderPrompt, writerPrompt := m.requests("coder")[0].System, m.requests("writer")[0].System
	checkPrompts(t, m, "writer", coderPrompt, []string{"read_artifact", "list_artifacts", "find_references", "edit_artifact", "create_artifact", "rewrite_artifact", "handoff", "finish"})
	checkPrompts(t, m, "coder", writerPrompt, []string{"read_artifact", "list_artifacts", "find_references", "edit_artifact", "create_artifact", "rewrite_artifact", "handoff", "finish"})
	sup := m.requests("supervisor")
	if len(sup) != 5 {
		t.Fatalf("the supervisor was asked %d times, want 5", len(sup))
	}
	for _, s := range sup {
		// Anthropic's structured output is the one tool the answer is
		// forced through; no other tool is offered.
		if tools := strings.Join(s.Tools, ","); s.Format != "route" || (tools != "" && tools != "route") || strings.Contains(s.Turns[0].Text, "tomllib") || strings.Contains(s.Turns[0].Text, "<artifact") {
			t.Fatalf("the supervisor's request (format %q, tools %v) is not metadata only:\n%s", s.Format, s.Tools, s.Turns[0].Text)
		}
	}

	// git log: the authors and the trailers of each agent's commit.
	for _, c := range []struct {
		path   string
		agents []string
		runs   []string
	}{
		{"src/config.py", []string{"coder", "coder"}, []string{rename.Run, code.Run}},
		{"docs/config.md", []string{"writer", "writer", "writer"}, []string{docs.Run, para.Run, article.Run}},
	} {
		log := strings.Split(strings.TrimSpace(w.git("log", "--format=%an <%ae>|%(trailers:key=Luna-Run,valueonly,separator=)|%(trailers:key=Luna-Stage,valueonly,separator=)|%(trailers:key=Luna-Model,valueonly,separator=)|%(trailers:key=Luna-Prompt,valueonly,separator=)", "--", c.path)), "\n")
		if len(log) != len(c.agents) {
			t.Fatalf("git log %s:\n%s", c.path, strings.Join(log, "\n"))
		}
		for i, line := range log {
			f := strings.Split(line, "|")
			role := c.agents[i]
			if f[0] != role+" <"+role+"@agents.lunad>" || f[1] != c.runs[i] || f[2] != role || f[3] != model || !strings.HasPrefix(f[4], role+"@") {
				t.Errorf("git log %s, commit %d: %q, want author %s, run %s, stage %s, model %s, prompt %s@…", c.path, i, line, role, c.runs[i], role, model, role)
			}
		}
	}

	// Replay: the same path and tree from each run's log.
	for _, r := range []lunad.AskResult{code, article, para, rename, docs} {
		var rep lunad.ReplayReport
		w.jsonOut(&rep, "run", "replay", r.Run)
		if !rep.Identical || !slices.Equal(rep.Path, rep.ReplayPath) || rep.Tree != rep.ReplayTree {
			t.Errorf("replay of %s: %+v", r.Run, rep)
		}
	}
}

// checkPrompts checks every request of role: its own system prompt, no
// line of other's, and the tools it was offered.
func checkPrompts(t *testing.T, m *testModel, role, other string, tools []string) {
	t.Helper()
	for _, s := range m.requests(role) {
		if !strings.HasPrefix(s.System, "You are the "+role+" of") {
			t.Fatalf("the %s's system prompt:\n%s", role, s.System)
		}
		for _, l := range strings.Split(other, "\n") {
			if strings.TrimSpace(l) != "" && strings.Contains(s.System, l) {
				t.Fatalf("the %s's system prompt carries another role's line %q:\n%s", role, l, s.System)
			}
		}
		if !slices.Equal(s.Tools, tools) {
			t.Fatalf("the %s was offered %v, want %v", role, s.Tools, tools)
		}
	}
}

// askFail runs lunad ask, which must exit 1 with the progress on stderr
// and then the error, which mentions want.
func (w *ws) askFail(want string, args ...string) result {
	w.t.Helper()
	r := w.run(append([]string{"ask"}, args...)...)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-1]
	if r.code != 1 || !strings.HasPrefix(last, "lunad: ") || !strings.Contains(last, want) {
		w.t.Fatalf("want exit 1 and an error mentioning %q:\n%s", want, r)
	}
	return r
}

// TestAskBadInput: each way an ask can go wrong ends cleanly, says what to
// do, and writes nothing.
func TestAskBadInput(t *testing.T) {
	const request = "write a Python function that parses a TOML config"
	for _, tc := range []struct {
		name      string
		key       string // the key the server accepts
		misbehave string
		down      bool // nothing listens at the base URL
		want      string
		check     func(t *testing.T, w *ws, m *testModel, r result)
	}{
		{name: "wrong key", key: "sk-other-key",
			want: "HTTP 401 Unauthorized: Incorrect API key provided. (the API key was refused: check the key in the environment variable OPENAI_API_KEY",
			check: func(t *testing.T, w *ws, m *testModel, r result) {
				if strings.Contains(r.stderr, scenarioKey) || strings.Contains(r.stdout, scenarioKey) {
					t.Fatalf("the key is in the output:\n%s", r)
				}
				if n := m.count(); n != 1 {
					t.Fatalf("the model server got %d requests, want 1 (a 401 is not retried)", n)
				}
				if log := w.git("log", "--all", "-p"); strings.Contains(log, scenarioKey) {
					t.Fatal("the key is in the repository (a run's log or a commit)")
				}
			}},
		// Every attempt passes the run's memory: the fifth failed
		// connection opens the breaker, and the ask ends with it and
		// its cause instead of waiting for a sixth.
		{name: "provider down", down: true, want: "provider openai failed 5 times in a row; its circuit breaker is open until",
			check: func(t *testing.T, w *ws, m *testModel, r result) {
				if !strings.Contains(r.stderr, "(the last failure: openai: cannot reach the server: Post \"http://127.0.0.1:") {
					t.Fatalf("the breaker's refusal does not say why the provider failed:\n%s", r)
				}
			}},
		{name: "invalid JSON", misbehave: "invalid_json", want: "the agents need a more precise request, nothing was written",
			check: func(t *testing.T, w *ws, m *testModel, r result) {
				sup := m.requests("supervisor")
				if len(sup) != 2 {
					t.Fatalf("the supervisor was asked %d times, want 2 (one retry carrying the error):\n%s", len(sup), r)
				}
				if retry := sup[1].Turns; len(retry) < 3 || !strings.Contains(retry[len(retry)-1].Text, "That route is invalid") {
					t.Fatalf("the retry does not carry the validation error: %+v", retry)
				}
			}},
		{name: "unknown tool", misbehave: "unknown_tool", want: "is stalled (repeat_error): it called delete_everything",
			check: func(t *testing.T, w *ws, m *testModel, r result) {
				if out := w.ok("list"); strings.Contains(out, "config.py") {
					t.Fatalf("an artifact was created:\n%s", out)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &testModel{Key: scenarioKey, Misbehave: tc.misbehave}
			if tc.key != "" {
				m.Key = tc.key
			}
			srv := openAIServer(t, m)
			if tc.down {
				srv.Close()
			}
			w := askWS(t, "openai", srv.URL+"/v1", "gpt-test")
			before := w.git("rev-list", "--count", "HEAD")
			r := w.askFail(tc.want, request)
			if after := w.git("rev-list", "--count", "HEAD"); after != before {
				t.Fatalf("commits %s → %s", before, after)
			}
			if tc.check != nil {
				tc.check(t, w, m, r)
			}
		})
	}
}

var transcript = flag.String("transcript", "", "TestAskTranscript: write the session's terminal output to this file (docs/agents.md quotes it)")

// TestAskTranscript runs the scenario as a person would — lunad ask
// without --json — and checks what the terminal shows: the progress on
// stderr, then what was done. With -transcript FILE it writes the session
// to FILE.
func TestAskTranscript(t *testing.T) {
	m := &testModel{Key: scenarioKey}
	srv := openAIServer(t, m)
	w := askWS(t, "openai", srv.URL+"/v1", "gpt-test")
	var session strings.Builder
	for _, a := range [][]string{
		{"write a Python function that parses a TOML config"},
		{"write an article explaining it"},
		{"change the second paragraph to mention JSON", "--artifact", "docs/config.md"},
		{"rename parse_config to load_config"},
		{"update the stale docs"},
	} {
		r := w.run(append([]string{"ask"}, a...)...)
		if r.code != 0 || !strings.Contains(r.stderr, ": started\n") || !strings.Contains(r.stderr, "  completed\n") || !strings.Contains(r.stdout, ": done (") ||
			!strings.Contains(r.stdout, "\ntokens: ") {
			t.Fatalf("lunad ask %q:\n%s", a, r)
		}
		args := fmt.Sprintf("%q", a[0])
		if len(a) > 1 {
			args += " " + strings.Join(a[1:], " ")
		}
		fmt.Fprintf(&session, "$ lunad ask %s\n%s%s\n", args, r.stderr, r.stdout)
	}
	const format = "%an | %(trailers:key=Luna-Stage,valueonly,separator=) | %(trailers:key=Luna-Model,valueonly,separator=) | %(trailers:key=Luna-Prompt,valueonly,separator=) | %s"
	fmt.Fprintf(&session, "$ git log --format='%s' -- src/config.py docs/config.md\n%s", format, w.git("log", "--format="+format, "--", "src/config.py", "docs/config.md"))
	out := session.String()
	for _, want := range []string{"created src/config.py", "created docs/config.md", "edited  docs/config.md", "edited  src/config.py",
		"stale now:\n  docs/config.md", "refers to parse_config", `update them with: lunad ask "update the stale docs"`,
		"writer | writer | gpt-test | writer@", "coder | coder | gpt-test | coder@"} {
		if !strings.Contains(out, want) {
			t.Errorf("the session lacks %q:\n%s", want, out)
		}
	}
	if *transcript != "" {
		if err := os.WriteFile(*transcript, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAskDryRun: --dry-run shows the route and the compiled prompts, calls
// no worker's model and writes nothing.
func TestAskDryRun(t *testing.T) {
	m := &testModel{Key: scenarioKey}
	srv := openAIServer(t, m)
	w := askWS(t, "openai", srv.URL+"/v1", "gpt-test")
	before := w.git("rev-list", "--count", "HEAD")
	r := w.run("ask", "write a Python function that parses a TOML config", "--dry-run")
	if r.code != 0 {
		t.Fatalf("want success:\n%s", r)
	}
	for _, want := range []string{": dry_run", "route: create → coder", "--- prompt of the coder (coder@", "[system]\nYou are the coder of",
		"[user]\nRequest: write a Python function that parses a TOML config", "tools: read_artifact, list_artifacts, find_references, edit_artifact"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the dry run's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if n := len(m.requests("coder")); n != 0 {
		t.Fatalf("the coder's model was called %d times in a dry run", n)
	}
	if after := w.git("rev-list", "--count", "HEAD"); after != before {
		t.Fatalf("commits %s → %s", before, after)
	}
}
