// Command lunad is the command line of a lunad workspace: a git repository
// whose tracked text files are artifacts and where every edit is a commit.
//
// See docs/cli.md for the commands, their flags, output and exit codes.
//
// It owns the flags, the output, the exit codes (the only place errors become
// exit codes) and the signal context handed to every call; the configuration
// is loaded once per process and passed down. lunad serve runs the daemon (the
// workspace service, the socket protocol, the watcher); every other command
// connects to the daemon or, when none serves, opens the workspace in-process,
// and lunad lsp and lunad mcp run those servers over the same choice. The
// engine it configures gets lunad's agents (agents.go: the ask and goal
// workflows, their stage agents and OnFinish, each role's provider from [llm]
// and [agents.ROLE] through agents/llm/providers); goals.go hosts the goal's
// agents — the sandbox probed once, .luna/policy.toml read again when it
// changes, a home of its own for each goal's commands (goalhomes.go), the test
// harness, a terminal confirmer only for an in-process run with a terminal,
// and a check before each live stage that fails the goal for good when the
// policy does not check or the sandbox is refused. lunad ask (cmd_ask.go),
// lunad goal (cmd_goal.go), lunad doctor (cmd_doctor.go) and lunad worker with
// its queue (cmd_worker.go, queue.go: the signing keys, the registered keys
// and the NATS login of [queue]) each have a file of their own.
package main
