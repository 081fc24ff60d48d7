package editor

import (
	"fmt"
	"strings"
)

// ParseBlocks parses SEARCH/REPLACE blocks in Aider's format:
//
//	path/to/file.go
//	```go
//	<<<<<<< SEARCH
//	old lines
//	=======
//	new lines
//	>>>>>>> REPLACE
//	```
//
// The markers start their line and have 5 to 9 '<', '=' or '>' (trailing
// spaces are ignored); Cline's "------- SEARCH" and "+++++++ REPLACE" (5 to
// 9 '-' or '+') are the same markers. A block's Path is the line before it
// (before its opening fence, if any, or just after the fence), cleaned of
// markdown (`#`, `*`, backquotes, a trailing ':'); a line with spaces in it
// is not a path, nor is a plain word with a colon ("Then:"), and a block
// without a path has the previous block's path; Cline's
// <path>src/app.py</path> is a path too. Fence lines are markup, never a
// path: ``` or ~~~ with or without a language, and the HTML-like fences
// models also write (<source>, <source>python, </source>, <code>, <pre>,
// <codeblock>, Cline's <diff>), up to two of them in a row; so is a line
// of dots ("...", "…") that a model writes between blocks to say it
// skipped text. Anything between blocks is ignored. Search and Replace end with "\n"
// unless empty; CRLF is read as LF (and CRs at the end of a line are
// dropped).
//
// Text without blocks, a block without its ======= or >>>>>>> REPLACE line,
// a stray >>>>>>> REPLACE, and a second ======= in one block (the file's
// own "=======" line cannot be told from the divider: use a patch or a
// rewrite for those) give a *ParseError wrapping ErrBadBlocks; so does a
// unified diff, whose message says to send it as a patch. Text without
// blocks that holds a Codex apply_patch envelope is read as one (see
// parseApplyPatch). Text that is not UTF-8 gives ErrInvalidUTF8 or
// ErrBinary.
func ParseBlocks(text string) ([]Block, error) {
	if err := validateString("blocks", text); err != nil {
		return nil, err
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	var blocks []Block
	path, after := "", 0
	for i := 0; i < len(lines); i++ {
		n := len(blocks)
		switch {
		case isReplace(lines[i]):
			return nil, badBlocks(n-1, i+1, "%q without a <<<<<<< SEARCH line before it", lines[i])
		case !isSearch(lines[i]):
			continue
		}
		if p, ok := pathBefore(lines[after:i]); ok {
			path = p
		}
		div, end := -1, -1
		for j := i + 1; j < len(lines) && end < 0; j++ {
			switch l := lines[j]; {
			case isSearch(l) && div < 0:
				return nil, badBlocks(n, j+1, "a second <<<<<<< SEARCH before the ======= of the block started at line %d; each block is <<<<<<< SEARCH, the old lines, =======, the new lines, >>>>>>> REPLACE", i+1)
			case isSearch(l):
				return nil, badBlocks(n, j+1, "<<<<<<< SEARCH before the >>>>>>> REPLACE that ends the block started at line %d", i+1)
			case isReplace(l) && div < 0:
				return nil, badBlocks(n, j+1, ">>>>>>> REPLACE before the ======= line of the block started at line %d; put ======= between the old and the new lines", i+1)
			case isReplace(l):
				end = j
			case isMarker(l, '=', "") && div >= 0:
				return nil, badBlocks(n, j+1, "a second ======= line in the block started at line %d (the first is line %d); if the file has such a line, edit it with a unified diff or a rewrite", i+1, div+1)
			case isMarker(l, '=', ""):
				div = j
			}
		}
		if div < 0 {
			return nil, badBlocks(n, i+1, "the block has no ======= line and no >>>>>>> REPLACE line; end the old lines with ======= and the new lines with >>>>>>> REPLACE")
		}
		if end < 0 {
			return nil, badBlocks(n, i+1, "the block has no >>>>>>> REPLACE line; end the new lines with >>>>>>> REPLACE")
		}
		blocks = append(blocks, Block{Path: path, Search: joinLines(lines[i+1 : div]), Replace: joinLines(lines[div+1 : end])})
		i, after = end, end+1
	}
	if len(blocks) == 0 {
		if begin := applyPatchStart(lines); begin >= 0 {
			return parseApplyPatch(lines, begin)
		}
		if line, msg := otherFormat(lines); line > 0 {
			return nil, badBlocks(-1, line, "%s", msg)
		}
		return nil, badBlocks(-1, 1, "no SEARCH/REPLACE blocks; write each edit as <<<<<<< SEARCH, the exact old lines, =======, the new lines, >>>>>>> REPLACE, each marker on its own line")
	}
	return blocks, nil
}

// otherFormat recognises, in text without blocks, an edit format models
// write for other tools that lunad does not take: the 1-based line that
// shows it and the message that names it and says what to write instead,
// or 0.
func otherFormat(lines []string) (int, string) {
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@ ") && i > 0 && strings.HasPrefix(lines[i-1], "+++ "):
			return i + 1, "the text is a unified diff, not SEARCH/REPLACE blocks; send it as a patch"
		}
	}
	return 0, ""
}

func badBlocks(block, line int, format string, args ...any) error {
	return &ParseError{Err: ErrBadBlocks, Block: block, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// isSearch reports whether l starts a block: <<<<<<< SEARCH, or Cline's
// ------- SEARCH.
func isSearch(l string) bool { return isMarker(l, '<', "SEARCH") || isMarker(l, '-', "SEARCH") }

// isReplace reports whether l ends a block: >>>>>>> REPLACE, or Cline's
// +++++++ REPLACE.
func isReplace(l string) bool { return isMarker(l, '>', "REPLACE") || isMarker(l, '+', "REPLACE") }

// isMarker reports whether l is 5-9 times c, then (after optional spaces)
// word (any case), then nothing but spaces.
func isMarker(l string, c byte, word string) bool {
	n := 0
	for n < len(l) && l[n] == c {
		n++
	}
	if n < 5 || n > 9 {
		return false
	}
	rest := strings.TrimLeft(l[n:], " \t")
	if word != "" {
		if len(rest) < len(word) || !strings.EqualFold(rest[:len(word)], word) {
			return false
		}
		rest = rest[len(word):]
	}
	return strings.TrimRight(rest, " \t") == ""
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// isFence reports whether l is a fence line: ``` or ~~~ (with anything
// after, a language), or an HTML-like tag models use as a fence —
// <source>, </source>, <source lang="go">, <source>python, and the same
// with code, pre, codeblock or diff (Cline's <diff> around its blocks).
func isFence(l string) bool {
	t := strings.TrimSpace(l)
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return true
	}
	if !strings.HasPrefix(t, "<") {
		return false
	}
	tag, rest, ok := strings.Cut(strings.TrimPrefix(t[1:], "/"), ">")
	if !ok || strings.ContainsAny(rest, " \t<>") {
		return false
	}
	name, _, _ := strings.Cut(tag, " ")
	switch strings.ToLower(name) {
	case "source", "code", "pre", "codeblock", "diff":
		return true
	}
	return false
}

// isDots reports whether l is only dots: "...", "…", a model's mark for
// text it left out.
func isDots(l string) bool {
	t := strings.TrimSpace(l)
	return t != "" && strings.Trim(t, ".…") == "" && (strings.Contains(t, "…") || len(t) >= 3)
}

// pathBefore finds the file path in the lines before a block: the last
// non-blank line that is not a line of dots, skipping up to two fence
// lines.
func pathBefore(ls []string) (string, bool) {
	fences := 0
	for k := len(ls) - 1; k >= 0; k-- {
		l := ls[k]
		switch {
		case strings.TrimSpace(l) == "" || isDots(l):
			continue
		case isFence(l):
			if fences++; fences > 2 {
				return "", false
			}
			continue
		}
		return cleanPath(l)
	}
	return "", false
}

func cleanPath(l string) (string, bool) {
	t := strings.TrimSpace(l)
	// Cline names the file as <path>src/app.py</path>.
	if in, ok := strings.CutPrefix(t, "<path>"); ok && strings.HasSuffix(in, "</path>") {
		t = strings.TrimSpace(strings.TrimSuffix(in, "</path>"))
	}
	plain := t
	t = strings.TrimSpace(strings.TrimLeft(t, "#"))
	t = strings.Trim(t, "*`")
	colon := strings.HasSuffix(t, ":")
	t = strings.TrimSuffix(t, ":")
	t = strings.Trim(t, "*`")
	decorated := t != strings.TrimSuffix(plain, ":")
	if t == "" || len(t) > 1024 || strings.ContainsAny(t, " \t") ||
		isMarker(t, '=', "") || isSearch(t) || isReplace(t) {
		return "", false
	}
	// "Then:" is prose; "Makefile", "main.go:" and "`Makefile`:" are paths.
	if colon && !decorated && !strings.ContainsAny(t, "./\\") {
		return "", false
	}
	return t, true
}
