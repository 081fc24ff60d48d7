// Package anthropic is lunad's model provider over the official Anthropic
// Go SDK (github.com/anthropics/anthropic-sdk-go/v2), Messages API.
//
// The system prompt goes in `system`; tools as tools with their input
// schemas; tool calls and results as tool_use and tool_result blocks
// (consecutive tool results and user text are sent as one user turn, as
// the API wants). Structured output is a forced tool call: the response
// format becomes a tool named after it, tool_choice {type: tool, name},
// and the tool's input is returned as Message.Content (JSON). The API has
// no seed: Request.Seed is not sent. Temperature is sent when set; max
// tokens is always sent ([llm] max_tokens, llm.DefaultMaxTokens when
// unset). An answer stopped at max_tokens is an llm.Cut error, whatever
// its blocks hold. An answer sent as an event stream (text/event-stream)
// is read as the Message its events add up to (llm.AssembleStreams).
//
// The SDK's retries are off (option.WithMaxRetries(0)) and it reads
// nothing from the environment (option.WithoutEnvironmentDefaults): the
// key comes only from the variable [llm] api_key_env names. Errors are
// *llm.Error; no SDK type and never the key leave the package.
package anthropic
