// Package openai is lunad's model provider over the official OpenAI Go SDK
// (github.com/openai/openai-go/v3), chat completions. Any server speaking
// that protocol works through [llm] base_url: OpenAI, Ollama
// (http://127.0.0.1:11434/v1), vLLM, the llama.cpp server, LM Studio.
//
// It sends tools as functions, a response format as `response_format:
// json_schema` with strict true, and temperature, seed and max tokens
// (max_completion_tokens to api.openai.com, max_tokens to any other base
// URL, which is what the local servers read); max tokens is always sent ([llm]
// max_tokens, llm.DefaultMaxTokens when unset), so that a local server
// never generates until its context is full. An answer whose finish reason
// is "length" is an llm.Cut error whatever it holds: its tool calls are
// prefixes. A tool result that is an
// error is sent with the content prefixed "error: " (the protocol has no
// flag for it). The SDK's own retries are off (option.WithMaxRetries(0))
// and the SDK reads nothing from the environment: lunad's llm.Retry sees
// every call, and the key comes only from the variable [llm] api_key_env
// names. Errors are *llm.Error; no SDK type and never the key leave the
// package.
package openai
