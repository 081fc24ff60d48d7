// Package stageclock is the clock of one stage visit of an agent's
// workflow: every reading is kept and stored beside the stage's
// STAGE_SUCCEEDED event as the stage file File, and a live replay of the
// stage reads them back in order, so what the stage computed from the
// time (a working memory's snapshot, a duration) is the original's. The
// built-in workflows' agents (agents/ask, agents/goal) give their working
// memories this clock.
package stageclock
