// Package rpc is the socket protocol of a workspace's daemon: the server
// (Listen, Serve) that serves any lunad.Workspace — in lunad serve, the
// workspace service — to the processes of one user over a unix socket, the
// framing and error table of its JSON-RPC, and the client (Connect, Client),
// which implements lunad.Workspace, carries the typed errors back, starts a
// daemon when asked (AutoStart) and reconnects for long-lived users. When no
// daemon runs, a command opens the workspace in-process instead
// (workspace.Open); this package only connects or says ErrNoDaemon.
//
// Listen takes the workspace's daemon lock (one daemon per workspace) and
// makes the socket. Serve is a handler table over any lunad.Workspace, where
// an operation that takes a request is served straight from its method, as in
// op[moveParams](lunad.Workspace.Move); with it go the framing, the error
// table that carries typed errors, and the connection caps
// (ServeOptions.MaxConns, ConnIdleTimeout). Each method of the Client is one
// generic call[R](ctx, c, method, params). Settings is the configuration a
// client compares with the daemon's as a value.
//
// One concern per file: protocol.go names the methods and the handshake
// (Hello), params.go the params and results on the wire, handlers.go answers
// each method, codec.go encodes the payloads, errors.go carries errors both
// ways, framing.go frames the messages and enforces their limits, server.go
// accepts and caps the connections, conn.go serves one of them; socket.go
// finds and binds the socket, connect.go and client.go are the client;
// runs.go and index.go hold the calls of the workflow runs and of the
// reference index, lifecycle.go the daemon's status and stop and the
// error of a daemon configured otherwise (DiffersError).
package rpc
