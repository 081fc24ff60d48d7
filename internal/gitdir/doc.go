// Package gitdir finds the git checkout a directory is in and where git
// keeps its state, reading the .git entries as git lays them out (a .git
// directory, or a .git file naming a linked worktree's or a submodule's git
// directory, and its commondir file). It is the one rule every package
// follows — the store, the daemon's socket, the configuration, the watcher —
// so that they never disagree about which workspace a directory is in. It
// reads, never writes, and links no git library: the layout it reads is
// git's documented one (gitrepository-layout(5)).
package gitdir
