package main

import (
	"fmt"
	"strings"

	"github.com/lunad/lunad"
)

// splitCommandLine splits one command line (`lunad goal --test CMD`) into
// its program and arguments as a POSIX shell splits words, without
// expanding anything: words are separated by spaces and tabs; 'single
// quotes' keep everything as it is; "double quotes" keep everything but
// \" and \\, which stand for " and \; a backslash outside quotes keeps
// the next character as it is. Nothing else is special — no variables,
// globs, pipes or ; — so `go test ./... | tee log` is the program go with
// five arguments. Errors (ErrInvalid): an unterminated quote, a trailing
// backslash, a line with no word, a NUL or a newline.
func splitCommandLine(line string) ([]string, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: --test %q: %s; give one command line, e.g. --test 'go test ./...' or --test \"pytest -q 'tests/test a.py'\"", lunad.ErrInvalid, line, why)
	}
	if strings.ContainsAny(line, "\x00\n\r") {
		return nil, bad("it holds a NUL or a line break")
	}
	var (
		words []string
		cur   strings.Builder
		in    bool // in a word (a quoted empty word counts)
		quote byte // the open quote, 0 outside
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\'):
				i++
				cur.WriteByte(line[i])
			default:
				cur.WriteByte(c)
			}
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\':
			if i+1 == len(line) {
				return nil, bad("it ends with a backslash")
			}
			i++
			cur.WriteByte(line[i])
			in = true
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, bad(fmt.Sprintf("its %c quote is not closed", quote))
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, bad("it names no program")
	}
	return words, nil
}
