package harness

import (
	"fmt"
	"strings"

	"github.com/lunad/lunad"
)

// What Compact shows of the failures: the first compactFailures, each
// message's first compactLines lines.
const (
	compactFailures = 5
	compactLines    = 6
)

// Compact is the few lines a model is told of a test run: the verdict
// and counts, each command with how it ended, and the first failures
// with the head of their messages, saying what it leaves out. The same
// summary gives the same text.
func Compact(s lunad.TestSummary) string {
	if len(s.Commands) == 0 {
		return "no tests ran (no test commands are configured)\n"
	}
	var b strings.Builder
	verdict := "passed"
	if !s.OK {
		verdict = "failed"
	}
	fmt.Fprintf(&b, "tests %s: %d passed", verdict, s.Passed)
	for _, c := range []struct {
		n    int
		word string
	}{{s.Failed, "failed"}, {s.Errored, "errored"}, {s.Skipped, "skipped"}} {
		if c.n > 0 {
			fmt.Fprintf(&b, ", %d %s", c.n, c.word)
		}
	}
	b.WriteString("\n")
	for _, c := range s.Commands {
		fmt.Fprintf(&b, "$ %s", commandLine(c.Argv))
		if c.Dir != "" && c.Dir != "." {
			fmt.Fprintf(&b, " (in %s)", c.Dir)
		}
		switch {
		case c.Ended != "":
			fmt.Fprintf(&b, " → stopped: %s", c.Ended)
		default:
			fmt.Fprintf(&b, " → exit %d", c.ExitCode)
		}
		if c.OutputCut > 0 {
			fmt.Fprintf(&b, " (%d bytes of output cut: counts may be partial)", c.OutputCut)
		}
		b.WriteString("\n")
	}
	shown := min(len(s.Failures), compactFailures)
	for _, f := range s.Failures[:shown] {
		fmt.Fprintf(&b, "✗ %s\n", f.Name)
		lines := cutLines(f.Message)
		for i, l := range lines {
			if i == compactLines {
				fmt.Fprintf(&b, "  … %d more %s\n", len(lines)-i, plural(len(lines)-i, "line"))
				break
			}
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	if more := s.Failed + s.Errored - shown; more > 0 && shown > 0 {
		fmt.Fprintf(&b, "… %d more failed or errored %s not shown\n", more, plural(more, "test"))
	}
	return b.String()
}
