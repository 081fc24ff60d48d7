// Package unixsock makes unix sockets and directories that only their
// owner can use: a listening socket is never reachable with a mode wider
// than 0600, whatever the umask, and a directory for private files must be
// the caller's own with mode 0700. The daemon's socket and the MCP
// server's socket and token files are made with it.
//
// Listen binds the socket in a fresh 0700 directory, chmods it and renames it
// into place, and never replaces a live socket or a file that is not one;
// PrivateDir makes or checks a directory of the caller's user, mode 0700, that
// is not a symbolic link.
package unixsock
