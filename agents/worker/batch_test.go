package worker_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/memory"
	"github.com/lunad/lunad/agents/tools"
	"github.com/lunad/lunad/agents/worker"
)

// calls is one answer of several tool calls, in order.
func calls(cs ...llm.ToolCall) func(llm.Request) (llm.Response, error) {
	return func(llm.Request) (llm.Response, error) {
		return llm.Response{Model: "m1", Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}, StopReason: llm.StopToolCalls,
			Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: cs}}, nil
	}
}

func call(id, name string, args any) llm.ToolCall {
	b, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Name: name, Arguments: b}
}

// TestSeveralCallsInOneAnswer: the rule of several tool calls in one
// answer — in order, nothing after finish (or handoff) runs, the skipped
// calls are reported, and an answer that finishes is not a stall.
func TestSeveralCallsInOneAnswer(t *testing.T) {
	ctx := context.Background()
	t.Run("nothing after finish runs", func(t *testing.T) {
		e := newEnv(t, memory.Options{})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){calls(
			call("c1", tools.EditArtifact, edit(e.prose, "Second paragraph.\n", "Second paragraph, on JSON.\n")),
			call("c2", tools.Finish, map[string]string{"summary": "mentioned JSON"}),
			call("c3", tools.CreateArtifact, map[string]string{"title": "q", "path": "q.md", "content": "q\n"}),
			call("c4", tools.EditArtifact, edit(e.prose, "First paragraph.\n", "Intro.\n")),
		)}}
		out, err := worker.Run(ctx, e.options(t, tools.Writer, e.prose, p), worker.Task{Request: "mention JSON"})
		if err != nil || out.Status != worker.Finished || out.Summary != "mentioned JSON" {
			t.Fatalf("%+v %v", out, err)
		}
		if w := e.ov.Writes(); len(w) != 1 || w[0].Content != "# Config\n\nFirst paragraph.\n\nSecond paragraph, on JSON.\n" {
			t.Errorf("writes %+v", w)
		}
		want := []string{`create_artifact {"content":"q\n","path":"q.md","title":"q"}`,
			`edit_artifact {"blocks":[{"replace":"Intro.\n","search":"First paragraph.\n"}],"id":"` + e.prose + `"}`}
		if !slices.Equal(out.Skipped, want) {
			t.Errorf("skipped %q\nwant    %q", out.Skipped, want)
		}
	})
	t.Run("an answer that finishes is not a stall", func(t *testing.T) {
		e := newEnv(t, memory.Options{})
		read := call("r", tools.ReadArtifact, map[string]string{"id": e.code})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){
			calls(read, read, read, read, call("f", tools.Finish, map[string]string{"summary": "read it"})),
		}}
		out, _ := worker.Run(ctx, e.options(t, tools.Coder, e.code, p), worker.Task{Request: "r"})
		if out.Status != worker.Finished || out.Summary != "read it" {
			t.Fatalf("%+v", out)
		}
	})
	t.Run("without finish the same answer stalls", func(t *testing.T) {
		e := newEnv(t, memory.Options{})
		read := call("r", tools.ReadArtifact, map[string]string{"id": e.code})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){calls(read, read, read, read)}}
		out, _ := worker.Run(ctx, e.options(t, tools.Coder, e.code, p), worker.Task{Request: "r"})
		if out.Status != worker.Stopped || !strings.Contains(out.Reason, "stalled (repeat)") {
			t.Fatalf("%+v", out)
		}
	})
	t.Run("a refused finish goes on, and the model is told what did not run", func(t *testing.T) {
		e := newEnv(t, memory.Options{})
		p := &script{name: "primary", turns: []func(llm.Request) (llm.Response, error){
			calls(call("f", tools.Finish, map[string]string{}), call("l", tools.ListArtifacts, map[string]string{})),
			tool(tools.Finish, map[string]string{"summary": "done"}),
		}}
		out, _ := worker.Run(ctx, e.options(t, tools.Coder, e.code, p), worker.Task{Request: "r"})
		if out.Status != worker.Finished || len(p.reqs) != 2 {
			t.Fatalf("%+v after %d calls", out, len(p.reqs))
		}
		m := p.reqs[1].Messages
		last := m[len(m)-1]
		if last.ToolCallID != "l" || !last.IsError || last.Content != "not run: it came after finish in the same answer, and nothing after finish or handoff in one answer runs; call it again in a new answer if it is still needed" {
			t.Errorf("the skipped call's result: %+v", last)
		}
		if first := m[len(m)-2]; first.ToolCallID != "f" || !first.IsError {
			t.Errorf("the refused finish's result: %+v", first)
		}
	})
}
