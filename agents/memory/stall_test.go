package memory

import (
	"errors"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

func TestStall(t *testing.T) {
	read := func(id string) Step {
		return Step{Tool: "read_artifact", Args: `{"id":"` + id + `"}`, Observation: "text of " + id, Read: id + "@v1"}
	}
	edit := func(obs string) Step {
		return Step{Tool: "edit_artifact", Args: `{"id":"a1","blocks":[]}`, Observation: obs, Failed: true}
	}
	list := Step{Tool: "list_artifacts", Args: `{}`, Observation: "a1 article"}
	turn := Step{}
	cases := []struct {
		name  string
		k     int // no-progress steps (0 default)
		steps []Step
		rule  string // fires on the last step; "" never
		tool  string
	}{
		{name: "same action and observation 4 times", steps: []Step{read("a1"), read("a1"), read("a1"), read("a1")}, rule: RuleRepeat, tool: "read_artifact"},
		{name: "same action and observation 3 times", steps: []Step{read("a1"), read("a1"), read("a1")}},
		{name: "same action, another observation", steps: []Step{list, list, list, {Tool: "list_artifacts", Args: `{}`, Observation: "a1 article\na2 code"}}},
		{name: "same failing action 3 times", steps: []Step{edit("no match"), edit("no match at line 3"), edit("ambiguous")}, rule: RuleRepeatError, tool: "edit_artifact"},
		{name: "a failing action twice then it works", steps: []Step{edit("no match"), edit("no match"), {Tool: "edit_artifact", Args: `{"id":"a1","blocks":[]}`, Observation: "ok", Wrote: true}}},
		{name: "3 turns without a tool call", steps: []Step{turn, turn, turn}, rule: RuleMonologue},
		{name: "a tool call between the turns", steps: []Step{turn, turn, list, turn, turn}},
		{name: "A-B-A-B-A-B", steps: []Step{read("a1"), list, read("a1"), list, read("a1"), list}, rule: RuleAlternation, tool: "list_artifacts"},
		{name: "A-B-A-B-A", steps: []Step{read("a1"), list, read("a1"), list, read("a1")}},
		{name: "no progress for K steps", k: 5, steps: []Step{read("a1"), list, read("a1"), read("a2"), list, read("a1"), turn, list, read("a1")}, rule: RuleNoProgress, tool: "read_artifact"},
		{name: "new reads are progress", k: 3, steps: []Step{read("a1"), list, read("a2"), list, read("a3"), list, read("a4")}},
		{name: "a failed read is no progress", k: 3, steps: []Step{list, {Tool: "read_artifact", Args: `{"id":"zz"}`, Observation: "not found", Failed: true, Read: "zz@v1"}, {Tool: "read_artifact", Args: `{"id":"zz"}`, Observation: "not found", Failed: true, Read: "zz@v1"}}, rule: RuleNoProgress, tool: "read_artifact"},
		{name: "the no-progress rule disabled", k: -1, steps: []Step{read("a1"), list, list, read("a1"), list, list, read("a1"), list, list, read("a1"), list, list, read("a1"), list, list}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New("r1", Options{Clock: newClock().Now, Stall: StallOptions{NoProgressSteps: c.k}})
			for i, s := range c.steps {
				err := m.Step("writer", s)
				if i < len(c.steps)-1 || c.rule == "" {
					if err != nil {
						t.Fatalf("step %d (%s): %v", i, s.Tool, err)
					}
					continue
				}
				var se *StallError
				if !errors.As(err, &se) || !errors.Is(err, ErrStall) {
					t.Fatalf("last step = %v, want a *StallError", err)
				}
				if se.Rule != c.rule || se.Tool != c.tool || se.Role != "writer" {
					t.Errorf("StallError %s on %s by %s, want %s on %s by writer", se.Rule, se.Tool, se.Role, c.rule, c.tool)
				}
				if !strings.Contains(err.Error(), "worker writer is stalled ("+c.rule+")") {
					t.Errorf("error %q does not name the rule", err)
				}
				d := m.Summary().Detections
				if len(d) != 1 || d[0].Guard != GuardStall || d[0].Rule != c.rule {
					t.Errorf("detections %+v, want the one stall", d)
				}
			}
		})
	}
}

func TestStallPerRole(t *testing.T) {
	m := New("r1", Options{Clock: newClock().Now})
	s := Step{Tool: "list_artifacts", Args: "{}", Observation: "a1"}
	for i := range 3 {
		for _, role := range []string{"coder", "writer"} {
			if err := m.Step(role, s); err != nil {
				t.Fatalf("round %d, %s: %v", i, role, err)
			}
		}
	}
	if err := m.Step("coder", s); !errors.Is(err, ErrStall) {
		t.Errorf("the coder's 4th repeat = %v, want a stall", err)
	}
}

func TestStepInvalid(t *testing.T) {
	m := New("r1", Options{Clock: newClock().Now})
	if err := m.Step("coder", Step{Wrote: true}); !errors.Is(err, lunad.ErrInvalid) {
		t.Errorf("a turn without a tool that wrote = %v, want ErrInvalid", err)
	}
}

func TestStallArgsTruncated(t *testing.T) {
	m := New("r1", Options{Clock: newClock().Now})
	long := strings.Repeat("é", 300)
	var err error
	for range 4 {
		err = m.Step("coder", Step{Tool: "t", Args: long, Observation: "o"})
	}
	var se *StallError
	if !errors.As(err, &se) || len(se.Args) > 200+len("…") || !strings.HasSuffix(se.Args, "é…") {
		t.Errorf("args %q (%d bytes) are not cut at 200 bytes on a rune boundary", se.Args, len(se.Args))
	}
}
