// Package lsp is lunad's language server: a thin adapter that serves a
// lunad.Workspace (the daemon's client, or the Service in-process) to
// editors over the Language Server Protocol (go.lsp.dev/protocol v1, LSP
// 3.18). Each LSP feature is one file and calls one method of the
// Workspace, the same one the MCP server and the CLI call: definition,
// references and hover ask Workspace.At; diagnostics come from
// Workspace.Refs; commands are the Workspace's writes.
//
// Positions: LSP counts UTF-16 code units; lunad counts bytes. The only
// conversion is mapper (position.go), on top of textpos.Lines.
//
// Documents: the server keeps the text of open documents (incremental
// sync). Answers are computed on the artifact's committed content; a
// position in a buffer with unsaved changes is carried over when its line
// is unchanged. When an artifact changes (through any client, or outside
// lunad) an open, unmodified buffer is updated with workspace/applyEdit;
// a buffer with unsaved changes is never overwritten — the user is told.
//
// Transport: frames are capped at MaxFrame bytes, checked on the header
// before the body is read; a body that is not JSON or not JSON-RPC gets a
// parse (or invalid-request) error and the session goes on; unknown
// methods and invalid params get JSON-RPC errors (transport.go).
//
// luna.ask and luna.goal run an ask or a goal from the editor; a finished
// goal's report is kept as a file (through follow.GoalFiles) and offered with
// window/showDocument (goal.go), and luna.acceptRun and luna.discardRun settle
// an isolated run, offered when a goal ends (settle.go).
package lsp
