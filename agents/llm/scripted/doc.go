// Package scripted is lunad's model provider for tests and demos: canned
// responses from a file ([llm] script), no model.
//
// The file is either a JSON array of entries or JSON lines (one entry per
// line; blank lines and lines starting with # are skipped). An entry:
//
//	{"when": "parse_config",          // optional: a substring of the last user message
//	 "when_role": "tool",             // optional: the role of the last message
//	 "when_system": "You are the writer", // optional: a substring of the system prompt
//	 "repeat": false,                 // optional: serve it on every match, not once
//	 "content": "text of the answer",
//	 "json": {"intent": "create"},    // optional: structured answer (becomes content, compact)
//	 "tool_calls": [{"id": "c1", "name": "create_artifact", "arguments": {"title": "x"}}],
//	 "usage": {"input_tokens": 10, "output_tokens": 5},
//	 "model": "scripted", "stop_reason": "tool_calls",
//	 "error": {"kind": "transient", "status": 429, "message": "rate limited"}} // optional: fail instead
//
// The file is read whole when the provider is made, up to 16 times
// [llm] max_response: a larger one is refused.
//
// A call is answered by the first entry, in file order, that has not been
// used (or repeats) and whose conditions all hold; an entry without
// conditions matches any call, so a file without conditions is served in
// order. When no entry is left the call fails with a Permanent error that
// says which call and what its last message was.
package scripted
