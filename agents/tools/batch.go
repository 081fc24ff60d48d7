package tools

import (
	"fmt"

	"github.com/lunad/lunad/agents/llm"
)

// Batch splits the tool calls of one answer by the rule of several calls
// in one answer: they run in order up to and including the first finish
// or handoff, which ends the worker's turn; the calls after it do not run
// (skipped), whatever they are. control says the answer holds a finish or
// a handoff.
func Batch(calls []llm.ToolCall) (run, skipped []llm.ToolCall, control bool) {
	for i, c := range calls {
		if c.Name == Finish || c.Name == Handoff {
			return calls[:i+1], calls[i+1:], true
		}
	}
	return calls, nil, false
}

// Skipped is the tool result of a call Batch skipped, after the control
// call named ender: what the model is told if its turn goes on (a finish
// that was refused).
func Skipped(ender string) Result {
	return Result{IsError: true, Content: fmt.Sprintf("not run: it came after %s in the same answer, and nothing after %s or handoff in one answer runs; call it again in a new answer if it is still needed", ender, Finish)}
}
