// Package memory is the working memory of one agent run: what the run may
// still spend and what it has done, so that it ends cleanly instead of
// burning tokens in a loop.
//
// A Memory is created when a run starts (New), restored after a crash from
// the Snapshot kept in the run's events (Decode, Restore), and deleted when
// the run ends; its Summary is the run's last event. It guards every model
// call and every step of an agent:
//
//   - budgets (tokens, model calls, wall time) for the run and per worker
//     role, checked by Before ahead of every call (*BudgetError), with a
//     warning recorded at 80%;
//   - the call graph supervisor → worker → handoff (Enter, Leave) with a
//     maximum depth and loop detection A→B→A→B (*LoopError);
//   - a circuit breaker per provider, closed → open after N consecutive
//     failures → half-open after a cooldown (one trial call) → closed on
//     success or open again (*BreakerOpenError names the fallback);
//   - a stall detector over the tool steps of each role (Step,
//     *StallError): the same action and observation 4 times, the same
//     failing action 3 times, 3 turns without a tool call, an A-B-A-B
//     alternation over 6 steps, no progress for K steps;
//   - a sliding window of calls and the time of the last activity, which
//     the Store's TTL reads to remove abandoned memories.
//
// Time comes only from the injected Options.Clock. Every method is safe for
// concurrent use. The package imports only the module root and the standard
// library: token counts are plain ints.
//
// Store holds the live runs' memories; Sweep drops those idle past their
// TTL, and Start runs a janitor that sweeps until Close, which waits for it.
package memory
