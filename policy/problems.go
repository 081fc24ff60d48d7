package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lunad/lunad"
)

// Problem is one thing wrong with a policy file, at the line and column
// (1-based, in bytes) of the key it is about.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
}

// FileError is every problem of one policy file, in line and column
// order. It wraps lunad.ErrInvalid.
type FileError struct {
	Problems []Problem
}

// Error is one `file:line:col: message` line per problem.
func (e *FileError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

func (e *FileError) Unwrap() error { return lunad.ErrInvalid }

// report collects the problems of one file, placed by its locator.
type report struct {
	file string
	loc  *locator
	list []Problem
}

// oneLine keeps a message on its line: toml quotes the text it stumbles
// on, newlines included.
var oneLine = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`)

// at reports a problem at a key path (or its nearest located ancestor).
func (r *report) at(path keyPath, format string, args ...any) {
	line, col := r.loc.at(path)
	r.atPos(line, col, format, args...)
}

func (r *report) atPos(line, col int, format string, args ...any) {
	r.list = append(r.list, Problem{File: r.file, Line: line, Col: col, Msg: oneLine.Replace(fmt.Sprintf(format, args...))})
}

func (r *report) err() error {
	if len(r.list) == 0 {
		return nil
	}
	list := slices.Clone(r.list)
	slices.SortStableFunc(list, func(a, b Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	return &FileError{Problems: list}
}
