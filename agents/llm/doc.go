// Package llm is lunad's vocabulary for model providers: a chat Request
// (system, messages, tools with JSON schemas, an optional JSON-schema
// response format, temperature, seed, max tokens) and its Response (a
// message with text and tool calls, usage, model, stop reason); the
// Provider interface every implementation (openai, anthropic, process,
// scripted — in subpackages) satisfies; the typed *Error whose Kind says
// whether a call may be retried and whose Setting names what to fix;
// Config, the [llm] section of .luna/config.toml and its per-role
// overrides; Retry, lunad's retry policy (the SDKs' own retries are off so
// budgets and breakers see every attempt); and the Recorder and Replayer
// that store every call of a run and serve them back by request hash.
//
// It imports only the module root and the standard library.
//
// Config has Validate and Merge (a role's section over [llm]). limit.go bounds
// what is read of one answer ([llm] max_response: LimitTransport, TooLarge,
// ResponseLimit); Secrets and Quote say what a provider redacts from a
// server's messages (the key and the base URL's secrets); Retry backs off with
// full jitter and honours Retry-After; Hash keys a request for the Replayer,
// whose miss names the first field that differs.
package llm
