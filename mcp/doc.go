// Package mcp is lunad's Model Context Protocol server: a thin adapter,
// built with the official Go SDK (github.com/modelcontextprotocol/go-sdk),
// over a lunad.Workspace — the in-process Service or a Client of the
// workspace's daemon. It neither reads git nor parses artifacts; every tool
// and resource is one or two Workspace calls.
//
// Tools (arguments are a contract; an artifact is always `id`, its ID or
// workspace path): create_artifact, read_artifact, list_artifacts,
// edit_artifact (structured SEARCH/REPLACE changes), rewrite_artifact,
// undo_edit, restore_version, artifact_history, diff_versions,
// link_artifacts, find_references, list_stale and acknowledge. Writes are
// commits whose agent is the MCP client's name from its initialize
// clientInfo, unless a call names `agent`.
//
// Resources: every artifact that is not archived nor removed is listed
// (paged) as luna://artifacts/{id}, with its MIME type, lastModified and version; the
// templates luna://artifacts/{id} and luna://artifacts/{id}/versions/{n}
// read any artifact at any version. Follow turns the Workspace's events
// into notifications/resources/updated for subscribers and
// notifications/resources/list_changed when artifacts are created,
// archived, removed or moved.
//
// Errors are tool results with isError set, whose text says how to correct
// the call: the closest lines for a SEARCH that does not match, the current
// version for a conflict, the arguments a tool takes for a call the input
// schema refuses. A per-client rate limit, and a check for text that is
// not valid UTF-8, run before any tool (guard.go).
//
// Transports: Run serves one client (stdio); Serve serves streamable HTTP
// on a loopback listener from Listen or a unix socket of mode 0600 from
// ListenUnix, with caps on the live sessions in all and per client address
// and an idle timeout (sessions.go). Every HTTP request must carry the
// server's bearer token (auth.go), a random secret WriteToken keeps in a
// file only the owner can read (token.go): a loopback port is open to
// every local account.
//
// Files: the typed tools (tools*.go), the artifact resources (resources.go,
// listing.go), notifications from the Workspace's events (follow.go), rate and
// session limits (guard.go, limit.go, sessions.go), streamable HTTP on a
// loopback port or a unix socket (http.go), and the package's own wording of
// errors (errors.go).
//
// The bearer token is compared in constant time; a request without it is
// answered 401.
package mcp
