package goal

import (
	"encoding/json"

	"github.com/lunad/lunad/agents/llm"
)

// The goal's tools (a contract: the trace's action names, the Luna-Action
// trailer, the policy's Action.Tool).
const (
	ToolRead   = "read_artifact"
	ToolSearch = "search"
	ToolEdit   = "edit_artifact"
	ToolPatch  = "apply_patch"
	ToolWrite  = "write_file"
	ToolRun    = "run_command"
	ToolTests  = "run_tests"
	ToolFinish = "finish"
)

// Tools are the tools the model is offered, in the order offered.
func Tools() []llm.Tool { return append([]llm.Tool(nil), toolList...) }

var toolList = []llm.Tool{
	tool(ToolRead, "Read a file of the workspace with line numbers (at most 400 lines a call: page with start_line and end_line), or list a directory.",
		`{"type":"object","properties":{"path":{"type":"string","description":"relative to the workspace root"},"start_line":{"type":"integer","minimum":1},"end_line":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`),
	tool(ToolSearch, `Search the workspace: kind "text" finds lines containing query (case-insensitive) in its files; kind "symbol" finds definitions (functions, types, headings) whose name contains query.`,
		`{"type":"object","properties":{"query":{"type":"string"},"kind":{"type":"string","enum":["text","symbol"]}},"required":["query","kind"],"additionalProperties":false}`),
	tool(ToolEdit, "Change a file with SEARCH/REPLACE blocks: each search is whole lines copied exactly from the file (without line numbers) matching one place; replace is the new text.",
		`{"type":"object","properties":{"path":{"type":"string"},"blocks":{"type":"array","minItems":1,"items":{"type":"object","properties":{"search":{"type":"string"},"replace":{"type":"string"}},"required":["search","replace"],"additionalProperties":false}}},"required":["path","blocks"],"additionalProperties":false}`),
	tool(ToolPatch, "Apply a unified diff to one or more files (--- a/PATH, +++ b/PATH, @@ hunks; --- /dev/null creates a file). Every hunk is checked first: the patch applies whole or not at all.",
		`{"type":"object","properties":{"patch":{"type":"string"}},"required":["patch"],"additionalProperties":false}`),
	tool(ToolWrite, "Write a whole file: a new one, or the fallback when an edit does not fit.",
		`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`),
	tool(ToolRun, "Run a program with its arguments (no shell) in cwd, a directory of the workspace (default its root), in a sandbox without network. Files it changes are committed like edits.",
		`{"type":"object","properties":{"argv":{"type":"array","minItems":1,"items":{"type":"string"}},"cwd":{"type":"string"}},"required":["argv"],"additionalProperties":false}`),
	tool(ToolTests, "Run the workspace's configured tests and see their result (they also run by themselves after every change).",
		`{"type":"object","properties":{},"additionalProperties":false}`),
	tool(ToolFinish, "End the work: the goal is reached, or cannot be; summary says what was done and what is left.",
		`{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}`),
}

func tool(name, desc, schema string) llm.Tool {
	if !json.Valid([]byte(schema)) {
		panic("goal: the schema of tool " + name + " is not JSON")
	}
	return llm.Tool{Name: name, Description: desc, Schema: json.RawMessage(schema)}
}

// toolNamed is the tool called name.
func toolNamed(name string) (llm.Tool, bool) {
	for _, t := range toolList {
		if t.Name == name {
			return t, true
		}
	}
	return llm.Tool{}, false
}

// mutating reports whether a tool writes or runs: what --dry-run skips.
func mutating(name string) bool {
	switch name {
	case ToolEdit, ToolPatch, ToolWrite, ToolRun, ToolTests:
		return true
	}
	return false
}

// The tools' arguments.
type (
	readArgs struct {
		Path  string `json:"path"`
		Start int    `json:"start_line"`
		End   int    `json:"end_line"`
	}
	searchArgs struct {
		Query string `json:"query"`
		Kind  string `json:"kind"`
	}
	editArgs struct {
		Path   string      `json:"path"`
		Blocks []blockArgs `json:"blocks"`
	}
	blockArgs struct {
		Search  string `json:"search"`
		Replace string `json:"replace"`
	}
	patchArgs struct {
		Patch string `json:"patch"`
	}
	writeArgs struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	runArgs struct {
		Argv []string `json:"argv"`
		Cwd  string   `json:"cwd"`
	}
	finishArgs struct {
		Summary string `json:"summary"`
	}
)
