package mcp

import (
	"context"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lunad/lunad/daemon"
)

// Options configure a Server.
type Options struct {
	// Name and Version are the server's implementation info ("lunad" and
	// "dev" when empty).
	Name    string
	Version string
	// Agent is the agent recorded for writes when neither the call nor the
	// client's initialize clientInfo names one ("" means the workspace's
	// human).
	Agent string
	// Logger, if set, logs server activity.
	Logger *slog.Logger
}

// instructions tell a model how to use the tools well.
const instructions = `lunad keeps a workspace of text artifacts (code, Markdown, configs) in git; every write is a versioned commit that can be undone.
Read an artifact (read_artifact) before editing it, and edit with edit_artifact's SEARCH/REPLACE changes copied exactly from what you read; pass base_version to refuse an edit if someone changed the artifact since.
When an edit fails, the error says what to fix (the closest lines, or the current version): correct the call and retry.`

// NewServer returns an MCP server whose tools and resources act on ws.
// Run it on a transport with its Run or Connect methods.
func NewServer(ws daemon.Workspace, opts Options) *sdk.Server {
	if opts.Name == "" {
		opts.Name = "lunad"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: opts.Name, Version: opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       opts.Logger,
		// Any artifact URI may be subscribed to; Follow sends the updates.
		SubscribeHandler:   func(context.Context, *sdk.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	})
	h := &handlers{ws: ws, opts: opts}
	h.addTools(s)
	h.addResources(s)
	return s
}

// handlers holds what every tool and resource handler needs.
type handlers struct {
	ws   daemon.Workspace
	opts Options
}

// agent is who a write is recorded as: the call's agent, else the MCP
// client's name (from initialize, or from the request's _meta in stateless
// sessions), else Options.Agent.
func (h *handlers) agent(req *sdk.CallToolRequest, explicit string) string {
	if explicit != "" {
		return explicit
	}
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return p.ClientInfo.Name
		}
	}
	if req != nil && req.Params != nil {
		if info, ok := req.Params.GetMeta()[sdk.MetaKeyClientInfo].(map[string]any); ok {
			if name, ok := info["name"].(string); ok && name != "" {
				return name
			}
		}
	}
	return h.opts.Agent
}
