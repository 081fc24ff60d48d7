// Package stage is the runtime of one stage visit of an agent's workflow
// (Visit), shared by the built-in workflows' agents (agents/ask,
// agents/goal): its clock, the run's working memory resumed on it, its
// model calls behind recorders, and the retry policy around them.
//
// A visit is a function of its request: everything it takes from the
// world is kept beside its STAGE_SUCCEEDED event as stage files, and a
// live replay of the stage (StageRequest.Replay) serves them back, so it
// calls no model and computes what the original computed, byte for byte.
//
//   - The clock (Clock): every reading is kept as the stage file
//     ClockFile, and a replay reads them back in order, so what the
//     stage computed from the time (a working memory's snapshot, a
//     duration) is the original's.
//   - The working memory (Visit.Memory): resumed from the snapshot the
//     stage before left in its output, on the visit's clock.
//   - The model calls (Visit.Model): one llm.Recorder per folder of stage
//     files, wrapped around the bare provider, or in a replay around an
//     llm.Replayer of the calls recorded there.
//   - The retry policy (Visit.Retry): a replay does not wait between the
//     recorded attempts it serves.
//
// What an agent takes from the world besides its model and its clock (the
// ask's reads of the workspace, a goal's effects) and what its output
// holds stay its own; Visit.Files adds the visit's files to its own.
package stage
