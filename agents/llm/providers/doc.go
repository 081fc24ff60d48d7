// Package providers makes the llm.Provider a configuration names: New
// picks openai, anthropic, process or scripted by [llm] provider (or
// LUNAD_LLM_PROVIDER) and wraps it in lunad's llm.Retry, unless the
// caller retries around it (WithoutRetry: lunad's agents put the run's
// working memory between the retry and the provider).
package providers
