package window

import (
	"iter"
	"unicode"
	"unicode/utf8"
)

// maxRun is the longest run of one class of characters (letters, digits,
// white space, the rest) the counter hands tiktoken at once.
//
// tiktoken splits a text into pieces with its regular expression, and a
// piece is a run of one class (a word, a run of white space or of
// punctuation), with at most one character of another class before it or
// a run of line breaks after it; its byte-pair merge then costs the square
// of the piece's length. A run of 1 MiB of letters, which an artifact or a
// model's answer may hold, is thus one piece that keeps a core busy for
// minutes. Cutting every run at maxRun bytes bounds each piece to about
// 2 × maxRun bytes, so counting costs time linear in the text. Ordinary
// text has no run this long and is counted whole, exactly as before; a
// run that is cut counts at most one token more per maxRun bytes than
// tiktoken would give it whole, so a budget is over- rather than
// under-estimated. 256 bytes is twice the longest token of cl100k_base
// and o200k_base.
const maxRun = 256

// boundedRuns yields text in consecutive parts, none of which holds a run
// of one character class longer than limit bytes (limit ≥ 4): all of
// text in one part when it has no such run, else cut inside each long
// run, at a rune boundary, every limit bytes or a little less.
func boundedRuns(text string, limit int) iter.Seq[string] {
	return func(yield func(string) bool) {
		start, runStart, class := 0, 0, -1
		for i, r := range text {
			c := runeClass(r)
			if c != class {
				class, runStart = c, i
			} else if i-runStart+utf8.RuneLen(r) > limit {
				if !yield(text[start:i]) {
					return
				}
				start, runStart = i, i
			}
		}
		if start < len(text) {
			yield(text[start:])
		}
	}
}

// The classes of characters tiktoken's pieces are made of.
const (
	classLetter = iota // letters and marks
	classDigit
	classSpace
	classOther // punctuation, symbols, controls, invalid UTF-8
)

func runeClass(r rune) int {
	switch {
	case r == utf8.RuneError:
		return classOther
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return classLetter
	case unicode.IsNumber(r):
		return classDigit
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}
