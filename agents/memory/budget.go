package memory

import (
	"fmt"
	"time"

	"github.com/lunad/lunad"
)

// Budget is an allocation; a zero field is unlimited.
type Budget struct {
	Tokens int           `toml:"tokens" json:"tokens,omitempty"`
	Calls  int           `toml:"calls" json:"calls,omitempty"`
	Time   time.Duration `toml:"time" json:"time_ns,omitempty"`
}

// Usage is a consumption. For the run, Elapsed is the wall time since the
// run started; for a worker, the time spent in its model calls (Before to
// After).
type Usage struct {
	Tokens       int           `json:"tokens"`
	InputTokens  int           `json:"input_tokens"`
	OutputTokens int           `json:"output_tokens"`
	Calls        int           `json:"calls"`
	Failures     int           `json:"failures"`
	Elapsed      time.Duration `json:"elapsed_ns"`
}

// Validate refuses negative budgets; ErrInvalid names the setting.
func (o Options) Validate() error {
	check := func(table string, b Budget) error {
		switch {
		case b.Tokens < 0:
			return fmt.Errorf("%w: %s tokens is %d: set a positive number of tokens, or 0 for no limit", lunad.ErrInvalid, table, b.Tokens)
		case b.Calls < 0:
			return fmt.Errorf("%w: %s calls is %d: set a positive number of calls, or 0 for no limit", lunad.ErrInvalid, table, b.Calls)
		case b.Time < 0:
			return fmt.Errorf("%w: %s time is %s: set a positive duration such as \"10m\", or 0 for no limit", lunad.ErrInvalid, table, b.Time)
		}
		return nil
	}
	if err := check("[agents.budget]", o.Budget); err != nil {
		return err
	}
	for _, role := range sortedKeys(o.PerWorker) {
		if err := check("[agents."+role+".budget]", o.PerWorker[role]); err != nil {
			return err
		}
	}
	return nil
}

// spent is the BudgetError of the first spent budget of b, or nil.
func (m *Memory) spent(scope, role string, b Budget, u Usage, now time.Time) error {
	kind := ""
	switch {
	case b.Tokens > 0 && u.Tokens >= b.Tokens:
		kind = KindTokens
	case b.Calls > 0 && u.Calls >= b.Calls:
		kind = KindCalls
	case b.Time > 0 && u.Elapsed >= b.Time:
		kind = KindTime
	default:
		return nil
	}
	e := &BudgetError{Run: m.run, Scope: scope, Role: role, Kind: kind, Limit: b, Used: u}
	if key := "spent/" + scope + "/" + role + "/" + kind; !m.flags[key] { // once, however often the caller asks again
		m.flags[key] = true
		m.record(now, Detection{Guard: GuardBudget, Rule: scope + " " + kind, Role: role, Message: e.Error()})
	}
	return e
}

// Usage is the run's consumption so far.
func (m *Memory) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.total
	u.Elapsed = m.o.Clock().Sub(m.start)
	return u
}

// NearLimit reports whether the run or role has used WarnAt of one of its
// budgets: the moment to ask the worker to finish early.
func (m *Memory) NearLimit(role string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.o.Clock()
	u := m.total
	u.Elapsed = now.Sub(m.start)
	if near(m.o.Budget, u) {
		return true
	}
	b, ok := m.o.PerWorker[role]
	return ok && m.roles[role] != nil && near(b, m.roles[role].use)
}

func near(b Budget, u Usage) bool {
	over := func(used, limit int64) bool { return limit > 0 && float64(used) >= WarnAt*float64(limit) }
	return over(int64(u.Tokens), int64(b.Tokens)) || over(int64(u.Calls), int64(b.Calls)) || over(int64(u.Elapsed), int64(b.Time))
}

// warn records, once per budget, that it is WarnAt used.
func (m *Memory) warn(scope, role, kind string, used, limit int64, now time.Time) {
	if limit <= 0 || float64(used) < WarnAt*float64(limit) {
		return
	}
	key := "warn/" + scope + "/" + role + "/" + kind
	if m.flags[key] {
		return
	}
	m.flags[key] = true
	m.warns = append(m.warns, Warning{Scope: scope, Role: role, Kind: kind, Used: used, Limit: limit, AtNS: now.UnixNano()})
}
