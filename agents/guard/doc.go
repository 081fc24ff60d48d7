// Package guard puts a run's working memory between lunad's retry policy
// and a model provider: Retried is llm.Retry around Provider, so every
// HTTP attempt — not every retried call — passes memory.Before (the
// budgets, the provider's circuit breaker) and is reported with
// memory.After (its usage, its failure for the breaker). A call the memory
// refuses is not retried: it ends with a Permanent *llm.Error wrapping a
// *RefusedError, which wraps the memory's *memory.BudgetError or
// *memory.BreakerOpenError (errors.As and errors.Is find them).
//
// agents/llm knows nothing of the memory and agents/memory nothing of
// providers; the worker and the supervisor call their models through here.
package guard
