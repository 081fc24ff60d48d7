package main

import "runtime/debug"

// shortCommands are the commands that read or write a few artifacts and
// exit: without a daemon they open the store, do one operation and close
// it, with a heap of a few MB (an edit of the 10,000-artifact benchmark
// workspace peaks at 6–7 MB). At Go's default GOGC=100 such a process
// still collects once or twice (the first heap goal is 4 MB), about a
// tenth of its CPU time; shortGOGC lets the heap reach 20 MB first, so
// they run without a collection. Commands that may build the reference
// index (refs, stale, symbols, list, ...) and the servers keep the
// default.
var shortCommands = map[string]bool{
	"create": true, "edit": true, "mv": true, "archive": true, "rm": true, "link": true,
	"undo": true, "redo": true, "restore": true, "show": true, "log": true,
	"diff": true, "branch": true, "switch": true, "branches": true,
}

// shortGOGC is the GOGC of a short command's process.
const shortGOGC = 400

// tuneGC sets the collector's target for command name and returns what
// restores the previous setting (commands also run inside tests). A GOGC
// set in the environment is the user's choice and is left alone.
func tuneGC(name string, getenv func(string) string) (restore func()) {
	if !shortCommands[name] || getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(shortGOGC)
	return func() { debug.SetGCPercent(prev) }
}
