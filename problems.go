package lunad

import (
	"fmt"
	"slices"
	"strings"
)

// Problem is one thing wrong with a file lunad reads — a workflow
// (.luna/workflows/NAME.toml), the policy (.luna/policy.toml) — at the line
// and column (1-based, in bytes) of the key it is about. Msg is one line.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

// ProblemAt is the problem at file:line:col whose message is msg kept on
// one line: the parsers quote the text they stumble on, line breaks
// included, and each problem is one `file:line:col: message` line.
func ProblemAt(file string, line, col int, msg string) Problem {
	return Problem{File: file, Line: line, Col: col, Msg: lineBreaks.Replace(msg)}
}

var lineBreaks = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`)

// String is `file:line:col: message`.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
}

// CheckError is every problem found in one or more files, in file, line
// and column order (NewCheckError sorts them). It wraps ErrInvalid.
type CheckError struct {
	Problems []Problem
}

// NewCheckError is the error of problems, sorted by file, line and column
// (a stable sort: problems at one place keep their order); list is not
// changed.
func NewCheckError(list []Problem) *CheckError {
	list = slices.Clone(list)
	slices.SortStableFunc(list, func(a, b Problem) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	return &CheckError{Problems: list}
}

// Error prints one `file:line:col: message` line per problem, as
// compilers do, so editors and terminals can jump to each.
func (e *CheckError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

func (e *CheckError) Unwrap() error { return ErrInvalid }
