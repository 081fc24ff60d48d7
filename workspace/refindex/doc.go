// Package refindex is the reference index of a workspace and its caches:
// every artifact's parsed file in a treesitter.Graph (Index: a parallel
// Build, incremental Update, a content-keyed parse cache persisted between
// processes, the syntax trees of recently updated artifacts), and Live, the
// index kept in step with a store's HEAD, re-parsing only the artifacts
// that changed. It answers what is written where; what a reference's state
// is (staleness) is the workspace package's evaluation over history.
//
// The parse cache is the file refs.gob in the store's cache directory; Live
// follows the store through a three-method Store interface.
package refindex
