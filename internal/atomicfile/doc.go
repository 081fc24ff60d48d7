// Package atomicfile replaces a file's content in one step: the data goes
// to a temporary file made beside it (or in a directory on the same
// filesystem), which is renamed over the target, so that a reader or a
// crash sees the old content or the new one, never a torn file. A
// durable write fsyncs the data before the rename and the directory
// after it; a cache or a list that is rebuilt anyway does without.
//
// The rename replaces whatever is at the target path, a symbolic link
// included: the link itself is replaced, the file it points to is never
// written. The temporary file is created exclusively (O_EXCL) under a
// random name, so nothing placed in the directory beforehand is written
// through either.
//
// It is lunad's one way of rewriting a file in place: the store's HEAD,
// git index and caches (gitstore), the process agent's records of its
// process groups (runs/procagent), the reference index's parse cache
// (workspace/refindex) and a finished goal's files (runs/follow). Sync
// is the fsync of a file or directory by name that durable writes use,
// and the store's other durable steps (packs, refs, run logs) too.
package atomicfile
