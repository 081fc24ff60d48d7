// Package window compiles the context of one model call: the artifacts a
// worker sees, as tagged blocks, under a token budget.
//
// Compile reads a Source (the workspace service, or the tools' staged
// overlay) and writes, deterministically — the same workspace state and
// Input give byte-identical text:
//
//   - a short preamble saying how to read the blocks (instructions live
//     outside blocks, in the worker's prompt; the preamble only describes);
//   - the index: one line per other artifact (id, type, path, title), in
//     an <artifact_index> block, nearest to the active artifact first;
//   - the dependencies, read-only: the route's read deps, then the active
//     artifact's explicit links, then the artifacts its outgoing references
//     resolve to (most-referenced first) — each in full, or outlined by its
//     symbols (the source line of each definition or heading) when the
//     budget does not hold it in full;
//   - the active artifact with line numbers ("N<TAB>line"), mode
//     active_write or read_only; one too large for the budget is windowed
//     around Input.Focus;
//   - a note naming what was left out and that read_artifact (and
//     list_artifacts) page it in.
//
// Each artifact is an <artifact id="…" type="…" version="…" path="…"
// title="…" mode="read_only|active_write" form="full|outline|window">
// block. Content cannot close or open a block: Escape writes a literal
// "<artifact" or "</artifact" (any case) as "<\artifact" / "<\/artifact"
// (and adds a backslash to an already escaped one, so Unescape inverts it).
//
// Compile reads everything anew; a Compiler (NewCompiler) keeps the
// artifact list between calls while the Source's HEAD commit stays the
// same (a Source that is a Header, as the workspace service is) — what a
// worker's loop of model calls holds.
//
// # Budget
//
// The budget is filled in a fixed priority order: the active artifact
// (full if it fits in the budget less the frame, else a window of at most
// three quarters of the budget), then the dependencies in full (in their
// order, each that fits), then outlines of those that did not fit, then
// index lines in index order. Context.Tokens is the sum of the counts of
// the pieces of Text (the preamble, each block, each index line, each
// note); every piece ends with a newline and starts with a non-space
// character, where the cl100k and o200k pre-tokenizers split anyway, so for
// those it equals the count of Text as a whole (TestTokensAdditive checks
// it). For the Claude estimate it is an upper bound.
//
// # Tokenizers
//
// TokenizerFor picks by model name: o200k_base for gpt-4o, gpt-4.1, gpt-5,
// the o-series and gpt-oss; cl100k_base for gpt-4, gpt-3.5 and as the
// default for any other model (OpenAI-compatible local servers: Llama,
// Qwen, Mistral...); for Claude models, which have no public tokenizer, an
// estimate of ceil(cl100k × 1.2) — Anthropic's tokenizers produce more
// tokens than cl100k for the same text, and a budget must not be
// under-counted. The vocabularies are embedded (tiktoken-go-loader): no
// network. Counts are cached by a 128-bit hash of the text, so a compile
// over an unchanged workspace re-tokenizes nothing.
//
// Runs of one character class longer than 256 bytes are cut before the
// tokenizer sees them (runs.go), so counting stays linear in the text.
package window
