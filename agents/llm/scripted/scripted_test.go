package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/scripted"
)

const demo = `# the multi-artifact demo, abridged
{"when_system": "You route", "when": "Python function", "json": {"intent": "create", "worker": "coder"}}
{"when_system": "You are the coder", "tool_calls": [{"id": "c1", "name": "create_artifact", "arguments": {"title": "config parser"}}], "usage": {"input_tokens": 30, "output_tokens": 12}}
{"when_system": "You are the coder", "when_role": "tool", "content": "Created.", "model": "demo-model"}

{"when": "fail", "error": {"kind": "transient", "status": 429, "message": "rate limited"}}
{"when": "ping", "repeat": true, "content": "pong"}
`

func chat(t *testing.T, p llm.Provider, system string, msgs ...llm.Message) (llm.Response, error) {
	t.Helper()
	return p.Chat(context.Background(), llm.Request{System: system, Messages: msgs})
}

func user(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

func TestScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.jsonl")
	if err := os.WriteFile(path, []byte(demo), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := scripted.New(llm.Config{Provider: "scripted", Script: path})
	if err != nil {
		t.Fatal(err)
	}
	// The coder's entries do not answer the supervisor, whatever their order.
	resp, err := chat(t, p, "You route requests.", user("write a Python function that parses TOML"))
	if err != nil || resp.Message.Content != `{"intent":"create","worker":"coder"}` || resp.StopReason != llm.StopEnd || resp.Model != "scripted" {
		t.Fatalf("supervisor: %+v %v", resp, err)
	}
	// The coder's second entry waits for a tool result.
	resp, err = chat(t, p, "You are the coder.", user("write it"))
	if err != nil || resp.StopReason != llm.StopToolCalls || resp.Message.ToolCalls[0].Name != "create_artifact" ||
		string(resp.Message.ToolCalls[0].Arguments) != `{"title":"config parser"}` || resp.Usage.OutputTokens != 12 {
		t.Fatalf("coder: %+v %v", resp, err)
	}
	resp, err = chat(t, p, "You are the coder.", user("write it"), resp.Message, llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Content: "ok"})
	if err != nil || resp.Message.Content != "Created." || resp.Model != "demo-model" {
		t.Fatalf("coder after the tool: %+v %v", resp, err)
	}
	_, err = chat(t, p, "", user("please fail"))
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Transient || e.Status != 429 || !strings.Contains(err.Error(), "rate limited") {
		t.Fatalf("scripted failure: %v", err)
	}
	for range 3 {
		if resp, err := chat(t, p, "", user("ping")); err != nil || resp.Message.Content != "pong" {
			t.Fatalf("repeat: %+v %v", resp, err)
		}
	}
	if p.Remaining() != 0 {
		t.Errorf("remaining %d", p.Remaining())
	}
	_, err = chat(t, p, "You are the coder.", user("one more thing"))
	if !errors.As(err, &e) || e.Kind != llm.Permanent || e.Setting != "[llm] script" ||
		!strings.Contains(err.Error(), `has no response left for call 8 (last message: user "one more thing")`) {
		t.Fatalf("ran out: %v", err)
	}
}

func TestInOrderWithoutConditions(t *testing.T) {
	entries, err := scripted.Parse([]byte(`[{"content": "one"}, {"content": "two"}]`))
	if err != nil {
		t.Fatal(err)
	}
	p := scripted.FromEntries("inline", entries)
	for _, want := range []string{"one", "two"} {
		if resp, err := chat(t, p, "", user("x")); err != nil || resp.Message.Content != want {
			t.Fatalf("got %+v %v, want %s", resp, err, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"unknown field", `{"contents": "typo"}`, `script line 1: json: unknown field "contents"`},
		{"bad line number", "# c\n{\"content\":\"a\"}\n{\"content\":", "script line 3"},
		{"array entry", `[{"content":"a"}, {"stop_reason":"done"}]`, `script entry [1]: stop_reason "done"`},
		{"not an array", `[1, 2`, "not a JSON array"},
		{"content and json", `{"content":"a","json":{}}`, "exclusive"},
		{"tool call without id", `{"tool_calls":[{"name":"f"}]}`, "id and name are required"},
		{"bad role", `{"when_role":"system"}`, `when_role "system"`},
		{"bad error kind", `{"error":{"kind":"fatal","message":"x"}}`, `error.kind "fatal"`},
		{"two values on a line", `{"content":"a"} {"content":"b"}`, "more than one JSON value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := scripted.Parse([]byte(c.in))
			if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Parse = %v, want ErrInvalid containing %q", err, c.want)
			}
		})
	}
	if _, err := scripted.New(llm.Config{Provider: "scripted", Script: filepath.Join(t.TempDir(), "missing.jsonl")}); err == nil || !strings.Contains(err.Error(), "[llm] script") {
		t.Errorf("missing file: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{demo, `[{"content":"a"},{"json":[1,2]}]`, `{"tool_calls":[{"id":"1","name":"f","arguments_text":"{bad"}]}`, "#\n\n", `[`, `{"error":{"kind":"auth","message":"no"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := scripted.Parse(data)
		if err != nil {
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		// Every accepted entry can be served, and round-trips as JSON lines.
		p := scripted.FromEntries("fuzz", entries)
		var lines []string
		for range entries {
			resp, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: ""}}})
			if err != nil && llm.KindOf(err) == "" {
				t.Fatalf("untyped error %v", err)
			}
			if err == nil && (resp.Message.Role != llm.RoleAssistant || resp.StopReason == "") {
				t.Fatalf("served %+v", resp)
			}
		}
		for _, e := range entries {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatalf("accepted entry does not marshal: %v", err)
			}
			lines = append(lines, string(b))
		}
		again, err := scripted.Parse([]byte(strings.Join(lines, "\n")))
		if err != nil || len(again) != len(entries) {
			t.Fatalf("round trip: %d entries, %v", len(again), err)
		}
	})
}

// TestScriptTooLarge attacks New with a script file far larger than
// 16 × [llm] max_response (it may be a workspace file): refused, naming
// the setting, without reading it whole.
func TestScriptTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // a sparse 1 GiB file
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = scripted.New(llm.Config{Provider: "scripted", Script: path, MaxResponse: 64 << 10})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "larger than 1MiB") || !strings.Contains(err.Error(), "[llm] max_response") {
		t.Fatalf("err = %v, want one naming 1MiB and [llm] max_response", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("New allocated %d MiB", alloc>>20)
	}
}
