package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad"
)

// The writing tools' inputs and outputs. Every write is one commit whose
// agent is the call's agent, else the client's name (Server.agent).

type createIn struct {
	Title   string `json:"title" jsonschema:"the artifact's title"`
	Type    string `json:"type" jsonschema:"kind/name: text/markdown, text/plain, code/python, code/go, config/json... (empty: inferred from path)"`
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
	Warning  string `json:"warning,omitempty" jsonschema:"set when the write was committed but the file in the working tree could not be updated yet; the write is done, do not retry it"`
}

type change struct {
	Search  string `json:"search" jsonschema:"whole lines copied exactly from the artifact (empty only for an empty artifact)"`
	Replace string `json:"replace" jsonschema:"the lines that replace them"`
}

type editIn struct {
	ID             string   `json:"id" jsonschema:"the artifact's ID or workspace path"`
	Changes        []change `json:"changes" jsonschema:"SEARCH/REPLACE pairs, applied in order and committed together; each search must match exactly one place"`
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
	Warning  string   `json:"warning,omitempty" jsonschema:"set when the edit was committed but the file in the working tree could not be updated yet; the edit is done, do not retry it"`
}

type rewriteIn struct {
	ID             string `json:"id" jsonschema:"the artifact's ID or workspace path"`
	Content        string `json:"content" jsonschema:"the artifact's whole new content"`
	BaseVersion    int    `json:"base_version,omitempty" jsonschema:"the version the new content was made from; the rewrite fails with a conflict if the artifact moved on"`
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"a key that makes retries safe: a second call with it commits nothing and returns the first result"`
	Agent          string `json:"agent,omitempty" jsonschema:"who is writing; defaults to the MCP client's name"`
	Message        string `json:"message,omitempty" jsonschema:"why, recorded in the commit"`
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

type linkIn struct {
	ID    string `json:"id" jsonschema:"the artifact that depends on the other (its ID or workspace path)"`
	To    string `json:"to" jsonschema:"the artifact it depends on (ID or workspace path)"`
	Kind  string `json:"kind,omitempty" jsonschema:"what the link means, lowercase words such as explains or depends_on; references when omitted"`
	Agent string `json:"agent,omitempty" jsonschema:"who is linking; defaults to the MCP client's name"`
}

type ackIn struct {
	ID     string `json:"id" jsonschema:"the referring artifact's ID or workspace path"`
	Symbol string `json:"symbol,omitempty" jsonschema:"acknowledge only references to this symbol; all of the artifact's references when omitted"`
	Agent  string `json:"agent,omitempty" jsonschema:"who acknowledges; defaults to the MCP client's name"`
}

func written(r lunad.Result) writeOut {
	return writeOut{ID: r.Artifact.ID, Path: r.Artifact.Path, Version: r.Version.Number, Commit: r.Version.Commit, Replayed: r.Replayed, Warning: r.Warning}
}

func (s *Server) create(ctx context.Context, req *sdk.CallToolRequest, in createIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := s.ws.Create(ctx, lunad.CreateSpec{
		Title: in.Title, Type: in.Type, Path: in.Path, Content: []byte(in.Content),
		Change: lunad.Change{Agent: s.agent(req, in.Agent)},
	})
	if err != nil {
		return nil, writeOut{}, s.explain(err)
	}
	return nil, written(r), nil
}

func (s *Server) edit(ctx context.Context, req *sdk.CallToolRequest, in editIn) (*sdk.CallToolResult, editOut, error) {
	if len(in.Changes) == 0 {
		return nil, editOut{}, s.explain(fmt.Errorf("%w: changes is empty: give at least one {search, replace} pair", lunad.ErrInvalid))
	}
	blocks := make([]lunad.Block, len(in.Changes))
	for i, c := range in.Changes {
		blocks[i] = lunad.Block{Search: c.Search, Replace: c.Replace}
	}
	r, err := s.ws.Edit(ctx, lunad.EditRequest{ID: in.ID, Blocks: blocks, Change: lunad.Change{
		Agent: s.agent(req, in.Agent), Message: in.Message, IdempotencyKey: in.IdempotencyKey, BaseVersion: in.BaseVersion,
	}})
	if err != nil {
		return nil, editOut{}, s.explain(err)
	}
	out := editOut{ID: r.Artifact.ID, Path: r.Artifact.Path, Version: r.Version.Number, Commit: r.Version.Commit, Replayed: r.Replayed, Warning: r.Warning, Tiers: []string{}}
	for _, m := range r.Matches {
		out.Tiers = append(out.Tiers, string(m.Tier))
	}
	return nil, out, nil
}

func (s *Server) rewrite(ctx context.Context, req *sdk.CallToolRequest, in rewriteIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := s.ws.Edit(ctx, lunad.EditRequest{ID: in.ID, Rewrite: true, Content: []byte(in.Content), Change: lunad.Change{
		Agent: s.agent(req, in.Agent), Message: in.Message, IdempotencyKey: in.IdempotencyKey, BaseVersion: in.BaseVersion,
	}})
	if err != nil {
		return nil, writeOut{}, s.explain(err)
	}
	return nil, written(r.Result), nil
}

func (s *Server) undo(ctx context.Context, req *sdk.CallToolRequest, in undoIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := s.ws.Undo(ctx, lunad.RefRequest{Ref: in.ID, Change: lunad.Change{Agent: s.agent(req, in.Agent)}})
	if err != nil {
		return nil, writeOut{}, s.explain(err)
	}
	return nil, written(r), nil
}

func (s *Server) restore(ctx context.Context, req *sdk.CallToolRequest, in restoreIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := s.ws.Restore(ctx, lunad.RestoreRequest{Ref: in.ID, Version: in.Version, Change: lunad.Change{Agent: s.agent(req, in.Agent)}})
	if err != nil {
		return nil, writeOut{}, s.explain(err)
	}
	return nil, written(r), nil
}

func (s *Server) link(ctx context.Context, req *sdk.CallToolRequest, in linkIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := s.ws.Link(ctx, lunad.LinkRequest{Src: in.ID, Dst: in.To, Kind: in.Kind, Change: lunad.Change{Agent: s.agent(req, in.Agent)}})
	if err != nil {
		return nil, writeOut{}, s.explain(err)
	}
	return nil, written(r), nil
}

func (s *Server) ack(ctx context.Context, req *sdk.CallToolRequest, in ackIn) (*sdk.CallToolResult, writeOut, error) {
	r, err := s.ws.Ack(ctx, lunad.AckRequest{Ref: in.ID, Symbol: in.Symbol, Change: lunad.Change{Agent: s.agent(req, in.Agent)}})
	if err != nil {
		return nil, writeOut{}, s.explain(err)
	}
	return nil, written(r), nil
}
