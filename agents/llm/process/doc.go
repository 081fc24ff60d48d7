// Package process is lunad's model provider that runs a command: any
// local runtime behind a small adapter script.
//
// Each call starts [llm] command (argv, no shell) in its own process
// group, writes the llm.Request as one JSON object on its stdin, closes
// it, and reads one llm.Response as a JSON object from its stdout, e.g.
//
//	{"message": {"role": "assistant", "content": "hello",
//	             "tool_calls": [{"id": "c1", "name": "finish", "arguments": {"summary": "done"}}]},
//	 "usage": {"input_tokens": 10, "output_tokens": 3}, "model": "local", "stop_reason": "tool_calls"}
//
// Unknown fields are refused (a typo is an error, not a silent default);
// the role defaults to assistant, the model to "process", the stop reason
// to tool_calls when there are tool calls and end otherwise. Stdout is
// read up to [llm] max_response (4 MiB by default): more fails the call as
// Permanent naming that setting. The tail of stderr (2 KiB) is quoted in
// errors. Errors:
// the command not found, garbage on stdout or a non-zero exit are
// Permanent (naming [llm] command), except exit status 75 (EX_TEMPFAIL),
// which is Transient, like the timeout ([llm] timeout), which kills the
// whole process group.
package process
