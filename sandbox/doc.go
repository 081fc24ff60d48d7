// Package sandbox runs one command the way an agent's commands must run:
// argv only, in a directory inside the workspace, in a bubblewrap (bwrap)
// sandbox — the system read-only, the workspace writable except the
// paths kept read-only (.git, .luna), a private /tmp and a private home,
// no network unless the spec allows it — with a timeout on the whole
// process group (TERM, then KILL after a grace period), resource limits
// (CPU time, memory, processes, file size), a scrubbed environment and
// its output capped (head and tail kept, the cut said).
//
// Probe tells what this host offers (bwrap, user and network namespaces,
// Landlock, how processes are limited); New refuses to make a Runner that
// would run commands without a sandbox unless told so (the policy's
// choice), and such a Runner says so loudly in every Result. It is the
// only package that starts bwrap.
package sandbox
