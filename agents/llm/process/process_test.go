package process_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/llm/internal/llmtest"
	"github.com/lunad/lunad/agents/llm/process"
)

// script writes a shell script and returns a provider running it.
func script(t *testing.T, body string, timeout time.Duration) (*process.Provider, string) {
	t.Helper()
	return scriptWith(t, body, func(cfg *llm.Config) { cfg.Timeout = timeout })
}

// scriptWith is script with the configuration changed by mod.
func scriptWith(t *testing.T, body string, mod func(*llm.Config)) (*process.Provider, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "model.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := llm.Config{Provider: "process", Command: []string{"/bin/sh", path, dir}, Model: "local-7b"}
	mod(&cfg)
	p, err := process.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, dir
}

var req = llm.Request{System: "be brief", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}

func TestChat(t *testing.T) {
	p, dir := script(t, `cat > "$1/request.json"
echo '{"message":{"content":"hello","tool_calls":[{"id":"c1","name":"finish","arguments":{"summary":"done"}}]},"usage":{"input_tokens":4,"output_tokens":2}}'
`, 0)
	resp, err := p.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "hello",
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "finish", Arguments: json.RawMessage(`{"summary":"done"}`)}}},
		Usage: llm.Usage{InputTokens: 4, OutputTokens: 2}, Model: "process", StopReason: llm.StopToolCalls}
	if g, w := llmtest.JSON(t, resp), llmtest.JSON(t, want); g != w {
		t.Errorf("response\n got %s\nwant %s", g, w)
	}
	sent, err := os.ReadFile(filepath.Join(dir, "request.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got llm.Request
	if err := json.Unmarshal(sent, &got); err != nil || got.Model != "local-7b" || got.System != "be brief" || got.Messages[0].Content != "hi" {
		t.Errorf("stdin carried %s (%v)", sent, err)
	}
}

func TestFailures(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		kind     llm.ErrorKind
		contains string
	}{
		{"non-zero exit quotes stderr", "echo 'model file missing: /models/x.gguf' >&2\nexit 3\n", llm.Permanent, "exit status 3; stderr: model file missing: /models/x.gguf"},
		{"EX_TEMPFAIL is transient", "echo busy >&2\nexit 75\n", llm.Transient, "exit status 75"},
		{"garbage on stdout", "echo 'Loading model... done'\n", llm.Permanent, "invalid response on stdout"},
		{"nothing on stdout", "exit 0\n", llm.Permanent, "nothing was printed"},
		{"two objects", "echo '{\"message\":{}} {\"message\":{}}'\n", llm.Permanent, "more than one JSON value"},
		{"long stderr keeps its tail", "i=0; while [ $i -lt 400 ]; do echo \"line $i of the log\" >&2; i=$((i+1)); done; exit 1\n", llm.Permanent, "line 399 of the log"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _ := script(t, "cat >/dev/null\n"+c.body, 0)
			_, err := p.Chat(context.Background(), req)
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != c.kind || e.Setting != "[llm] command" {
				t.Fatalf("err = %v, want %s naming [llm] command", err, c.kind)
			}
			if !strings.Contains(err.Error(), c.contains) {
				t.Errorf("error %q does not contain %q", err, c.contains)
			}
			if len(err.Error()) > 3000 {
				t.Errorf("error of %d bytes: stderr is not bounded", len(err.Error()))
			}
		})
	}
	_, err := process.New(llm.Config{Provider: "process"})
	if err == nil || !strings.Contains(err.Error(), "[llm] command") {
		t.Errorf("New without a command: %v", err)
	}
	p, err := process.New(llm.Config{Provider: "process", Command: []string{"/nonexistent/model-bridge"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), req)
	if llm.KindOf(err) != llm.Permanent || !strings.Contains(err.Error(), "cannot run") || !strings.Contains(err.Error(), "[llm] command") {
		t.Errorf("missing command: %v", err)
	}
}

// TestTimeoutKillsTheGroup: a command that hangs, with a child of its
// own, is killed with its child at the timeout.
func TestTimeoutKillsTheGroup(t *testing.T) {
	p, dir := script(t, `sleep 300 &
echo $! > "$1/child.pid"
cat >/dev/null
wait
`, 300*time.Millisecond)
	_, err := p.Chat(context.Background(), req)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Transient || e.Setting != "[llm] timeout" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a transient timeout naming [llm] timeout", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL was sent to the group before Chat returned; the child is
	// gone or a zombie once the kernel has delivered it.
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the command's child %d survived the timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs (neither gone nor a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil && !procMounted()
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

func TestCancel(t *testing.T) {
	p, _ := script(t, "cat >/dev/null\nsleep 300\n", 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Chat(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestDecode(t *testing.T) {
	cases := []struct {
		name, in, err string
		stop          llm.StopReason
	}{
		{"minimal", `{"message":{"content":"x"}}`, "", llm.StopEnd},
		{"tool calls", `{"message":{"tool_calls":[{"id":"1","name":"f","arguments":{}}]}}`, "", llm.StopToolCalls},
		{"explicit stop", `{"message":{"content":"x"},"stop_reason":"max_tokens"}`, "", llm.StopMaxTokens},
		{"trailing space", "{\"message\":{}}\n\n", "", llm.StopEnd},
		{"unknown field", `{"message":{"content":"x"},"choices":[]}`, `unknown field "choices"`, ""},
		{"bad role", `{"message":{"role":"user"}}`, "role is assistant", ""},
		{"tool call without id", `{"message":{"tool_calls":[{"name":"f"}]}}`, "id and name are required", ""},
		{"bad stop", `{"message":{},"stop_reason":"done"}`, `stop_reason "done"`, ""},
		{"negative usage", `{"message":{},"usage":{"input_tokens":-1}}`, "negative", ""},
		{"tool result fields", `{"message":{"tool_call_id":"x"}}`, "belong to tool results", ""},
		{"array", `[]`, "cannot unmarshal", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := process.Decode([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Decode = %v, want error containing %q", err, c.err)
				}
				return
			}
			if err != nil || resp.StopReason != c.stop || resp.Message.Role != llm.RoleAssistant {
				t.Fatalf("Decode = %+v, %v", resp, err)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"message":{"content":"x"}}`, `{"message":{"tool_calls":[{"id":"1","name":"f","arguments":{"a":1}}]},"usage":{"input_tokens":3}}`,
		`{"message":{"tool_calls":[{"id":"1","name":"f","arguments_text":"{bad"}]}}`, `garbage`, ``, `{"message":{}} x`, `{"stop_reason":"other"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		resp, err := process.Decode(b)
		if err != nil {
			return
		}
		if resp.Message.Role != llm.RoleAssistant || resp.StopReason == "" {
			t.Fatalf("accepted %q as %+v", b, resp)
		}
		// What is accepted survives the trip through the recorder's JSON.
		out, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("accepted %q but cannot marshal it: %v", b, err)
		}
		again, err := process.Decode(out)
		if err != nil || mustJSONf(again) != string(out) {
			t.Fatalf("round trip of %q: %s → %v %v", b, out, again, err)
		}
	})
}

func mustJSONf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
