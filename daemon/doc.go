// Package daemon is the assembled workspace daemon, what `lunad serve`
// runs: a Server, built by New from a loaded configuration, that opens the
// workspace service, hosts the runs engine with lunad's agents (the ask
// and goal workflows; the goal's commands in the sandbox under the
// policy, GoalHost) and, with [queue] set, sends stages to workers over
// NATS (OpenQueue), follows changes made outside lunad (daemon/watch),
// and serves the socket protocol (daemon/rpc) until its context is done
// or it is idle. It follows its configuration file while it serves
// (reload.go): [llm] is taken live; a change it cannot take live
// (config.Reload) restarts a daemon a client started once it is idle
// (Run returns rpc.ErrRestart; Successor starts the next one), and
// is shown in the status (status.go) of one started by hand. It governs the process's memory limit while it serves
// (memlimit.go) and trims the executable's mappings (daemon/exemem).
//
// Parsing flags and loading the configuration are the command line's
// (cmd/lunad); the daemon is handed both. The command line also opens the
// service as the daemon does (OpenService, ConfigureRuns: the engine with
// lunad's agents) for a command or a language server that runs in its own
// process when no daemon serves, the goal host for `lunad worker`'s sandbox, and the queue's
// keys for `lunad worker key` and doctor. Nothing below the command line
// imports this package.
package daemon
