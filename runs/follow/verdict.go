package follow

import (
	"fmt"
	"strings"

	"github.com/lunad/lunad"
)

// TestVerdict is a test run in a line: "ok — 2 passed (go test ./...
// exit 0)", "FAIL — 1 passed, 1 failed: TestAdd (go test ./... exit 1)".
func TestVerdict(s lunad.TestSummary) string {
	var b strings.Builder
	if s.OK {
		b.WriteString("ok")
	} else {
		b.WriteString("FAIL")
	}
	var counts []string
	for _, c := range []struct {
		n    int
		what string
	}{{s.Passed, "passed"}, {s.Failed, "failed"}, {s.Errored, "errored"}, {s.Skipped, "skipped"}} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(counts) > 0 {
		b.WriteString(" — " + strings.Join(counts, ", "))
	}
	if len(s.Failures) > 0 {
		var names []string
		for i, f := range s.Failures {
			if i == 3 {
				names = append(names, "…")
				break
			}
			names = append(names, oneLine(f.Name, 80))
		}
		b.WriteString(": " + strings.Join(names, ", "))
	}
	var cmds []string
	for _, c := range s.Commands {
		line := fmt.Sprintf("%s exit %d", oneLine(strings.Join(c.Argv, " "), 80), c.ExitCode)
		if c.Ended != "" {
			line += " (" + c.Ended + ")"
		}
		cmds = append(cmds, line)
	}
	if len(cmds) > 0 {
		b.WriteString(" (" + strings.Join(cmds, "; ") + ")")
	}
	return b.String()
}
