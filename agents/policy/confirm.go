package policy

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// TerminalConfirmer asks a person on a terminal. It denies, without
// writing or reading anything, when IsTerminal says there is no terminal
// (a daemon, CI, input from a pipe).
type TerminalConfirmer struct {
	in         io.Reader
	out        io.Writer
	isTerminal func() bool
	mu         sync.Mutex // one question at a time
}

// NewTerminalConfirmer asks on out and reads the answer from in;
// isTerminal reports whether they are a terminal (nil: never).
func NewTerminalConfirmer(in io.Reader, out io.Writer, isTerminal func() bool) *TerminalConfirmer {
	return &TerminalConfirmer{in: in, out: out, isTerminal: isTerminal}
}

// maxAnswer bounds the line read as an answer.
const maxAnswer = 1024

// Confirm shows the action and the rule asking for confirmation, and
// returns true only for an answer of y or yes. The action is shown with
// its control characters escaped, so a model cannot write to the
// terminal through it.
func (c *TerminalConfirmer) Confirm(a Action, d Decision) bool {
	if c.isTerminal == nil || !c.isTerminal() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.out, "lunad: %s\n  %s\nAllow it? [y/N] ", quoteLine(d.Message()), describeAction(a)); err != nil {
		return false
	}
	// Byte by byte: whatever follows the answer stays unread.
	var line []byte
	buf := make([]byte, 1)
	for len(line) < maxAnswer {
		n, err := c.in.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			line = append(line, buf[0])
			continue
		}
		if err != nil {
			break
		}
	}
	switch strings.ToLower(strings.TrimSpace(string(line))) {
	case "y", "yes":
		return true
	}
	return false
}

// describeAction is one line naming what an action does.
func describeAction(a Action) string {
	var b strings.Builder
	b.WriteString(a.Tool)
	if len(a.Argv) > 0 {
		b.WriteString(": ")
		b.WriteString(show(a.Argv))
		if a.Dir != "" && a.Dir != "." {
			b.WriteString(" (in " + quoteWord(a.Dir) + ")")
		}
	}
	for i, p := range a.Paths {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(quoteWord(p))
	}
	if a.Writes {
		b.WriteString(" (writes)")
	}
	return quoteLine(b.String())
}

// quoteLine escapes the control characters of a line.
func quoteLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Ask settles a Confirm decision with the confirmer: Allow when a person
// confirms, else Deny under the same rule, saying no one confirmed. Any
// other decision is returned as it is.
func Ask(c Confirmer, a Action, d Decision) Decision {
	if d.Verdict != Confirm {
		return d
	}
	if c != nil && c.Confirm(a, d) {
		return Decision{Verdict: Allow, Rule: d.Rule, Reason: "confirmed by the user"}
	}
	reason := "no one confirmed it (no terminal, or the answer was no)"
	if d.Reason != "" {
		reason = d.Reason + "; " + reason
	}
	return Decision{Verdict: Deny, Rule: d.Rule, Reason: reason}
}
