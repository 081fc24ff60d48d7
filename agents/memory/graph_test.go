package memory

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

func TestEnter(t *testing.T) {
	type hop struct{ from, to string }
	cases := []struct {
		name     string
		maxDepth int
		hops     []hop  // all admitted but the last when rule is set
		rule     string // "" all admitted
		path     string // the path the refusal names, or the path after the hops
	}{
		{
			name: "a worker handing back once is fine",
			hops: []hop{{"supervisor", "coder"}, {"coder", "writer"}, {"writer", "coder"}},
			path: "supervisor → coder → writer → coder",
		},
		{
			name: "A→B→A→B", rule: RuleLoop,
			hops: []hop{{"supervisor", "coder"}, {"coder", "writer"}, {"writer", "coder"}, {"coder", "writer"}},
			path: "supervisor → coder → writer → coder → writer",
		},
		{
			name: "A→B→C→A→B→C", rule: RuleLoop,
			hops: []hop{{"supervisor", "coder"}, {"coder", "writer"}, {"writer", "reviewer"}, {"reviewer", "coder"}, {"coder", "writer"}, {"writer", "reviewer"}},
			path: "supervisor → coder → writer → reviewer → coder → writer → reviewer",
		},
		{
			name: "a handoff to itself", rule: RuleLoop,
			hops: []hop{{"supervisor", "writer"}, {"writer", "writer"}},
			path: "supervisor → writer → writer",
		},
		{
			name: "deeper than the maximum", maxDepth: 3, rule: RuleDepth,
			hops: []hop{{"supervisor", "coder"}, {"coder", "writer"}, {"writer", "reviewer"}, {"reviewer", "coder"}},
			path: "supervisor → coder → writer → reviewer → coder",
		},
		{
			name: "at the maximum", maxDepth: 3,
			hops: []hop{{"supervisor", "coder"}, {"coder", "writer"}, {"writer", "reviewer"}},
			path: "supervisor → coder → writer → reviewer",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := newClock()
			m := New("r1", Options{Clock: clk.Now, MaxDepth: c.maxDepth})
			for i, h := range c.hops {
				err := m.Enter(h.from, h.to, "because")
				if i < len(c.hops)-1 || c.rule == "" {
					if err != nil {
						t.Fatalf("hop %d %s → %s: %v", i, h.from, h.to, err)
					}
					continue
				}
				var le *LoopError
				if !errors.As(err, &le) || !errors.Is(err, ErrLoop) {
					t.Fatalf("hop %s → %s = %v, want a *LoopError", h.from, h.to, err)
				}
				if le.Rule != c.rule || joinPath(le.Path) != c.path {
					t.Errorf("LoopError %s on %s, want %s on %s", le.Rule, joinPath(le.Path), c.rule, c.path)
				}
				if !strings.Contains(err.Error(), c.path) {
					t.Errorf("error %q does not show the path", err)
				}
				if got := m.Path(); len(got) != len(c.hops) {
					t.Errorf("the refused hop was taken: path %v", got)
				}
				return
			}
			if got := joinPath(m.Path()); got != c.path {
				t.Errorf("path %s, want %s", got, c.path)
			}
		})
	}
}

func TestEnterLeave(t *testing.T) {
	m := New("r1", Options{Clock: newClock().Now})
	if err := m.Enter("supervisor", "coder", "write the parser"); err != nil {
		t.Fatal(err)
	}
	if err := m.Enter("writer", "coder", "x"); !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), "coder is in control") {
		t.Errorf("a hop from a role not in control = %v, want ErrInvalid", err)
	}
	if err := m.Leave("writer"); !errors.Is(err, lunad.ErrInvalid) {
		t.Errorf("Leave of a role not in control = %v, want ErrInvalid", err)
	}
	if err := m.Leave("coder"); err != nil {
		t.Fatal(err)
	}
	if p := m.Path(); len(p) != 0 {
		t.Errorf("after the worker returned, path %v, want empty", p)
	}
	// A new chain from the supervisor: the earlier visit does not count
	// towards a loop.
	for _, h := range [][2]string{{"supervisor", "coder"}, {"coder", "writer"}, {"writer", "coder"}} {
		if err := m.Enter(h[0], h[1], ""); err != nil {
			t.Fatalf("%s → %s: %v", h[0], h[1], err)
		}
	}
	if got := m.Summary().Edges; len(got) != 4 || got[0].Reason != "write the parser" {
		t.Errorf("edges %+v, want the 4 transfers in order", got)
	}
	if !slices.Equal(m.Path(), []string{"supervisor", "coder", "writer", "coder"}) {
		t.Errorf("path %v", m.Path())
	}
}
