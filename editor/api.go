// Package editor is lunad's pure edit engine: text in, edits in, text out or
// a precise error. It imports no sibling package and does no I/O.
//
// Three kinds of edit are supported: SEARCH/REPLACE blocks (Aider's fenced
// text format or the structured Block form), unified diffs, and whole-content
// rewrites. Every applier preserves line endings (CRLF stays CRLF), the final
// newline or its absence, and every byte outside the edit, and rejects binary
// content and invalid UTF-8.
package editor

// Block is one SEARCH/REPLACE edit. Path is the target named before a fenced
// block ("" when the structured form does not name one).
type Block struct {
	Path    string `json:"path,omitempty"`
	Search  string `json:"search"`
	Replace string `json:"replace"`
}

// Tier names how a SEARCH text was matched, in the order tiers are tried.
type Tier string

const (
	TierExact              Tier = "exact"
	TierTrailingWhitespace Tier = "trailing-whitespace"
	TierIndentation        Tier = "indentation"
	TierBlankLines         Tier = "blank-lines"
	TierElision            Tier = "elision"
	TierFuzzy              Tier = "fuzzy"
	TierPatch              Tier = "patch"   // a unified diff hunk
	TierRewrite            Tier = "rewrite" // whole-content rewrite
)

// Match says where one block (or hunk) applied: 1-based line numbers in the
// original content, inclusive.
type Match struct {
	Block     int  `json:"block"` // 0-based index of the block or hunk
	Tier      Tier `json:"tier"`
	StartLine int  `json:"start_line"`
	EndLine   int  `json:"end_line"`
}

// Result is the outcome of a successful edit.
type Result struct {
	Content []byte  `json:"-"`
	Matches []Match `json:"matches"`
}
