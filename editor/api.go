package editor

// Block is one SEARCH/REPLACE edit. Path is the target named before a fenced
// block ("" when the structured form does not name one).
type Block struct {
	Path    string `json:"path,omitempty"`
	Search  string `json:"search"`
	Replace string `json:"replace"`
}

// Tier names how a SEARCH text was matched, in the order tiers are tried.
// For each block the first tier that finds any place decides: exactly one
// place is the match, more than one is an *AmbiguousError (a later tier is
// never tried, and the first place never wins). All tiers compare whole
// lines; CRLF and LF line ends are never told apart.
//
//   - exact: the SEARCH lines are in the content as they are.
//   - trailing-whitespace: the same, ignoring spaces, tabs and CRs at line ends.
//   - indentation: the same, ignoring leading whitespace too, provided one
//     linear map takes every SEARCH line's indentation to the content's (a
//     block uniformly under- or over-indented, or written with spaces for
//     tabs, 2 spaces for 4); new REPLACE lines are re-indented by that map
//     in the content's style (tabs or spaces): a changed line keeps the
//     indentation of the SEARCH line it replaces, another new line gets
//     the mapped width in the content's unit (never a copy of a matched
//     line that is as wide because it is aligned with spaces). A new line
//     indented with tabs where SEARCH has spaces (or the reverse) that the
//     map would put between two of the content's indentation levels is not
//     guessed at: the block is refused (*NoMatchError). Such a match is
//     ambiguous if SEARCH, with the right indentation but extra blank
//     lines, fits another place.
//   - quotes: SEARCH has typographic quotes (“ ” ‘ ’) where the content
//     has ASCII ones (" '); with them made ASCII, SEARCH is found by the
//     three rules above; the new REPLACE lines get ASCII quotes too, unless
//     the content has typographic quotes elsewhere (then they may be meant,
//     and REPLACE is kept as written).
//   - blank-lines: SEARCH has blank lines the content lacks (around or
//     inside it); they are dropped, with the REPLACE blank lines that mirror
//     them, and the non-blank lines are matched by the three rules above.
//   - elision: SEARCH lines that are just `...` (also `# ...`, `// ...`,
//     `// ... existing code ...`) stand for any run of lines; the parts
//     between must be found in order at exactly one set of places, and
//     REPLACE must have a `...` line at each corresponding place, where
//     the elided lines are kept.
//   - fuzzy: a window of as many lines, compared with whitespace runs
//     collapsed, with an edit-distance similarity of at least 0.95 (and
//     SEARCH of at least 20 non-space characters), clearly better than any
//     other window (see fuzzy.go), and indented like SEARCH relative to
//     itself; a one-character slip matches, a block from another file does
//     not.
//
// A block that is not found by any tier is tried once more without the
// wrapping a model sometimes puts inside it, around SEARCH or REPLACE: the
// block's file-name line and fence lines (```, ~~~, <source>, ...). If that
// matches (by any tier), the block is reported as unwrapped.
//
// A block whose SEARCH and REPLACE are the same changes nothing: among
// blocks that change something it is skipped and reported as no-op; an
// edit whose blocks are all like that is an *AlreadyAppliedError.
//
// Before the fuzzy tier, a SEARCH that was not found but whose REPLACE is in
// the content exactly once is reported as *AlreadyAppliedError.
//
// In every tier, REPLACE lines equal to SEARCH lines (by a line diff of the
// two) are written as the content has them, byte for byte: a context line
// keeps its trailing whitespace, its indentation, and (fuzzy) its own
// spelling where SEARCH had a slip.
type Tier string

const (
	TierExact              Tier = "exact"
	TierTrailingWhitespace Tier = "trailing-whitespace"
	TierIndentation        Tier = "indentation"
	TierQuotes             Tier = "quotes"
	TierBlankLines         Tier = "blank-lines"
	TierElision            Tier = "elision"
	TierFuzzy              Tier = "fuzzy"
	TierUnwrapped          Tier = "unwrapped" // found once the block's wrapping was dropped
	TierNoOp               Tier = "no-op"     // SEARCH equals REPLACE: nothing changed
	TierPatch              Tier = "patch"     // a unified diff hunk
	TierRewrite            Tier = "rewrite"   // whole-content rewrite
)

// Match says where one block (or hunk) applied: 1-based line numbers,
// inclusive, in the content it was applied to (for ApplyBlocks, the result
// of the blocks before it; for ApplyPatch and Rewrite, the original). A
// range that replaced no lines (an insertion) has EndLine = StartLine-1.
// A no-op block (TierNoOp) replaced nothing: its lines are where its text
// is, or 0-0 when that is not one place.
type Match struct {
	Block     int  `json:"block"` // 0-based index of the block or hunk
	Tier      Tier `json:"tier"`
	StartLine int  `json:"start_line"`
	EndLine   int  `json:"end_line"`
}

// Result is the outcome of a successful edit. Content never shares memory
// with the input. On error every function returns the zero Result.
type Result struct {
	Content []byte  `json:"-"`
	Matches []Match `json:"matches"`
}
