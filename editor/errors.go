package editor

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors. Every error the package returns wraps exactly one of them;
// test with errors.Is. The typed errors below carry the details.
var (
	// ErrNoMatch: a SEARCH text (or a hunk's context) is not in the content.
	ErrNoMatch = errors.New("no match")
	// ErrAmbiguous: a SEARCH text (or a hunk) matches more than one place.
	ErrAmbiguous = errors.New("ambiguous match")
	// ErrAlreadyApplied: the edit's result is already in the content.
	ErrAlreadyApplied = errors.New("edit already applied")
	// ErrBadBlocks: SEARCH/REPLACE text that does not parse.
	ErrBadBlocks = errors.New("malformed SEARCH/REPLACE blocks")
	// ErrBadPatch: a unified diff that does not parse.
	ErrBadPatch = errors.New("malformed patch")
	// ErrBinary: content (or edit text) with a NUL byte.
	ErrBinary = errors.New("binary content")
	// ErrInvalidUTF8: content (or edit text) that is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrEmptySearch: a SEARCH text with nothing but whitespace in it,
	// given for content that is not empty.
	ErrEmptySearch = errors.New("empty SEARCH")
)

// Hint is one line of the content that is close to a SEARCH text that was
// not found.
type Hint struct {
	Line  int     `json:"line"`  // 1-based line number in the content
	Text  string  `json:"text"`  // the line as it is in the content, without its line ending
	Score float64 `json:"score"` // similarity (0..1) to the corresponding SEARCH line, whitespace runs ignored
}

// NoMatchError says a SEARCH text (Kind "block") or a hunk's context and
// removed lines (Kind "hunk") were not found. Hints is the window of the
// content most similar to the searched lines ("did you mean"): as many
// consecutive lines as were searched (at most 40), in order; empty for
// empty content. Error() quotes them with their line numbers.
type NoMatchError struct {
	Kind   string  `json:"kind"`   // "block" or "hunk"
	Block  int     `json:"block"`  // 0-based index of the block or hunk
	Search string  `json:"search"` // the first non-blank searched line
	Hints  []Hint  `json:"hints,omitempty"`
	Score  float64 `json:"score"`            // similarity of the Hints window as a whole
	Detail string  `json:"detail,omitempty"` // extra explanation (e.g. why `...` elision did not apply)
}

// Summary is the error's message without the closest lines: for an
// adapter that shows Hints in its own form (see lunad.Reword).
func (e *NoMatchError) Summary() string {
	var b strings.Builder
	b.WriteString(label(e.Kind, e.Block))
	if e.Kind == "hunk" {
		fmt.Fprintf(&b, "%v: the hunk's context and '-' lines are not in the file (first: %s); they must match the file exactly", ErrNoMatch, strconv.Quote(e.Search))
	} else {
		fmt.Fprintf(&b, "%v: SEARCH text not found (first line: %s); SEARCH must match the file exactly, whole lines, including indentation", ErrNoMatch, strconv.Quote(e.Search))
	}
	if e.Detail != "" {
		b.WriteString("; " + e.Detail)
	}
	return b.String()
}

func (e *NoMatchError) Error() string {
	var b strings.Builder
	b.WriteString(e.Summary())
	if len(e.Hints) == 0 {
		b.WriteString("; re-read the file and copy the lines to change exactly")
		return b.String()
	}
	if first, last := e.Hints[0].Line, e.Hints[len(e.Hints)-1].Line; first == last {
		fmt.Fprintf(&b, "; the closest line is %d (similarity %.2f):\n", first, e.Score)
	} else {
		fmt.Fprintf(&b, "; the closest lines are %d-%d (similarity %.2f):\n", first, last, e.Score)
	}
	for _, h := range e.Hints {
		t := h.Text
		if len(t) > 200 {
			t = t[:200] + "…"
		}
		fmt.Fprintf(&b, "%6d | %s\n", h.Line, t)
	}
	b.WriteString("copy them exactly (or re-read the file) and try again")
	return b.String()
}

func (e *NoMatchError) Unwrap() error { return ErrNoMatch }

// AmbiguousError says a SEARCH text (or hunk) matched more than one place at
// the same tier. Nothing is applied: the first match never wins.
type AmbiguousError struct {
	Kind  string `json:"kind"`  // "block" or "hunk"
	Block int    `json:"block"` // 0-based index of the block or hunk
	Tier  Tier   `json:"tier"`
	Lines []int  `json:"lines"` // 1-based start line of every candidate
}

func (e *AmbiguousError) Error() string {
	shown := e.Lines
	more := ""
	if len(shown) > 20 {
		more = fmt.Sprintf(" and %d more", len(shown)-20)
		shown = shown[:20]
	}
	nums := make([]string, len(shown))
	for i, l := range shown {
		nums[i] = strconv.Itoa(l)
	}
	what := fmt.Sprintf("SEARCH text matches %d places (%s match)", len(e.Lines), e.Tier)
	fix := "add surrounding lines to SEARCH (and REPLACE) so it matches exactly one place"
	if e.Kind == "hunk" {
		what = fmt.Sprintf("the hunk's context and '-' lines match %d places", len(e.Lines))
		fix = "give more context lines or the right line numbers in the @@ line"
	}
	return fmt.Sprintf("%s%v: %s starting at lines %s%s; %s",
		label(e.Kind, e.Block), ErrAmbiguous, what, strings.Join(nums, ", "), more, fix)
}

func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// AlreadyAppliedError says a block's REPLACE text is already in the content
// at Line (1-based) while its SEARCH text is not, or would be inserted again
// around itself, or that SEARCH and REPLACE are the same. Nothing changed.
type AlreadyAppliedError struct {
	Block  int  `json:"block"`            // 0-based index of the block
	Line   int  `json:"line"`             // 1-based line where the REPLACE text starts
	NoOp   bool `json:"noop,omitempty"`   // SEARCH and REPLACE are identical
	Around bool `json:"around,omitempty"` // REPLACE contains SEARCH and is already there around it
}

func (e *AlreadyAppliedError) Error() string {
	if e.NoOp {
		at := ""
		if e.Line > 0 {
			at = fmt.Sprintf(" (the text is at line %d)", e.Line)
		}
		return fmt.Sprintf("%s%v: SEARCH and REPLACE are identical%s, so the edit changes nothing; put the new text in REPLACE",
			label("block", e.Block), ErrAlreadyApplied, at)
	}
	if e.Around {
		return fmt.Sprintf("%s%v: the REPLACE text is already in the file at line %d, around the SEARCH text, so applying the block again would add its new lines a second time; nothing changed (re-read the file; use a unified diff or a rewrite if you really mean to add the lines again)",
			label("block", e.Block), ErrAlreadyApplied, e.Line)
	}
	return fmt.Sprintf("%s%v: the REPLACE text is already in the file at line %d and the SEARCH text is not there to replace; nothing changed (re-read the file before editing further)",
		label("block", e.Block), ErrAlreadyApplied, e.Line)
}

func (e *AlreadyAppliedError) Unwrap() error { return ErrAlreadyApplied }

// ParseError says SEARCH/REPLACE text (Err == ErrBadBlocks) or a patch
// (Err == ErrBadPatch) is malformed at Line (1-based).
type ParseError struct {
	Err   error  `json:"-"`
	Block int    `json:"block"` // 0-based block or hunk index, -1 when not about one
	Line  int    `json:"line"`
	Msg   string `json:"message"` // what is wrong and what to do
}

func (e *ParseError) Error() string {
	kind := "block"
	if e.Err == ErrBadPatch {
		kind = "hunk"
	}
	prefix := ""
	if e.Block >= 0 {
		prefix = label(kind, e.Block)
	}
	return fmt.Sprintf("%sline %d: %v: %s", prefix, e.Line, e.Err, e.Msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

// TextError says a text is binary (Err == ErrBinary) or not UTF-8
// (Err == ErrInvalidUTF8).
type TextError struct {
	Err    error  `json:"-"`
	What   string `json:"what,omitempty"` // which text: "content", "block 2: SEARCH", "patch", ...
	Offset int    `json:"offset"`         // 0-based byte offset of the first bad byte
	Line   int    `json:"line"`           // 1-based line of that byte
}

func (e *TextError) Error() string {
	prefix := ""
	if e.What != "" {
		prefix = e.What + ": "
	}
	if e.Err == ErrBinary {
		return fmt.Sprintf("%s%v (NUL byte at offset %d, line %d); only text can be edited", prefix, e.Err, e.Offset, e.Line)
	}
	return fmt.Sprintf("%s%v at byte offset %d (line %d); text must be UTF-8", prefix, e.Err, e.Offset, e.Line)
}

func (e *TextError) Unwrap() error { return e.Err }

// label is the "block N: " (1-based) prefix of an error message.
func label(kind string, i int) string {
	if kind == "" {
		kind = "block"
	}
	return fmt.Sprintf("%s %d: ", kind, i+1)
}
