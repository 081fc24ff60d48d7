// Package workspace is lunad's workspace service (Service): the single
// writer over one workspace's store and the one core that every adapter
// calls — the CLI directly when no daemon runs, the daemon on behalf of its
// clients (the CLI, the language server, the MCP server). It joins the pure
// edit engine (editor) to the git-backed store (gitstore), keeps the
// reference index (refindex) in step with HEAD — telling every
// IndexReferences call how far its cold build has come (indexing.go) —
// derives every reference's state from history (staleness: stale.go,
// evaluate.go, quotes.go), and publishes its writes as events (events).
// Service implements lunad.Workspace; Open and Init are its constructors.
package workspace
