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
//
// It also hosts the workflow engine (runs.go: the run log is the store's, a
// stage's writes are its commits, published as events; the daemon calls
// DriveRuns; isolation.go: an isolated run's worktree and the store opened
// there; merge.go: how a stage's write lands on an artifact a person changed
// meanwhile), and offers what the watcher and the daemon need beyond
// lunad.Workspace (watched.go).
package workspace
