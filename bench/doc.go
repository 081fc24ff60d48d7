// Package bench holds lunad's end-to-end benchmarks. It has no library
// code: everything is in its _test.go files, run with
//
//	go test ./bench -run '^$' -bench . -benchtime 1x -timeout 30m
//
// BenchmarkEdits generates a 10,000-file workspace (Go, Python and Markdown
// files of 1–4 KB in about 100 nested directories, deterministically),
// commits it with the git CLI, adopts it with gitstore.Init, and then times
// the same sequence of one-line edits, each on its own copy of the
// workspace, made four ways: gitstore's in-process Edit (a durable commit),
// writing the file and running `git commit -q -am` (git's defaults, and
// with core.fsync=committed for a durable git), the `lunad edit` command as
// a whole process, and gitstore's Edit from 8 goroutines at once (group
// commit). It prints a table and reports p50/p95/edits-per-second and the
// ratios as benchmark metrics; for the ways that run a process per edit
// (git, `lunad edit`) also the process's CPU time (user and system), and
// (c)/(b0) in CPU time, the ratio a machine shared with other work does
// not distort. -bench.history N gives the generated repository N commits
// (a person's) before adoption, as a user's repository has. The figures
// are recorded in docs/benchmarks.md.
//
// BenchmarkReferences measures the reference index (refindex.Index) against
// universal-ctags, which must be installed (`make bench` installs it). It
// generates, deterministically, a tree of its own of -bench.files files
// (30% Go, 25% Python, 20% TypeScript, 25% Markdown; code of 40–300 lines
// whose functions and methods call those of other files, Markdown of
// 20–150 lines with headings, code spans naming real symbols,
// `file.py#func` and heading links, [[Title]] links and fenced code) in 100
// directories, then, best of -bench.reps runs each: times `ctags -R
// --fields=+n` on it; reads it into []refindex.Source and runs a cold Build
// with GOMAXPROCS workers and with one; saves the parse cache and times a
// warm LoadCache + Build; then, on the built index, makes two one-line
// edits of each of -bench.edits files (the first Update opens the file's
// tree, the second re-parses incrementally) and reports p50/p95 overall and
// per language; and reports the Go heap the index holds, the process's RSS
// and the cache file's size. It prints tables and the ratios to ctags'
// files/s, the CPU time of ctags and of the cold Build (their ratio is
// what a machine shared with other work distorts least), and reports the
// key figures as benchmark metrics. BenchmarkColdBuild times only the cold
// Build (-bench.workers; files/s, CPU ms per file, CPU/wall and the counts
// a change that skips work must keep): the loop to profile.
//
// BenchmarkLSP and BenchmarkMCP drive `lunad lsp` and `lunad mcp` as
// child processes from real protocol clients in an adopted references tree
// (see their doc comments); BenchmarkMCP times reads and edits against the
// same operations made with the command line, through the same daemon.
//
// BenchmarkStale times `lunad stale` as a process on the adopted
// references tree without a daemon (nothing saved, the answer the last
// process saved, after a `lunad edit`) and through `lunad serve`, in the
// same run, checking that every answer at one state is the same.
// BenchmarkEditorReady times a usable editor: `lunad lsp` started with no
// daemon to the first diagnostic on an open document, with the daemon's
// index cold and from the parse cache.
//
// BenchmarkRuns runs the DSMO paper's workloads — W1 linear
// A→B→C, W2 conditional A→(B|C)→D, W3 random timeouts and transient
// failures in B and C, W4 50 runs at once through 4 slots with retries —
// under lunad's workflow engine (a gitstore workspace, built-in Go agents
// registered through runs.Options.Agents, faults drawn from a seeded RNG
// per run, stage and attempt) and under two baselines built in the same
// run with the same agent and faults: choreography (an at-least-once queue
// with a visibility timeout; each agent enqueues the next stage itself)
// and agent-decides (a central driver that follows the stage the agent's
// output names). It replays every run from its log and live, and prints
// the paper's table per workload (success rate, SPS, RSR, divergence,
// orphans, duplicates, dead letters, latency, per-transition overhead,
// events and bytes per run, runs per minute). `-bench.runs W1,W3` picks
// workloads.
//
// BenchmarkContext times context compilation (agents/window)
// through the workspace service on the references tree of -bench.files
// artifacts: warm and cold p50/p99 and CPU time per compile, the tokens of
// a compiled context of -bench.ctxbudget tokens, and the naive baseline of
// every artifact in the prompt, with the ratio.
//
// BenchmarkSandboxStart runs `true` directly with os/exec,
// through a sandbox.Runner without bwrap, and through one with bwrap,
// interleaved, and reports the p50 of each and the ratio of the sandboxed
// start to the direct one.
//
// BenchmarkGoalStep runs goals end to end through the goal
// workflow on the references tree of 100 and 1,000 files, with a model
// that answers at once and a command runner that runs nothing, and
// reports each step's time less the model's and the commands': the
// policy, the state, the recorded call, the run log, the commit and the
// tests of a mutating step, the worktree snapshots of a command step.
package bench
