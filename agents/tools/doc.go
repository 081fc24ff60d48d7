// Package tools is the tool layer of lunad's agents: the tools a worker's
// model may call (their names, descriptions and JSON schemas), the tool
// set of each role, and their execution on a staged Overlay of the
// workspace through the edit engine (package editor).
//
// Permissions are enforced here, not by the prompt: a Set offers a role's
// tools, and refuses a call of any other tool — or a write its role may
// not make — with a message that says what to do instead. The coder
// writes code and configuration (an article is the writer's: "hand off to
// the writer"); the writer writes prose (code is read-only for it: "hand
// off to the coder"); the reviewer writes nothing: it reports findings
// (report_finding) and may acknowledge references it checked
// (acknowledge). Unknown tools, arguments that are not a JSON object,
// unknown arguments and arguments of the wrong type are refused with a
// precise error for the model.
//
// Nothing is written to the workspace: writes are staged on the Overlay,
// whose Writes the stage agent returns to the workflow engine, which
// commits them as one commit when the stage succeeds (so a failed stage
// writes nothing). A tool that changes nothing and fails — a SEARCH text
// not found, a match in several places — returns the edit engine's error
// with its hints (the closest lines, the candidate lines) as the tool's
// result, marked IsError, so the model can correct itself.
//
// A file's role is decided by its path (RoleFor), never by its declared type;
// Set.Scope bounds writes to the route's target, a handoff's target and what
// the stage creates; Files and FileAt keep a create from landing over a file
// that is not an artifact.
package tools
