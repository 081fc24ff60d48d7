// Package runs is lunad's workflow engine: it drives runs of versioned
// state machines (package workflow) whose stages are processed by agents
// (lunad.Agent), and it alone decides every transition.
//
// Every step of a run is a lunad.RunEvent appended to the run's log, a git
// ref refs/luna/runs/<id> with one commit per event (the Store interface;
// gitstore implements it). The engine keeps no state of its own that the
// log does not hold: a run's state is a fold of its events (state.go), the
// next step is a pure function of that state (decide.go), and on start the
// engine resumes every unfinished run from its log. So a daemon killed at
// any point loses no stage and applies none twice:
//
//   - an attempt is recorded as STAGE_STARTED before its agent runs; an
//     attempt found started but unfinished on restart is recorded as
//     STAGE_FAILED (interrupted, not counted against the retry limit) and
//     run again;
//   - a completion is accepted once per stage visit (STAGE_SUCCEEDED, with
//     the agent's whole response stored beside it); any later completion
//     of that visit is DUPLICATE_IGNORED, and one carrying another
//     workflow version is OUTPUT_QUARANTINED;
//   - the stage's writes are committed from the recorded response under an
//     idempotency key derived from the run, the stage visit and the
//     workflow version, so committing them again after a crash commits
//     nothing; STAGE_COMMITTED then names the artifact versions written,
//     together with the next step, in one atomic append;
//   - a write names the version it was computed from (its Base, recorded
//     in the response); one that conflicts with a change made since is
//     STAGE_CONFLICT, a failed attempt run again on the new content, never
//     an overwrite.
//
// A stage's response may name the author of its commit (Agent), add
// trailers to it (Trailers) and carry files stored beside its
// STAGE_SUCCEEDED under files/NAME (Files); the engine checks them
// (response.go), and one it refuses is a permanent failure of the attempt.
// A transition to end may carry an outcome (`status`), which RUN_COMPLETED
// records and the run's status becomes. Options.OnFinish, if set, makes
// the output of each terminal event the engine appends (finish.go).
// Workflows are the workspace's files, then the built-in ones
// (Options.Builtin) no file overrides.
//
// A step that keeps failing because the disk is full fails the run after
// Options.SpaceRetries tries (space.go) instead of being retried for ever.
//
// Transient failures are retried with exponential backoff and full jitter
// up to the stage's attempt limit; permanent failures and exhausted
// retries are dead-lettered and abort the run, which `lunad run retry`
// resumes. Replay re-drives a run's decisions from its recorded responses
// and compares the state path, the terminal status and the tree the run
// wrote; a live replay runs the agents again, handing each the files its
// stage visit stored (StageRequest.Recorded).
//
// The decisions are shared by the live driver (drive.go: one goroutine per
// live run, slots for attempts, the idempotent receiver Complete) and replay
// (replay.go); start keys, cancel, retry and prune are its other operations.
// An isolated run works on a branch and worktree of its own and is accepted or
// discarded (isolation.go). The engine reaches git only through its Store
// interface (the run log) and the workspace only through Effects and
// Isolation.
package runs
