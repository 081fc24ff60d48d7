// Package mcp is lunad's Model Context Protocol server: a thin adapter,
// built with the official Go SDK (github.com/modelcontextprotocol/go-sdk),
// over a daemon.Workspace — the in-process Service or a Client of the
// workspace's daemon. It neither reads git nor parses artifacts; every tool
// and resource is one or two Workspace calls.
//
// Tools (arguments are a contract; an artifact is always `id`, its ID or
// workspace path): create_artifact, read_artifact, list_artifacts,
// edit_artifact (structured SEARCH/REPLACE changes), undo_edit,
// restore_version, artifact_history, find_references, list_stale and
// acknowledge. Writes are commits whose agent is the MCP client's name from
// its initialize clientInfo, unless a call names `agent`.
//
// Resources: the templates luna://artifacts/{id} (current content) and
// luna://artifacts/{id}/versions/{n} (one version), with a MIME type
// derived from the artifact's type.
//
// Errors are tool results with isError set, whose text says how to correct
// the call: the closest lines for a SEARCH that does not match, the current
// version for a conflict.
package mcp
