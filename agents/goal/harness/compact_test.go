package harness

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

func TestCompact(t *testing.T) {
	cmd := func(argv []string, exit int) lunad.GoalCommand {
		return lunad.GoalCommand{Argv: argv, Dir: ".", ExitCode: exit, Duration: time.Second}
	}
	cases := []struct {
		name    string
		summary func(t *testing.T) lunad.TestSummary
	}{
		{"no commands", func(*testing.T) lunad.TestSummary { return lunad.TestSummary{OK: true} }},
		{"all passed", func(*testing.T) lunad.TestSummary {
			return lunad.TestSummary{Passed: 12, Skipped: 1, OK: true, Commands: []lunad.GoalCommand{cmd([]string{"go", "test", "./..."}, 0)}}
		}},
		{"real go test and pytest outputs", func(t *testing.T) lunad.TestSummary {
			g, err := ParseGoTest(bytes.NewReader(capture(t, "gotest.json")))
			if err != nil {
				t.Fatal(err)
			}
			p, err := ParseJUnit(capture(t, "pytest.xml"))
			if err != nil {
				t.Fatal(err)
			}
			s := lunad.TestSummary{Commands: []lunad.GoalCommand{cmd([]string{"go", "test", "./..."}, 1), cmd([]string{"pytest", "-q"}, 1)}}
			add(&s, g)
			add(&s, p)
			return s
		}},
		{"stopped and cut in a subdirectory", func(*testing.T) lunad.TestSummary {
			return lunad.TestSummary{Passed: 3, Errored: 1, Commands: []lunad.GoalCommand{
				{Argv: []string{"go", "test", "-run", "Test Slow", "./..."}, Dir: "server", ExitCode: -1, Ended: "timeout", OutputCut: 12345},
			}, Failures: []lunad.TestFailure{{Name: "example.com/m/server.TestSlow", Message: "did not finish: the output ended while it ran (the command was stopped)\n" + strings.Repeat("waiting for the listener\n", 9)}}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden(t, "compact/"+strings.ReplaceAll(c.name, " ", "-")+".txt", Compact(c.summary(t)))
		})
	}
}
