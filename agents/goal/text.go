package goal

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// clip keeps s within n bytes: its head and tail, and a line saying how
// much was cut between them.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	half := n / 2
	head, tail := s[:runeStart(s, half)], s[runeStart(s, len(s)-half):]
	return fmt.Sprintf("%s\n[… %d bytes cut …]\n%s", head, len(s)-len(head)-len(tail), tail)
}

// clipLine keeps s within n bytes, marking a cut with "…".
func clipLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeStart(s, n)] + "…"
}

// runeStart is i, moved back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// isText reports whether b can be a stage write: UTF-8 without NUL bytes.
func isText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b), 0)
}

// lines counts b's lines (a last line without a newline counts).
func lines(b []byte) int {
	n := strings.Count(string(b), "\n")
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// count is n things, as "1 line" or "2 lines".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
