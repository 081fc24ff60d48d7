package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/editor"
	"github.com/lunad/lunad/gitstore"
)

// Tool inputs and outputs. JSON names are the tools' contract; the SDK
// derives the schemas from these types, descriptions from jsonschema tags.

type createIn struct {
	Title   string `json:"title" jsonschema:"the artifact's title"`
	Type    string `json:"type,omitempty" jsonschema:"kind/name, e.g. text/markdown or code/python; inferred from path when empty"`
	Path    string `json:"path,omitempty" jsonschema:"workspace-relative file path; derived from title and type when empty"`
	Content string `json:"content" jsonschema:"the full initial content"`
	Agent   string `json:"agent,omitempty" jsonschema:"who is writing; defaults to the MCP client's name"`
}

// writeOut is the result of a write: the artifact's new version and commit.
type writeOut struct {
	ID       string `json:"id" jsonschema:"the artifact's ID"`
	Path     string `json:"path" jsonschema:"the artifact's file path"`
	Version  int    `json:"version" jsonschema:"the artifact's version after the write"`
	Commit   string `json:"commit" jsonschema:"the git commit of the write"`
	Replayed bool   `json:"replayed,omitempty" jsonschema:"true when an idempotency key matched an earlier write and nothing new was committed"`
}

type readIn struct {
	ID        string `json:"id" jsonschema:"the artifact's ID or workspace path"`
	Version   int    `json:"version,omitempty" jsonschema:"a version number to read; the current version when omitted"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to return (1-based); from the start when omitted"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to return (inclusive); to the end when omitted"`
}

type readOut struct {
	ID         string `json:"id"`
	Path       string `json:"path"`
	Type       string `json:"type"`
	Version    int    `json:"version" jsonschema:"the version read; pass it as base_version to edit_artifact"`
	Content    string `json:"content"`
	StartLine  int    `json:"start_line,omitempty" jsonschema:"the first line returned, when a range was asked for"`
	EndLine    int    `json:"end_line,omitempty" jsonschema:"the last line returned, when a range was asked for"`
	TotalLines int    `json:"total_lines"`
}

type listOut struct {
	Artifacts []lunad.Artifact `json:"artifacts"`
}

type change struct {
	Search  string `json:"search" jsonschema:"whole lines copied exactly from the artifact (empty only for an empty artifact)"`
	Replace string `json:"replace" jsonschema:"the lines that replace them"`
}

type editIn struct {
	ID             string   `json:"id" jsonschema:"the artifact's ID or workspace path"`
	Changes        []change `json:"changes" jsonschema:"SEARCH/REPLACE pairs, applied in order; each SEARCH must match exactly one place"`
	BaseVersion    int      `json:"base_version,omitempty" jsonschema:"the version the changes were made against; the edit fails with a conflict if the artifact moved on"`
	IdempotencyKey string   `json:"idempotency_key,omitempty" jsonschema:"a key that makes retries safe: a second call with it commits nothing and returns the first result"`
	Agent          string   `json:"agent,omitempty" jsonschema:"who is editing; defaults to the MCP client's name"`
	Message        string   `json:"message,omitempty" jsonschema:"why, recorded in the commit"`
}

type editOut struct {
	ID       string   `json:"id"`
	Path     string   `json:"path"`
	Version  int      `json:"version"`
	Commit   string   `json:"commit"`
	Tiers    []string `json:"tiers" jsonschema:"how each change matched: exact, trailing-whitespace, indentation, blank-lines, elision or fuzzy"`
	Replayed bool     `json:"replayed,omitempty"`
}

type idIn struct {
	ID string `json:"id" jsonschema:"the artifact's ID or workspace path"`
}

type undoIn struct {
	ID    string `json:"id" jsonschema:"the artifact's ID or workspace path"`
	Agent string `json:"agent,omitempty" jsonschema:"who is undoing; defaults to the MCP client's name"`
}

type restoreIn struct {
	ID      string `json:"id" jsonschema:"the artifact's ID or workspace path"`
	Version int    `json:"version" jsonschema:"the version whose content to restore (see artifact_history)"`
	Agent   string `json:"agent,omitempty" jsonschema:"who is restoring; defaults to the MCP client's name"`
}

type historyOut struct {
	Versions []lunad.Version `json:"versions"`
}

type refsIn struct {
	ID     string `json:"id" jsonschema:"the artifact's ID or workspace path"`
	Symbol string `json:"symbol,omitempty" jsonschema:"keep only incoming references to this symbol of the artifact"`
}

type refsOut struct {
	Artifact lunad.Artifact    `json:"artifact"`
	Outgoing []lunad.Reference `json:"outgoing" jsonschema:"what the artifact refers to"`
	Incoming []lunad.Reference `json:"incoming" jsonschema:"what refers to the artifact"`
}

type staleOut struct {
	References []lunad.Reference `json:"references" jsonschema:"stale or broken references: the target changed (since: which commit and agent) after the referring artifact was last edited or acknowledged"`
}

type ackIn struct {
	ID     string `json:"id" jsonschema:"the referring artifact's ID or workspace path"`
	Symbol string `json:"symbol,omitempty" jsonschema:"acknowledge only references to this symbol; all of the artifact's references when omitted"`
	Agent  string `json:"agent,omitempty" jsonschema:"who acknowledges; defaults to the MCP client's name"`
}

func ptr[T any](v T) *T { return &v }

// Annotations. Writes are versioned commits that undo_edit reverts, so
// none is destructive.
var (
	readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
	write    = func(idempotent bool) *sdk.ToolAnnotations {
		return &sdk.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: idempotent, OpenWorldHint: ptr(false)}
	}
)

func (h *handlers) addTools(s *sdk.Server) {
	sdk.AddTool(s, &sdk.Tool{
		Name:        "create_artifact",
		Title:       "Create artifact",
		Description: "Create an artifact (a file of the workspace) with its initial content, as a commit. Returns its id, used by every other tool.",
		Annotations: write(false),
	}, h.create)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "read_artifact",
		Title:       "Read artifact",
		Description: "Read an artifact's content, current or at a version, whole or a line range. Copy SEARCH text for edit_artifact from here.",
		Annotations: readOnly,
	}, h.read)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "list_artifacts",
		Title:       "List artifacts",
		Description: "List the workspace's artifacts: id, path, type, title, status, current version.",
		Annotations: readOnly,
	}, h.list)
	sdk.AddTool(s, &sdk.Tool{
		Name:  "edit_artifact",
		Title: "Edit artifact",
		Description: "Edit an artifact with SEARCH/REPLACE changes, as one commit. Each search must be whole lines copied from the artifact and match one place; " +
			"small whitespace or indentation slips are tolerated and reported in tiers. On failure nothing is written and the error says what to correct.",
		Annotations: write(false),
	}, h.edit)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "undo_edit",
		Title:       "Undo edit",
		Description: "Undo the artifact's latest change not yet undone, as a new commit (history keeps both).",
		Annotations: write(false),
	}, h.undo)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "restore_version",
		Title:       "Restore version",
		Description: "Make an artifact's content that of an earlier version, as a new commit.",
		Annotations: write(true),
	}, h.restore)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "artifact_history",
		Title:       "Artifact history",
		Description: "List an artifact's versions, oldest first: version, commit, operation, agent, message, time.",
		Annotations: readOnly,
	}, h.history)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "find_references",
		Title:       "Find references",
		Description: "Resolve an artifact's references: what it refers to (outgoing) and what refers to it (incoming), each with its state (ok, stale, broken...).",
		Annotations: readOnly,
	}, h.refs)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "list_stale",
		Title:       "List stale references",
		Description: "List references in the workspace whose target changed since the referring artifact was last edited or acknowledged: what to review.",
		Annotations: readOnly,
	}, h.stale)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "acknowledge",
		Title:       "Acknowledge references",
		Description: "Record that an artifact is still right about what it refers to (all its references, or those to one symbol), so they are no longer stale.",
		Annotations: write(false),
	}, h.ack)
}

func written(r gitstore.Result) writeOut {
	return writeOut{ID: r.Artifact.ID, Path: r.Artifact.Path, Version: r.Version.Number, Commit: r.Version.Commit, Replayed: r.Replayed}
}

func (h *handlers) create(ctx context.Context, req *sdk.CallToolRequest, in createIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := h.ws.Create(ctx, gitstore.CreateSpec{
		Title: in.Title, Type: in.Type, Path: in.Path, Content: []byte(in.Content),
		Change: gitstore.Change{Agent: h.agent(req, in.Agent)},
	})
	if err != nil {
		return nil, writeOut{}, h.explain(ctx, err)
	}
	return nil, written(r), nil
}

func (h *handlers) read(ctx context.Context, _ *sdk.CallToolRequest, in readIn) (*sdk.CallToolResult, readOut, error) {
	at := ""
	if in.Version > 0 {
		at = strconv.Itoa(in.Version)
	}
	content, a, err := h.ws.Read(ctx, in.ID, at)
	if err != nil {
		return nil, readOut{}, h.explain(ctx, err)
	}
	out := readOut{ID: a.ID, Path: a.Path, Type: a.Type, Version: a.Version, Content: string(content)}
	if in.Version > 0 {
		out.Version = in.Version
	}
	lines := strings.SplitAfter(out.Content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	out.TotalLines = len(lines)
	if in.StartLine > 0 || in.EndLine > 0 {
		start, end := max(in.StartLine, 1), in.EndLine
		if end == 0 || end > len(lines) {
			end = len(lines)
		}
		if start > end {
			return nil, readOut{}, fmt.Errorf("%w: lines %d-%d are not in %s, which has %d lines", lunad.ErrInvalid, start, end, a.Path, len(lines))
		}
		out.Content = strings.Join(lines[start-1:end], "")
		out.StartLine, out.EndLine = start, end
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.Content}}}, out, nil
}

func (h *handlers) list(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, listOut, error) {
	as, err := h.ws.List(ctx)
	if err != nil {
		return nil, listOut{}, h.explain(ctx, err)
	}
	return nil, listOut{Artifacts: nonNil(as)}, nil
}

func (h *handlers) edit(ctx context.Context, req *sdk.CallToolRequest, in editIn) (*sdk.CallToolResult, editOut, error) {
	if len(in.Changes) == 0 {
		return nil, editOut{}, fmt.Errorf("%w: changes is empty: give at least one {search, replace} pair", lunad.ErrInvalid)
	}
	blocks := make([]editor.Block, len(in.Changes))
	for i, c := range in.Changes {
		blocks[i] = editor.Block{Search: c.Search, Replace: c.Replace}
	}
	r, err := h.ws.Edit(ctx, daemon.EditRequest{ID: in.ID, Blocks: blocks, Change: gitstore.Change{
		Agent: h.agent(req, in.Agent), Message: in.Message, IdempotencyKey: in.IdempotencyKey, BaseVersion: in.BaseVersion,
	}})
	if err != nil {
		return nil, editOut{}, h.explain(ctx, err)
	}
	out := editOut{ID: r.Artifact.ID, Path: r.Artifact.Path, Version: r.Version.Number, Commit: r.Version.Commit, Replayed: r.Replayed, Tiers: []string{}}
	for _, m := range r.Matches {
		out.Tiers = append(out.Tiers, string(m.Tier))
	}
	return nil, out, nil
}

func (h *handlers) undo(ctx context.Context, req *sdk.CallToolRequest, in undoIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := h.ws.Undo(ctx, in.ID, gitstore.Change{Agent: h.agent(req, in.Agent)})
	if err != nil {
		return nil, writeOut{}, h.explain(ctx, err)
	}
	return nil, written(r), nil
}

func (h *handlers) restore(ctx context.Context, req *sdk.CallToolRequest, in restoreIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := h.ws.Restore(ctx, in.ID, in.Version, gitstore.Change{Agent: h.agent(req, in.Agent)})
	if err != nil {
		return nil, writeOut{}, h.explain(ctx, err)
	}
	return nil, written(r), nil
}

func (h *handlers) history(ctx context.Context, _ *sdk.CallToolRequest, in idIn) (*sdk.CallToolResult, historyOut, error) {
	vs, err := h.ws.History(ctx, in.ID)
	if err != nil {
		return nil, historyOut{}, h.explain(ctx, err)
	}
	return nil, historyOut{Versions: nonNil(vs)}, nil
}

func (h *handlers) refs(ctx context.Context, _ *sdk.CallToolRequest, in refsIn) (*sdk.CallToolResult, refsOut, error) {
	rep, err := h.ws.Refs(ctx, in.ID)
	if err != nil {
		return nil, refsOut{}, h.explain(ctx, err)
	}
	out := refsOut{Artifact: rep.Artifact, Outgoing: nonNil(rep.Outgoing), Incoming: []lunad.Reference{}}
	for _, r := range rep.Incoming {
		if in.Symbol == "" || (r.To != nil && r.To.Symbol == in.Symbol) {
			out.Incoming = append(out.Incoming, r)
		}
	}
	return nil, out, nil
}

func (h *handlers) stale(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, staleOut, error) {
	rs, err := h.ws.Stale(ctx)
	if err != nil {
		return nil, staleOut{}, h.explain(ctx, err)
	}
	return nil, staleOut{References: nonNil(rs)}, nil
}

func (h *handlers) ack(ctx context.Context, req *sdk.CallToolRequest, in ackIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := h.ws.Ack(ctx, in.ID, in.Symbol, gitstore.Change{Agent: h.agent(req, in.Agent)})
	if err != nil {
		return nil, writeOut{}, h.explain(ctx, err)
	}
	return nil, written(r), nil
}

// nonNil makes an empty list marshal as [] rather than null, as the output
// schemas want.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
