// Package providers makes the llm.Provider a configuration names: New
// picks openai, anthropic, process or scripted by [llm] provider (or
// LUNAD_LLM_PROVIDER) and wraps it in lunad's llm.Retry.
package providers
