// Package ask binds lunad's agents into the built-in workflow "ask"
// (ask.toml, embedded): the supervisor's stage routes the request, a
// worker's stage (coder, writer, reviewer) does it, a handoff goes to the
// worker it names, and the run ends done or with the outcome a stage
// reports — question, dry_run, budget_exhausted, stopped, failed — as the
// run's status.
//
// Each stage is a lunad.Agent (Agents): it reads the workspace, calls its
// model through a recorder, stages its writes on a tools.Overlay and
// returns them in its StageResponse with the worker as the commit's author
// (Agent) and the trailers Luna-Model and Luna-Prompt (name@version); the
// engine commits them only when the stage succeeds with outcome done or
// handoff, so a stopped, failed or exhausted stage writes nothing.
//
// Each stage's output carries the run's working memory as a snapshot, and
// each stage resumes the memory from its predecessor's: a resumed run
// continues its budgets, and a stage's memory is a function of its
// request. The live memories are kept in a store until the run ends
// (OnFinish) or, for an abandoned run, until they idle longer than the
// TTL (Sweep). A stage records its model calls (ROLE/llm/NNNN.json), its
// reads of the workspace (workspace.json) and its memory's clock
// (clock.json) beside its STAGE_SUCCEEDED event; a live replay serves
// all three back, so it calls no model, sees the workspace as the
// original stage did, and produces the original's outputs and writes.
// The clock, the memory and the recorded calls are agents/stage's Visit,
// which the goal's stages use too.
//
// OnFinish builds the lunad.AskResult that the run's terminal event
// carries: the route, the workers that ran, the changes with their line
// counts, the stale follow-ups (artifacts whose references to what the
// run edited are now stale), the findings, the usage and the working
// memory's summary.
//
// The artifacts Options.Reads refuses (the policy's denied reads, wired by
// cmd/lunad) are withheld from every listing, read and context (withheld.go).
package ask
