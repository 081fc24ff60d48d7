// Package worker runs lunad's workers — the coder, the writer and the
// reviewer — each with its own system prompt and tool set: the loop
// compile context → model call → tool calls → memory.Step, until the
// model finishes or hands off, a change fails three times, a guard of the
// working memory fires, or the step limit is reached. A model call is
// lunad's retry policy around the memory's guards (package guard): every
// attempt passes memory.Before and memory.After; when the provider's
// breaker opens, the fallback model is called.
//
// The prompts are files embedded in the binary (prompts/ROLE.md), each
// starting with a line giving its name@version, which the stage agent
// records on every commit as the Luna-Prompt trailer. A worker's system
// prompt is its prompt file and nothing else: no other role's
// instructions reach it, and the artifacts travel in the user message,
// wrapped in tagged blocks by the context compiler.
package worker
