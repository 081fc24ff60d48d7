// Package editor is lunad's pure edit engine: text in, edits in, text out or
// a precise error. It imports no sibling package and does no I/O.
//
// Three kinds of edit are supported: SEARCH/REPLACE blocks (Aider's fenced
// text format, with the fences, markers and envelopes other tools' models
// write — Cline's markers, Codex's apply_patch hunks; or the structured
// Block form), unified diffs, and whole-content rewrites. Every applier preserves line endings (CRLF stays CRLF), the final
// newline or its absence, and every byte outside the edit, and rejects binary
// content and invalid UTF-8.
//
// Beside the appliers it diffs two texts, merges three byte for byte line by
// line (Merge3, merge3.go: how a stage's write lands on an artifact a person
// changed meanwhile) and returns typed errors that say what to fix
// (NoMatchError with the closest lines, AmbiguousError), which the daemon
// carries across its socket and each adapter words its own way.
package editor
