// Package rpc is the socket protocol of a workspace's daemon: the server
// (Listen, Serve) that serves any lunad.Workspace — in lunad serve, the
// workspace service — to the processes of one user over a unix socket, the
// framing and error table of its JSON-RPC, and the client (Connect, Client),
// which implements lunad.Workspace, carries the typed errors back, starts a
// daemon when asked (AutoStart) and reconnects for long-lived users. When no
// daemon runs, a command opens the workspace in-process instead
// (workspace.Open); this package only connects or says ErrNoDaemon.
package rpc
