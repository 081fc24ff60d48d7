package harness

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The bounds of what the harness keeps: a summary holds the first
// MaxFailures failures, each message at most MaxMessageLines lines and
// MaxMessageBytes bytes; the parsers keep at most keepBytes of any one
// test's, package's or build's output while reading, so their memory is
// bounded whatever the input.
const (
	MaxFailures     = 10
	MaxMessageLines = 20
	MaxMessageBytes = 2000
	keepBytes       = 8 << 10
)

// capped is the head of a text, up to keepBytes.
type capped struct{ b []byte }

func (c *capped) add(s string) {
	if room := keepBytes - len(c.b); len(s) > room {
		s = s[:room]
	}
	if len(c.b)+len(s) > cap(c.b) {
		// Grow within the bound (append alone could double past it).
		b := make([]byte, len(c.b), min(keepBytes, max(2*cap(c.b), len(c.b)+len(s), 256)))
		copy(b, c.b)
		c.b = b
	}
	c.b = append(c.b, s...)
}

func (c *capped) String() string { return string(c.b) }

// headLines keeps the first lines of text within the message bounds,
// saying how many lines were left out.
func headLines(text string) string {
	lines := cutLines(text)
	n, size := 0, 0
	for n < len(lines) && n < MaxMessageLines && size+len(lines[n]) <= MaxMessageBytes {
		size += len(lines[n]) + 1
		n++
	}
	out := strings.Join(lines[:n], "\n")
	if rest := len(lines) - n; rest > 0 {
		out += fmt.Sprintf("\n… %d more %s", rest, plural(rest, "line"))
	}
	return out
}

// tailLines keeps the last lines of text within the message bounds (a
// command's verdict is at the end of its output).
func tailLines(text string) string {
	lines := cutLines(text)
	n, size := 0, 0
	for n < len(lines) && n < MaxMessageLines && size+len(lines[len(lines)-1-n]) <= MaxMessageBytes {
		size += len(lines[len(lines)-1-n]) + 1
		n++
	}
	out := strings.Join(lines[len(lines)-n:], "\n")
	if rest := len(lines) - n; rest > 0 {
		out = fmt.Sprintf("… %d earlier %s\n", rest, plural(rest, "line")) + out
	}
	return out
}

// maxLineBytes bounds one line of a message.
const maxLineBytes = 400

// cutLines splits text, trimmed, into valid UTF-8 lines of at most
// maxLineBytes (a longer line keeps its head and says it was cut); none
// for blank text.
func cutLines(text string) []string {
	text = strings.TrimSpace(validUTF8(text))
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if len(l) > maxLineBytes {
			l = strings.ToValidUTF8(l[:maxLineBytes], "") + " …"
		}
		lines[i] = l
	}
	return lines
}

// truncName bounds a name taken from the input.
func truncName(n string) string {
	if len(n) > maxName {
		return strings.ToValidUTF8(n[:maxName], "") + "…"
	}
	return n
}

// dedent removes the indentation every non-blank line shares.
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || ind < common {
			common = ind
		}
	}
	if common <= 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common {
			out[i] = l[common:]
		}
	}
	return out
}

// validUTF8 replaces what a cut (or the input) left invalid.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
