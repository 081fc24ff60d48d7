package tools

import (
	"encoding/json"

	"github.com/lunad/lunad/agents/llm"
)

// The tools' names.
const (
	ReadArtifact    = "read_artifact"
	ListArtifacts   = "list_artifacts"
	FindReferences  = "find_references"
	EditArtifact    = "edit_artifact"
	CreateArtifact  = "create_artifact"
	RewriteArtifact = "rewrite_artifact"
	Handoff         = "handoff"
	Finish          = "finish"
	ReportFinding   = "report_finding"
	Acknowledge     = "acknowledge"
)

// The roles.
const (
	Coder    = "coder"
	Writer   = "writer"
	Reviewer = "reviewer"
)

// Roles are the workers, in a fixed order.
var Roles = []string{Coder, Writer, Reviewer}

// spec is one tool: what the model is offered, and the arguments a call
// must have.
type spec struct {
	desc     string
	schema   string
	required []string
	write    bool // changes an artifact
}

var specs = map[string]spec{
	ReadArtifact: {
		desc:     "Read an artifact's current text (with what this stage changed), with line numbers. Page with from_line/to_line.",
		schema:   `{"type":"object","properties":{"id":{"type":"string","description":"artifact ID or path"},"from_line":{"type":"integer","minimum":1},"to_line":{"type":"integer","minimum":1}},"required":["id"],"additionalProperties":false}`,
		required: []string{"id"},
	},
	ListArtifacts: {
		desc:   "List the workspace's artifacts, one line each (id, type, version, path, title); filter by type prefix or a query in path or title.",
		schema: `{"type":"object","properties":{"type":{"type":"string","description":"type prefix, e.g. code/ or text/markdown"},"query":{"type":"string"}},"additionalProperties":false}`,
	},
	FindReferences: {
		desc:     "The references of an artifact: those written in it (outgoing) and those of other artifacts to it (incoming), with their state (ok, stale, broken, ambiguous); optionally only those about one symbol.",
		schema:   `{"type":"object","properties":{"id":{"type":"string"},"symbol":{"type":"string"}},"required":["id"],"additionalProperties":false}`,
		required: []string{"id"},
	},
	EditArtifact: {
		desc:     "Edit an artifact with SEARCH/REPLACE blocks: each search is whole lines copied exactly from the artifact (without line numbers) and must match one place; replace is the new text.",
		schema:   `{"type":"object","properties":{"id":{"type":"string"},"blocks":{"type":"array","minItems":1,"items":{"type":"object","properties":{"search":{"type":"string"},"replace":{"type":"string"}},"required":["search","replace"],"additionalProperties":false}}},"required":["id","blocks"],"additionalProperties":false}`,
		required: []string{"id", "blocks"},
		write:    true,
	},
	CreateArtifact: {
		desc:     "Create a new artifact at path (relative to the workspace) with its whole content.",
		schema:   `{"type":"object","properties":{"title":{"type":"string"},"type":{"type":"string","description":"e.g. code/python, text/markdown; inferred from the path if omitted"},"path":{"type":"string"},"content":{"type":"string"}},"required":["title","path","content"],"additionalProperties":false}`,
		required: []string{"title", "path", "content"},
		write:    true,
	},
	RewriteArtifact: {
		desc:     "Replace an artifact's whole content (the fallback when SEARCH/REPLACE edits do not fit).",
		schema:   `{"type":"object","properties":{"id":{"type":"string"},"content":{"type":"string"}},"required":["id","content"],"additionalProperties":false}`,
		required: []string{"id", "content"},
		write:    true,
	},
	Handoff: {
		desc:     "Hand the request over to another worker (coder, writer or reviewer) with the reason; your staged changes are kept. target names the artifact the next worker is to change, if it is not the request's.",
		schema:   `{"type":"object","properties":{"to":{"type":"string","enum":["coder","writer","reviewer"]},"reason":{"type":"string"},"target":{"type":"string","description":"an artifact ID or path"}},"required":["to","reason"],"additionalProperties":false}`,
		required: []string{"to", "reason"},
	},
	Finish: {
		desc:     "Finish: the request is done; summary says what you did (or answers the question).",
		schema:   `{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}`,
		required: []string{"summary"},
	},
	ReportFinding: {
		desc:     "Report one review finding about an artifact (optionally at a 1-based line).",
		schema:   `{"type":"object","properties":{"artifact":{"type":"string"},"line":{"type":"integer","minimum":1},"severity":{"type":"string","enum":["info","warning","error"]},"message":{"type":"string"}},"required":["artifact","severity","message"],"additionalProperties":false}`,
		required: []string{"artifact", "severity", "message"},
	},
	Acknowledge: {
		desc:     "Record that an artifact's stale references (all, or those to one symbol) were checked and are still right.",
		schema:   `{"type":"object","properties":{"id":{"type":"string"},"symbol":{"type":"string"}},"required":["id"],"additionalProperties":false}`,
		required: []string{"id"},
	},
}

// roleTools are the tools each role is offered, in the order offered.
var roleTools = map[string][]string{
	Coder:    {ReadArtifact, ListArtifacts, FindReferences, EditArtifact, CreateArtifact, RewriteArtifact, Handoff, Finish},
	Writer:   {ReadArtifact, ListArtifacts, FindReferences, EditArtifact, CreateArtifact, RewriteArtifact, Handoff, Finish},
	Reviewer: {ReadArtifact, ListArtifacts, FindReferences, ReportFinding, Acknowledge, Handoff, Finish},
}

// Names are the names of the tools role is offered, in order (nil for an
// unknown role).
func Names(role string) []string { return append([]string(nil), roleTools[role]...) }

func toolsOf(role string) []llm.Tool {
	var out []llm.Tool
	for _, n := range roleTools[role] {
		s := specs[n]
		out = append(out, llm.Tool{Name: n, Description: s.desc, Schema: json.RawMessage(s.schema)})
	}
	return out
}
