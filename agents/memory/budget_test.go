package memory

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lunad/lunad"
)

// call makes one admitted call of role that consumes in+out tokens and
// lasts d.
func call(t *testing.T, m *Memory, clk *fakeClock, role string, in, out int, d time.Duration) {
	t.Helper()
	if err := m.Before(role, "openai"); err != nil {
		t.Fatalf("Before(%s): %v", role, err)
	}
	clk.Advance(d)
	m.After(role, "openai", in, out, nil)
}

func TestBudget(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		spend   func(t *testing.T, m *Memory, clk *fakeClock) // stays under the budget, with a call to spare for a probe
		last    func(t *testing.T, m *Memory, clk *fakeClock) // spends the rest
		role    string                                        // the role whose Before is refused
		scope   string
		kind    string
		setting string
		other   string // a role still admitted ("" none)
	}{
		{
			name: "run tokens", opts: Options{Budget: Budget{Tokens: 1000}},
			spend: func(t *testing.T, m *Memory, clk *fakeClock) { call(t, m, clk, "writer", 600, 399, time.Second) },
			last:  func(t *testing.T, m *Memory, clk *fakeClock) { call(t, m, clk, "coder", 1, 0, time.Second) },
			role:  "writer", scope: ScopeRun, kind: KindTokens, setting: "raise [agents.budget] tokens in .luna/config.toml",
		},
		{
			name: "run calls", opts: Options{Budget: Budget{Calls: 3}},
			spend: func(t *testing.T, m *Memory, clk *fakeClock) {
				call(t, m, clk, "supervisor", 10, 10, time.Second)
			}, // then the probe's call
			last: func(t *testing.T, m *Memory, clk *fakeClock) { call(t, m, clk, "coder", 10, 10, time.Second) },
			role: "writer", scope: ScopeRun, kind: KindCalls, setting: "raise [agents.budget] calls",
		},
		{
			name: "run time", opts: Options{Budget: Budget{Time: 10 * time.Minute}},
			spend: func(t *testing.T, m *Memory, clk *fakeClock) { clk.Advance(10*time.Minute - time.Nanosecond) },
			last:  func(t *testing.T, m *Memory, clk *fakeClock) { clk.Advance(time.Nanosecond) },
			role:  "coder", scope: ScopeRun, kind: KindTime, setting: "raise [agents.budget] time",
		},
		{
			name: "worker tokens", opts: Options{Budget: Budget{Tokens: 100000}, PerWorker: map[string]Budget{"writer": {Tokens: 500}}},
			spend: func(t *testing.T, m *Memory, clk *fakeClock) {
				call(t, m, clk, "writer", 300, 199, time.Second)
				call(t, m, clk, "coder", 5000, 5000, time.Second) // the coder's tokens are not the writer's
			},
			last: func(t *testing.T, m *Memory, clk *fakeClock) { call(t, m, clk, "writer", 1, 0, time.Second) },
			role: "writer", scope: ScopeWorker, kind: KindTokens, setting: "raise [agents.writer.budget] tokens", other: "coder",
		},
		{
			name: "worker calls", opts: Options{PerWorker: map[string]Budget{"coder": {Calls: 2}}},
			spend: func(t *testing.T, m *Memory, clk *fakeClock) {
				call(t, m, clk, "writer", 1, 1, time.Second)
			}, // then the probe's call
			last: func(t *testing.T, m *Memory, clk *fakeClock) { call(t, m, clk, "coder", 1, 1, time.Second) },
			role: "coder", scope: ScopeWorker, kind: KindCalls, setting: "raise [agents.coder.budget] calls", other: "writer",
		},
		{
			name: "worker time is its model time", opts: Options{PerWorker: map[string]Budget{"reviewer": {Time: time.Minute}}},
			spend: func(t *testing.T, m *Memory, clk *fakeClock) {
				call(t, m, clk, "reviewer", 1, 1, 59*time.Second)
				clk.Advance(time.Hour) // time outside its calls is not the reviewer's
				call(t, m, clk, "coder", 1, 1, time.Hour)
			},
			last: func(t *testing.T, m *Memory, clk *fakeClock) { call(t, m, clk, "reviewer", 1, 1, time.Second) },
			role: "reviewer", scope: ScopeWorker, kind: KindTime, setting: "raise [agents.reviewer.budget] time", other: "coder",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := newClock()
			c.opts.Clock = clk.Now
			m := New("r1", c.opts)
			c.spend(t, m, clk)
			if err := m.Before(c.role, "openai"); err != nil {
				t.Fatalf("under the budget, Before(%s) = %v", c.role, err)
			}
			m.After(c.role, "openai", 0, 0, nil)
			c.last(t, m, clk)
			before := m.Usage()
			err := m.Before(c.role, "openai")
			var be *BudgetError
			if !errors.As(err, &be) || !errors.Is(err, ErrBudget) {
				t.Fatalf("Before(%s) = %v, want a *BudgetError", c.role, err)
			}
			if be.Scope != c.scope || be.Kind != c.kind || (c.scope == ScopeWorker && be.Role != c.role) {
				t.Errorf("BudgetError is %s/%s/%s, want %s/%s/%s", be.Scope, be.Role, be.Kind, c.scope, c.role, c.kind)
			}
			if !strings.Contains(err.Error(), c.setting) {
				t.Errorf("error %q does not say %q", err, c.setting)
			}
			if after := m.Usage(); after.Calls != before.Calls {
				t.Errorf("a refused call was counted: %d calls, want %d", after.Calls, before.Calls)
			}
			if c.other != "" {
				if err := m.Before(c.other, "openai"); err != nil {
					t.Errorf("the %s's budget is its own, yet Before(%s) = %v", c.role, c.other, err)
				}
			}
			d := m.Summary().Detections
			if len(d) == 0 || d[len(d)-1].Guard != GuardBudget || d[len(d)-1].Rule != c.scope+" "+c.kind {
				t.Errorf("detections %+v do not end in the budget's", d)
			}
		})
	}
}

func TestBudgetWarning(t *testing.T) {
	clk := newClock()
	m := New("r1", Options{Clock: clk.Now, Budget: Budget{Tokens: 1000, Calls: 10}})
	call(t, m, clk, "coder", 400, 390, time.Second)
	if m.NearLimit("coder") || len(m.Summary().Warnings) != 0 {
		t.Fatalf("79%% of the tokens gave a warning: %+v", m.Summary().Warnings)
	}
	call(t, m, clk, "coder", 10, 0, time.Second)
	call(t, m, clk, "coder", 10, 0, time.Second)
	w := m.Summary().Warnings
	if len(w) != 1 || w[0].Scope != ScopeRun || w[0].Kind != KindTokens || w[0].Used != 800 || w[0].Limit != 1000 {
		t.Fatalf("warnings %+v, want one: run tokens 800 of 1000", w)
	}
	if !m.NearLimit("coder") {
		t.Error("NearLimit is false at 80%")
	}
}

func TestOptionsValidate(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"run tokens", Options{Budget: Budget{Tokens: -1}}, "[agents.budget] tokens is -1"},
		{"worker time", Options{PerWorker: map[string]Budget{"writer": {Time: -time.Second}}}, "[agents.writer.budget] time is -1s"},
		{"worker calls", Options{PerWorker: map[string]Budget{"coder": {Calls: -2}}}, "[agents.coder.budget] calls is -2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.o.Validate()
			if !errors.Is(err, lunad.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate() = %v, want ErrInvalid saying %q", err, c.want)
			}
		})
	}
	if err := (Options{Budget: Budget{Tokens: 1}}).Validate(); err != nil {
		t.Errorf("a valid budget: %v", err)
	}
}
