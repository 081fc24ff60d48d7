// Package daemon is the assembled workspace daemon, what `lunad serve`
// runs: a Server, built by New from a loaded configuration, that opens the
// workspace service, hosts the runs engine with lunad's agents (the ask
// and goal workflows; the goal's commands in the sandbox under the
// policy, GoalHost) and, with [queue] set, sends stages to workers over
// NATS (OpenQueue), follows changes made outside lunad (daemon/watch),
// and serves the socket protocol (daemon/rpc) until its context is done
// or it is idle. It governs the process's memory limit while it serves
// (memlimit.go) and trims the executable's mappings (daemon/exemem).
//
// Parsing flags and loading the configuration are the command line's
// (cmd/lunad); the daemon is handed both. The command line also uses the
// agents' wiring (WithAgents) for a command that runs a workflow in its
// own process, the goal host for `lunad worker`'s sandbox, and the queue's
// keys for `lunad worker key` and doctor. Nothing below the command line
// imports this package.
package daemon
