package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// The read-only tools' inputs and outputs. JSON names are the tools'
// contract; the SDK derives the schemas from these types, descriptions from
// jsonschema tags, and rejects unknown arguments and wrong types.

type idIn struct {
	ID string `json:"id" jsonschema:"the artifact's ID or workspace path"`
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

type historyOut struct {
	Versions []lunad.Version `json:"versions"`
}

type diffIn struct {
	ID   string `json:"id" jsonschema:"the artifact's ID or workspace path"`
	From int    `json:"from,omitempty" jsonschema:"the older version; the one before to when omitted"`
	To   int    `json:"to,omitempty" jsonschema:"the newer version; the current version when omitted"`
}

type diffOut struct {
	ID   string `json:"id"`
	From int    `json:"from"`
	To   int    `json:"to"`
	Diff string `json:"diff" jsonschema:"a unified diff from version from to version to (empty when their content is the same)"`
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

func (s *Server) read(ctx context.Context, _ *sdk.CallToolRequest, in readIn) (*sdk.CallToolResult, readOut, error) {
	if in.Version < 0 || in.StartLine < 0 || in.EndLine < 0 {
		return nil, readOut{}, s.explainRead(fmt.Errorf("%w: version, start_line and end_line count from 1 (omit them for the current version, the whole content)", lunad.ErrInvalid))
	}
	at := ""
	if in.Version > 0 {
		at = strconv.Itoa(in.Version)
	}
	content, a, err := s.ws.Read(ctx, in.ID, at)
	if err != nil {
		return nil, readOut{}, s.explainRead(err)
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
		switch {
		case end > 0 && start > end:
			return nil, readOut{}, s.explainRead(fmt.Errorf("%w: start_line %d is after end_line %d", lunad.ErrInvalid, start, end))
		case start > len(lines):
			return nil, readOut{}, s.explainRead(fmt.Errorf("%w: start_line %d is past the end: %s has %s", lunad.ErrInvalid, start, a.Path, plural(len(lines), "line")))
		}
		if end == 0 || end > len(lines) {
			end = len(lines)
		}
		out.Content = strings.Join(lines[start-1:end], "")
		out.StartLine, out.EndLine = start, end
	}
	return textAndJSON(out.Content, out), out, nil
}

func (s *Server) list(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, listOut, error) {
	as, err := s.ws.List(ctx)
	if err != nil {
		return nil, listOut{}, s.explainRead(err)
	}
	return nil, listOut{Artifacts: nonNil(as)}, nil
}

func (s *Server) history(ctx context.Context, _ *sdk.CallToolRequest, in idIn) (*sdk.CallToolResult, historyOut, error) {
	vs, err := s.ws.History(ctx, in.ID)
	if err != nil {
		return nil, historyOut{}, s.explainRead(err)
	}
	return nil, historyOut{Versions: nonNil(vs)}, nil
}

func (s *Server) diff(ctx context.Context, _ *sdk.CallToolRequest, in diffIn) (*sdk.CallToolResult, diffOut, error) {
	if in.From < 0 || in.To < 0 {
		return nil, diffOut{}, s.explainRead(fmt.Errorf("%w: versions count from 1 (see artifact_history)", lunad.ErrInvalid))
	}
	a, err := s.ws.Artifact(ctx, in.ID)
	if err != nil {
		return nil, diffOut{}, s.explainRead(err)
	}
	to := in.To
	if to == 0 {
		to = a.Version
	}
	from := in.From
	if from == 0 {
		from = to - 1
	}
	d, err := s.ws.Diff(ctx, a.ID, from, to)
	if err != nil {
		return nil, diffOut{}, s.explainRead(err)
	}
	out := diffOut{ID: a.ID, From: from, To: to, Diff: d}
	return textAndJSON(d, out), out, nil
}

func (s *Server) refs(ctx context.Context, _ *sdk.CallToolRequest, in refsIn) (*sdk.CallToolResult, refsOut, error) {
	rep, err := s.ws.Refs(ctx, in.ID)
	if err != nil {
		return nil, refsOut{}, s.explainRead(err)
	}
	out := refsOut{Artifact: rep.Artifact, Outgoing: nonNil(rep.Outgoing), Incoming: []lunad.Reference{}}
	for _, r := range rep.Incoming {
		if in.Symbol == "" || (r.To != nil && r.To.Symbol == in.Symbol) {
			out.Incoming = append(out.Incoming, r)
		}
	}
	return nil, out, nil
}

func (s *Server) stale(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, staleOut, error) {
	rs, err := s.ws.Stale(ctx)
	if err != nil {
		return nil, staleOut{}, s.explainRead(err)
	}
	return nil, staleOut{References: nonNil(rs)}, nil
}

// nonNil makes an empty list marshal as [] rather than null, as the output
// schemas want.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// textAndJSON is the content of a result whose text, shown first, is not
// its structured result: the text, then the structured result as JSON —
// what the MCP specification recommends for a tool with an output schema,
// so that a client that gives its model only the content still shows it
// the version (to pass as base_version) and the rest.
func textAndJSON(text string, out any) *sdk.CallToolResult {
	b, err := json.Marshal(out)
	if err != nil {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}, &sdk.TextContent{Text: string(b)}}}
}
