// Command lunad is the command line of a lunad workspace: a git repository
// whose tracked text files are artifacts and where every edit is a commit.
//
// See docs/cli.md for the commands, their flags, output and exit codes.
//
// It owns the flags, the output, the exit codes (the only place errors become
// exit codes) and the signal context handed to every call; the configuration
// (package config) is loaded once per process and passed down. lunad serve
// parses its flags and runs the assembled daemon (package daemon: New, Run,
// Close); every other command connects to the daemon or, when none serves,
// opens the workspace in-process, its engine given lunad's agents by
// daemon.OpenService and daemon.ConfigureRuns, with a terminal confirmer
// (confirm.go) only for a run
// with a terminal; lunad lsp and lunad mcp run those servers over the same
// choice. lunad ask (cmd_ask.go), lunad goal (cmd_goal.go), lunad doctor
// (cmd_doctor.go) and lunad worker (cmd_worker.go: the queue opened by
// daemon.OpenQueue, the stages' commands run through daemon.GoalHost) each
// have a file of their own.
package main
