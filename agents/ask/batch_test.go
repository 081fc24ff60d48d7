package ask_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/internal/wstest"
)

// recordedBody is the body of a recorded llama-server answer (the
// provider's fixture: "#" lines, status line and header, blank line, body).
func recordedBody(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		_, body, ok = bytes.Cut(raw, []byte("\n\n"))
	}
	if !ok {
		t.Fatalf("%s has no body", path)
	}
	return string(body)
}

// TestNothingRunsAfterFinish: a writer's answer of several tool calls —
// edit, finish, create, read, create, as llama-server sent it — edits and
// finishes; the three calls after finish do not run (nothing created,
// nothing committed) and the stage's output names them.
func TestNothingRunsAfterFinish(t *testing.T) {
	s := newRawChatServer(t,
		completionBody(t, 0, route(lunad.AskRoute{Intent: "edit", Worker: "writer", Target: ptr("notes.md"), Reason: "prose"})(llm.Request{})),
		recordedBody(t, "../llm/openai/testdata/llamacpp_tool_calls.http"))
	e := newEnv(t, memory.Options{}, 0, s.provider(t))
	wstest.Create(t, e.s, "notes.md", "# Notes\n\nfirst\n")
	info, res := e.ask("edit the notes", "", false)
	if info.Status != lunad.RunCompleted || res.Status != lunad.AskDone || res.Summary != "edited the notes" {
		t.Fatalf("status %s, result %+v", info.Status, res)
	}
	var paths []string
	for _, c := range res.Changes {
		paths = append(paths, c.Path)
	}
	if !slices.Equal(paths, []string{"notes.md"}) {
		t.Errorf("changes %v, want notes.md alone", paths)
	}
	files := wstest.GitRun(t, e.s.Root(), "ls-tree", "--name-only", "HEAD", "notes.md", "q.md", "r.md")
	if files != "notes.md\n" {
		t.Errorf("the workspace's files of the answer:\n%s", files)
	}
	if got := wstest.GitRun(t, e.s.Root(), "show", "HEAD:notes.md"); got != "# Notes\n\nsecond\n" {
		t.Errorf("notes.md is %q", got)
	}
	for _, st := range info.Stages {
		if st.Stage != "writer" {
			continue
		}
		var out struct {
			Skipped []string `json:"skipped"`
		}
		if err := json.Unmarshal(st.Output, &out); err != nil {
			t.Fatal(err)
		}
		want := []string{
			`create_artifact {"content":"q\n","path":"q.md","title":"q"}`,
			`read_artifact {"id":"q.md"}`,
			`create_artifact {"content":"r\n","path":"r.md","title":"r"}`,
		}
		if !slices.Equal(out.Skipped, want) {
			t.Errorf("skipped %q\nwant    %q", out.Skipped, want)
		}
	}
}

// TestCutAnswer: a writer's answer that llama-server cut at max_tokens,
// its tool call's arguments a prefix, fails the ask with the one message
// that names the setting — not as a tool call with invalid JSON — and is
// not asked again.
func TestCutAnswer(t *testing.T) {
	s := newRawChatServer(t,
		completionBody(t, 0, route(lunad.AskRoute{Intent: "create", Worker: "writer", NewArtifact: &lunad.NewArtifact{Title: "Notes", Type: "text/markdown", Path: "notes.md"}, Reason: "prose"})(llm.Request{})),
		recordedBody(t, "../llm/openai/testdata/llamacpp_cut.http"))
	e := newEnv(t, memory.Options{}, 0, s.provider(t))
	info, res := e.ask("write notes", "", false)
	if want := "openai: the model's answer was cut at max_tokens (4096): raise [llm] max_tokens"; res.Status != lunad.AskFailed || res.Reason != want {
		t.Errorf("status %s (run %s), reason %q; want failed, %q", res.Status, info.Status, res.Reason, want)
	}
	if s.count() != 2 {
		t.Errorf("%d model calls, want 2: a cut answer is not retried", s.count())
	}
}
