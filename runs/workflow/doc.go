// Package workflow defines lunad's workflows: versioned state machines,
// one TOML file per workflow under .luna/workflows/NAME.toml, that the run
// engine drives stage by stage. It parses and checks the files, compiles
// their transitions and chooses the next stage of a run; it runs nothing
// and knows no protocol.
//
// # The file
//
// The shape is a contract (scripts and tests outside lunad write such
// files):
//
//	name = "review"          # required; must be the file's name (review.toml)
//	version = "1"            # optional; recorded with the file's blob hash
//	start = "draft"          # required: the first stage
//	isolated = true          # optional (default false): each run on a branch and worktree of its own
//
//	[stages.draft]
//	command = ["python3", "agents/draft.py"]   # a process agent, or
//	# agent = "writer"                         # a built-in agent: exactly one of the two
//	params = { tone = "plain" }                # optional strings for the agent; the run's params override them
//	timeout = "30s"                            # default 60s
//	retry = { max_attempts = 3, initial = "100ms", max = "5s" }
//
//	[[stages.draft.next]]
//	to = "publish"
//	when = "output.score >= 0.8"   # CEL over output, outputs and run
//
//	[[stages.draft.next]]
//	to = "rework"                  # no when: the default branch
//
//	[[stages.rework.next]]
//	to = "end"
//	when = "output.gave_up"
//	status = "abandoned"           # the run's outcome: its status instead of "completed"
//
// Stage names are letters, digits, '_' and '-'; "end" is not a stage but
// what `to` names to finish the run. Durations are Go durations ("30s",
// "1m30s", "100ms").
//
// retry applies to transient failures: max_attempts counts every attempt,
// the first included (default 1: no retry); the wait before attempt n+1 is
// a random time between 0 and min(max, initial·2^(n-1)) (exponential
// backoff with full jitter; defaults initial 100ms, max 5s). See
// Retry.Delay.
//
// status, only on a transition to end, names the outcome the run ends with:
// a lowercase identifier (a-z, 0-9, '_', a letter first) other than the
// engine's own statuses (running, completed, aborted, cancelled,
// dead_lettered). The run's status is then that outcome.
//
// isolated = true makes each run of the workflow work on a branch of its
// own, luna/NAME/RUN-ID, made from the tip of the branch checked out when
// the run starts, and checked out in a linked worktree of its own: stage
// agents get the branch and the worktree's path (StageRequest.Branch and
// Dir; a process agent runs there), the engine commits the stages' writes
// on that branch, and the branch the run was made from changes only when
// the run is accepted (lunad.WorkflowRuns.AcceptRun). Without it (false, the
// default) a run's writes are commits on the current branch.
//
// `next` may also be written as an array of inline tables:
// next = [{ to = "a", when = "..." }, { to = "end" }].
//
// # Transitions
//
// After a stage succeeds the engine evaluates its transitions in file
// order: the first whose `when` is true wins; a transition without `when`
// is the default, taken when none before it is true, so it must be the
// last and there may be one at most. The expressions are CEL
// (https://cel.dev) over three variables (see Env):
//
//	output    the stage's structured output (a JSON object)
//	outputs   the outputs of earlier stages, by stage name: outputs.draft.score
//	run       run.id, run.workflow, run.attempt, run.params.NAME
//
// Evaluation is deterministic (no clock, no randomness, maps iterated in
// key order) and bounded (MaxCost). An expression that fails at run time —
// a missing key, a result that is not a bool — is an *EvalError naming the
// stage, the expression and its inputs; the engine aborts the run with it.
//
// # Checks
//
// Parse (and Check, and Load) report every problem at once, each at the
// line and column of the key it is about, one `file:line:col: message`
// line each (*lunad.CheckError, which wraps lunad.ErrInvalid): TOML syntax,
// unknown keys, values of the wrong type, a missing name or start, a start
// or a `to` naming no stage, stages that start cannot reach, stages from
// which no path reaches end, `when` expressions that do not compile or are
// not boolean, two default branches or one that is not last, a stage with
// both or neither of command and agent, bad durations, max_attempts < 1,
// a status on a transition that does not end the run, or one that is not
// a lowercase identifier or is the engine's own, isolated that is not a
// boolean.
//
// # Versions
//
// The version recorded on every event of a run is VersionID: the file's
// `version` and its git blob hash, "1@<blob>" (BlobHash computes it
// without git), so any edit of the file is a new version.
//
// A workflow's version is VERSION@BLOB (its declared version and the git blob
// of its file); Next evaluates the transitions, each CEL expression compiled
// once and run with a cost limit.
package workflow
