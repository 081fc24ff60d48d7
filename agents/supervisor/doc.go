// Package supervisor is the router of lunad's agents: from the user's
// request, the active artifact and the workspace's artifact metadata (id,
// path, type, title, status, version — never content) it decides what is
// to be done and by which worker, as the structured output named "route"
// (lunad.AskRoute, validated against its JSON schema and against the
// workspace). The supervisor never edits.
//
// An answer that does not validate gets one retry carrying the validation
// error; a second invalid answer ends the ask fail-safe: nothing is
// written and the user is asked to be more specific. An ambiguous request
// — an edit with no target, no active artifact and several artifacts of
// the kind it needs — is returned to the user as a question naming the
// candidates; it is never guessed.
package supervisor
