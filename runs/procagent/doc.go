// Package procagent is the process agent: a lunad.Agent that runs a
// command for each stage of a run (the agent of a workflow stage that names a
// command rather than a built-in agent).
//
// # The contract
//
// The process gets the stage's lunad.StageRequest as one JSON object on
// stdin:
//
//	{"run_id": …, "correlation_id": …, "stage": …, "attempt": 1,
//	 "workflow": …, "workflow_version": …, "idempotency_key": …,
//	 "inputs": [{"id": …, "path": …, "version": 3, "commit": …}],
//	 "params": {…}, "outputs": {"earlier-stage": {…}}, "visit": 1}
//
// (inputs is always an array and params and outputs always objects, never
// null; visit is the stage visit's position in the run's path; a live
// replay adds "replay": true) and prints one JSON object on stdout, then exits 0:
//
//	{"status": "ok"|"fail", "permanent": false, "output": {…},
//	 "writes": [{"path": "notes/a.md", "content": "…", "base": "<commit>"}], "error": "…",
//	 "agent": "writer", "trailers": {"Model": "…"}, "files": {"llm/0001.json": "…"}}
//
// Only status is required. agent (the author of the commit of the writes),
// trailers (extra Luna-<key> trailers of that commit; lunad's own names,
// Run, Stage and Attempt refused) and files (text files stored with the
// run's log under files/NAME) are optional; the engine checks them, and
// one it refuses fails the attempt for good.
//
// output, when present and not null, must be a JSON object (a small structured summary the engine's transitions read);
// each write's path is relative to the workspace root, and its optional
// base the commit of the version its content was computed from: the
// workspace then merges the write into a version saved since rather than
// putting it over it. Unknown fields are
// ignored. The agent never writes to the workspace itself: the engine
// commits the writes (and rejects paths outside the workspace or in .git
// and .luna).
//
// # How outcomes are classified
//
// Process returns the response for everything the agent reported in the
// contract's terms, and an error otherwise. A *lunad.AgentError is
// transient (Permanent false: the engine may retry the stage) when a retry
// of the same code could succeed, and permanent when it cannot:
//
//	what happened                                   Process returns
//	----------------------------------------------  ---------------------------------------------------
//	exit 0, {"status": "ok", …}                     the response
//	exit 0, {"status": "fail", …}                   the response (the engine may retry it)
//	exit 0, {"status": "fail", "permanent": true}   the response (the engine dead-letters it)
//	non-zero exit                                   transient: "exit status 3; stderr: <last 2 KB>"
//	killed by a signal (a crash, the OOM killer)    transient: "killed by signal 9 (SIGKILL); stderr: …"
//	the timeout (Options.Timeout or ctx's deadline) transient: "timed out after 30s; stderr: …"
//	nothing on stdout (or only white space)         transient: "printed nothing; stderr: …"
//	stdout is not one JSON object                   transient: "stdout is not a JSON object: invalid character 'x' looking for beginning of value at offset 0"
//	the command cannot be started (fork failed)     transient: "cannot start …"
//	the command does not exist or is not executable permanent: "cannot start …"
//	more than Options.MaxOutput on stdout           permanent: "printed more than 16 MiB on stdout"
//	a JSON object that breaks the contract: status  permanent: "broke the agent contract: status \"done\" is neither \"ok\" nor \"fail\""
//	  missing or not ok/fail, a field of the wrong
//	  type, output not an object, a write with an
//	  empty path, trailers or files not an object
//	  of strings
//	ctx cancelled                                   ctx.Err(), wrapped (not an AgentError)
//
// A non-zero exit is a failure even when stdout holds a valid response.
// A timeout's error matches context.DeadlineExceeded with errors.Is.
// Every transient message ends with the last 2 KB of the agent's stderr
// (only the last 64 KB of stderr are ever kept in memory).
//
// # The process
//
// The command runs with the workspace root as its working directory — for
// an isolated run (a request with "dir", the run's worktree, and
// "branch") in that worktree, where its branch is checked out — in a
// process group of its own. The timeout — the earlier of Options.Timeout
// and ctx's deadline — and ctx's cancellation are enforced on the whole
// group: SIGTERM, then SIGKILL after Options.KillGrace. When the command
// exits, whatever it left running in its group (a forked child, a
// background job) is killed, so an agent that forks and exits neither
// outlives its stage nor keeps Process waiting on its stdout. (A
// descendant that leaves the group with setsid is out of reach: Process
// stops waiting for the pipes it holds shortly after the command exits.)
// Stdout is read up to Options.MaxOutput and no further: past it the
// group is killed.
//
// With Options.Groups, the group is recorded in that directory (its ID
// and its leader's start time) durably before the command runs — it is
// started through a gate that a lunad dying first never opens — and the
// record removed once the group is dead; EndLeftovers, called by the
// next lunad before any agent runs, ends the recorded groups that still
// run: the agents of a lunad that was killed (groups.go).
//
// # The environment
//
// The parent's environment is not inherited, so no secret (an API key, a
// token) reaches an agent unless configured. The process gets PATH, HOME,
// LANG and TMPDIR from the parent (those that are set), then
// Options.Env — "NAME=value" sets a variable, a bare "NAME" passes the
// parent's value through — then:
//
//	LUNAD_RUN_ID     the run's ID
//	LUNAD_STAGE      the stage's name
//	LUNAD_ATTEMPT    the attempt, from 1
//	LUNAD_WORKSPACE  the workspace root, absolute
//
// which Options.Env cannot override.
//
// # The version
//
// Version is "process:" and the first 12 hex digits of a SHA-256 over the
// command's arguments and the content of each argument that names a
// regular file inside the workspace (relative to its root; the command
// itself only when it holds a slash, as exec looks it up on PATH
// otherwise). Editing agents/draft.py thus changes the version recorded on
// the run's events; the workspace's location and the environment do not.
//
// Callers that run the command their own way (a queue worker's sandbox) use
// the contract's encoding directly: EncodeRequest and DecodeResponse.
package procagent
