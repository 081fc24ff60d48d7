// Command lunad-shim is the Landlock shim a sandboxed command starts
// through: bwrap runs it inside the sandbox with the command's argv, it
// reads its ruleset from the descriptor lunad gave it, restricts itself
// with Landlock and execs the command (sandbox/shim says how). It is not
// for people to run: without the spec lunad writes, it runs nothing and
// exits 126.
//
// It links the standard library and golang.org/x/sys alone and is built
// with CGO_ENABLED=0 (`make build` puts it next to bin/lunad, where lunad
// looks for it first, then on PATH), so it starts in about a millisecond
// rather than paying lunad's package initialisation for every command.
package main
