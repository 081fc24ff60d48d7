// Package follow is a run as people follow it: the CLI (cmd/lunad), the
// language server (lsp) and the MCP server (mcp) share it to show a run
// while it goes on and a goal once it has ended.
//
//   - Run polls a run until it finishes, handing each new event to the
//     caller once, in order (run.go).
//   - Progress and GoalProgress word an event for a person: a line per
//     stage of any run, a line per step of a goal; TestVerdict is a test
//     run in a line (progress.go, goal_progress.go, verdict.go).
//   - ReadGoal reads a finished goal's result, trace and report from its
//     run's stage files, and GoalFiles keeps them as files outside the
//     working tree, for editors to open (goal_read.go, goal_files.go).
//
// It works over the root package's vocabulary only (lunad.WorkflowRuns,
// lunad.RunEvent, lunad.GoalTrace, gitdir.Find), so that the
// adapters may use it without linking the service, the store or the
// daemon.
package follow
