// Package gitstore keeps lunad's artifacts in a git repository. It is the only
// package that imports go-git, and it returns lunad types and sentinel errors,
// never go-git values.
//
// Reading and writing objects are lunad's own, pack entries and deltas
// included (packread.go); go-git supplies hashing, the git-config parser,
// the decoder of pack indexes other than version 2 and a fallback index
// codec.
// Writing follows a durable protocol (docs/architecture.md): the objects of a batch of commits are
// kept in memory and written as one pack and its index (temp files), the
// branch's "<ref>.lock" is taken and checked against the batch's base
// (compare-and-swap) and given the new value, one syncfs(2) makes all of it
// durable, the pack and then its index are renamed into objects/pack and
// that directory fsynced, and only then is the lock renamed over the ref
// and the directory fsynced. Small packs are consolidated in the
// background past 32 (packs.go). One Store owns the
// repository; a workspace lock file keeps other lunad processes out while a
// batch is written, and concurrent callers of one process are grouped into
// batches (group commit) by whichever caller finds no batch running.
//
// Everything under .git/luna (the commit provenance cache, the metadata
// cache, the pending list) is derived from the repository and rebuilt when
// missing or damaged.
//
// In a linked git worktree the store works as in the main checkout, with
// git's split (gitdir.Find): HEAD, the index and .git/luna are the
// worktree's own git dir's (<main>/.git/worktrees/NAME), objects, refs,
// config and the runs lock the repository's common dir's. A switch to a
// branch checked out in another worktree is refused. lunad's own linked
// worktrees, one per isolated run (AddWorktree, linked.go), are made
// exactly their branch's tip before each attempt of a stage (Clean,
// clean.go).
//
// It also owns the directory for derived caches (CacheDir), the one way to
// rewrite a file in one step (internal/atomicfile), acks, branches, the git index,
// recording a person's saves, undo, redo and restore, and the fast-forward
// that accepts an isolated run's work (fastforward.go). go-git is linked by no
// other package.
//
// go-git also supplies the gitignore matcher with which Clean leaves a run
// worktree's ignored files alone.
package gitstore
