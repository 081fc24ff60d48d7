// Package goal is lunad's autonomous goals (`lunad goal "GOAL"`): the
// built-in workflow "goal" (goal.toml, embedded, isolated = true: the run
// works on its own branch luna/goal/<run-id>, checked out in a worktree
// of its own, StageRequest.Dir) and its four stage agents (Agents).
//
//   - begin runs the test commands once (TestsBefore); with --plan it
//     asks the model for a plan instead and the goal ends "planned".
//   - act is one step: the state compiled for the model within a token
//     budget (the goal, the step and the limits, the files changed on the
//     branch, the last test result, the history: older steps a line
//     each, the latest two in full), one model call, one action — the
//     first tool call; the policy checks it (a denial, or a confirmation
//     no one gave, is the observation: "denied by rule no-network: …"),
//     the executor does it (--dry-run: only what neither writes nor runs),
//     and the observation (status, output, exit code, duration, files) is
//     recorded and shown next step. Files an action changes are the
//     stage's writes, committed by the engine as one commit with the
//     trailers Luna-Action, Luna-Model and Luna-Prompt (goal@N); a
//     command's own changes are found by snapshots of the worktree before
//     and after it (.git, .luna and what .gitignore ignores left out),
//     checked against the policy's write rules (a denied one undone and
//     the step's denial), put back, and handed over as writes the same
//     way; past the goal's disk budget (Options.DiskNow, else
//     Options.Disk: the worktree's size with ignored files) everything
//     the command wrote is undone.
//   - test runs the test commands after every act that changed files
//     (when tests are configured); whatever they change is undone.
//   - report writes report.md and ends the run with the goal's outcome
//     as its status: finished, max_steps, failures, budget_exhausted,
//     stopped, failed, planned or dry_run.
//
// The goal stops when the model calls finish, after max_steps actions
// (default 30), after MaxFailures failed or denied actions in a row
// (default 5), when a budget of the run's working memory is spent, or
// when its stall detector sees the model repeating itself (the same
// failing or denied action three times, the same action and observation
// four times, an alternation, no progress). Every stage's output is the
// goal's whole state, the working memory's snapshot in it, so each stage
// is a function of its request, a resumed run goes on where it was, and
// OnFinish builds the lunad.GoalResult from the last one.
//
// The stage files beside each STAGE_SUCCEEDED event: llm/NNNN.json (the
// model calls) and clock.json (the stage's clock), kept by agents/stage's
// Visit as for the ask's stages, effect.json (what the
// stage's one contact with the world gave: the action's observation and
// writes, a test run, the files the report read), trace/NNNN.json (act:
// step NNNN as a lunad.GoalStep), tests/NNNN.json (begin and test: the
// lunad.TestSummary after step NNNN, 0000 at the start) and report.md. A
// live replay serves the model calls, the clock and the effects back: it
// calls no model, runs no command, reads no file, and gives the original
// outputs and writes.
//
// The worktree is hostile: commands, and the user's own test commands,
// change it at will. Everything lunad does there outside the sandbox
// (snapshots, .gitignore reading, undo, the file tools, the report's
// contents) goes through package tree: paths resolved beneath the
// worktree without following a symbolic link, regular files only, reads
// bounded, writes by rename. A link or a special file where a file was is
// the model's observation, not followed.
//
// What the goal needs of the rest of lunad is given in Options as small
// interfaces: Commands (a *sandbox.Runner), Tests (HarnessTests over the
// same runner), Policy (a *policy.Policy; Confirm settles what it wants
// confirmed), Symbols (the workspace's symbol search); BaseSpec makes
// the commands' base spec from the policy's sandbox settings.
package goal
