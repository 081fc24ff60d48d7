// Package config is a workspace's configuration, .luna/config.toml: its
// types, their defaults, the file, the LUNAD_* environment over it, and
// the checks of every value (Default, then the file, then the
// environment, then Validate: Load).
//
// Both the command line (cmd/lunad, which loads it once per process) and
// the assembled daemon (package daemon, which is handed it) read it, so it
// is a package of its own beside them rather than either's. It holds
// values, not machinery: it links neither the store, git, the workspace
// service, the watcher, the parser nor the daemon, so a program that only
// reads the configuration does not link what the daemon runs. Its
// defaults are named by the packages they configure (the socket
// protocol, the MCP server, the queue), so a default has one name — at
// the cost of linking those packages. architecture_test.go holds it to
// this.
package config
