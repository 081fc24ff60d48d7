// Package gitstore keeps lunad's artifacts in a git repository. It is the only
// package that imports go-git, and it returns lunad types and sentinel errors,
// never go-git values.
//
// go-git is used to read and to encode objects; writing is lunad's own durable
// protocol (see docs/architecture.md): every object of a commit is written as
// a loose object through a temporary file that is fsynced and renamed, the
// object directories are fsynced, and only then does the branch ref move, by
// compare-and-swap under git's own "<ref>.lock" file, itself fsynced before
// the rename and followed by a directory fsync. One Store owns the repository;
// a workspace lock file keeps other lunad processes out while a batch of
// commits is written, and a single writer goroutine serialises the callers
// of one process and commits their operations in groups.
package gitstore
