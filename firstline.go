package lunad

import "strings"

// FirstLine is s up to its first newline: how an error, a command's output
// or a message is shown where one line fits (a table row, a progress line,
// a step's brief). s without a newline is itself.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
