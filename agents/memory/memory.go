package memory

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

// Defaults of Options.
const (
	DefaultMaxDepth        = 8
	DefaultWindow          = 10 * time.Second
	DefaultBreakerFailures = 5
	DefaultBreakerCooldown = 30 * time.Second
	DefaultNoProgressSteps = 12
	// WarnAt is the share of a budget past which a warning is recorded.
	WarnAt = 0.8
)

// Options configure a Memory. Zero fields take the defaults above.
type Options struct {
	Budget    Budget
	PerWorker map[string]Budget // by role
	MaxDepth  int
	Clock     func() time.Time // time.Now if nil
	Breaker   BreakerOptions
	Stall     StallOptions
	Window    time.Duration // the span of the sliding window of calls
}

// BreakerOptions configure the circuit breakers, one per provider.
type BreakerOptions struct {
	Failures int               // consecutive failures that open a breaker
	Cooldown time.Duration     // open → half-open
	Fallback map[string]string // provider → the provider to call while it is open
}

// StallOptions configure the stall detector.
type StallOptions struct {
	NoProgressSteps int // K: steps without progress before a stall; <0 disables the rule
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.Breaker.Failures <= 0 {
		o.Breaker.Failures = DefaultBreakerFailures
	}
	if o.Breaker.Cooldown <= 0 {
		o.Breaker.Cooldown = DefaultBreakerCooldown
	}
	if o.Stall.NoProgressSteps == 0 {
		o.Stall.NoProgressSteps = DefaultNoProgressSteps
	}
	return o
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

// Memory is one run's working memory. Safe for concurrent use.
type Memory struct {
	mu  sync.Mutex
	run string
	o   Options

	start    time.Time // the run's start, shifted on Restore so Elapsed continues
	last     time.Time // the last activity
	total    Usage     // Elapsed unused: computed from start
	roles    map[string]*roleState
	stack    []string
	edges    []Edge
	breakers map[string]*breaker
	stalls   map[string]*stallState
	window   []time.Time
	detect   []Detection
	warns    []Warning
	flags    map[string]bool // the budgets already warned of or reported spent
}

type roleState struct {
	use     Usage
	pending []time.Time // starts of admitted calls not yet finished
}

// New is the memory of a run starting now (by o.Clock). The caller checks
// o with Validate when it reads the configuration: New treats a negative
// budget as no budget.
func New(runID string, o Options) *Memory {
	o = o.withDefaults()
	now := o.Clock()
	return &Memory{
		run: runID, o: o, start: now, last: now,
		roles: map[string]*roleState{}, breakers: map[string]*breaker{}, stalls: map[string]*stallState{},
		flags: map[string]bool{},
	}
}

// Run is the run's ID.
func (m *Memory) Run() string { return m.run }

func (m *Memory) role(r string) *roleState {
	s := m.roles[r]
	if s == nil {
		s = &roleState{}
		m.roles[r] = s
	}
	return s
}

// Before is called before every model call by role on provider. It returns
// a *BudgetError when the run's or the worker's budget of tokens, calls or
// time is spent (ErrBudget), and a *BreakerOpenError when the provider's
// breaker is open (ErrBreakerOpen; call its Fallback, if any, with a new
// Before). Otherwise the call is admitted and counted: the caller makes it
// and reports it with After.
func (m *Memory) Before(role, provider string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.o.Clock()
	m.last = now
	total := m.total
	total.Elapsed = now.Sub(m.start)
	if err := m.spent(ScopeRun, "", m.o.Budget, total, now); err != nil {
		return err
	}
	rs := m.role(role)
	if b, ok := m.o.PerWorker[role]; ok {
		if err := m.spent(ScopeWorker, role, b, rs.use, now); err != nil {
			return err
		}
	}
	if err := m.admit(provider, now); err != nil {
		return err
	}
	m.total.Calls++
	rs.use.Calls++
	rs.pending = append(rs.pending, now)
	m.window = append(m.window, now)
	m.trimWindow(now)
	total.Calls = m.total.Calls
	m.warn(ScopeRun, "", KindCalls, int64(total.Calls), int64(m.o.Budget.Calls), now)
	m.warn(ScopeRun, "", KindTime, int64(total.Elapsed), int64(m.o.Budget.Time), now)
	if b, ok := m.o.PerWorker[role]; ok {
		m.warn(ScopeWorker, role, KindCalls, int64(rs.use.Calls), int64(b.Calls), now)
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

// After records the outcome of a call admitted by Before: the tokens it
// consumed (a failed call may have consumed some too) and its error, which
// counts as a failure of the provider for its breaker (context.Canceled
// does not: the caller gave up, the provider did not fail).
func (m *Memory) After(role, provider string, inputTokens, outputTokens int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.o.Clock()
	m.last = now
	inputTokens, outputTokens = max(inputTokens, 0), max(outputTokens, 0)
	rs := m.role(role)
	for _, u := range []*Usage{&m.total, &rs.use} {
		u.InputTokens += inputTokens
		u.OutputTokens += outputTokens
		u.Tokens += inputTokens + outputTokens
		if err != nil {
			u.Failures++
		}
	}
	if len(rs.pending) > 0 {
		rs.use.Elapsed += now.Sub(rs.pending[0])
		rs.pending = rs.pending[1:]
	}
	if err == nil || !errors.Is(err, context.Canceled) {
		m.outcome(provider, err == nil, now)
	}
	m.warn(ScopeRun, "", KindTokens, int64(m.total.Tokens), int64(m.o.Budget.Tokens), now)
	if b, ok := m.o.PerWorker[role]; ok {
		m.warn(ScopeWorker, role, KindTokens, int64(rs.use.Tokens), int64(b.Tokens), now)
		m.warn(ScopeWorker, role, KindTime, int64(rs.use.Elapsed), int64(b.Time), now)
	}
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

// WindowCalls is the number of calls admitted within the last
// Options.Window.
func (m *Memory) WindowCalls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.trimWindow(m.o.Clock())
	return len(m.window)
}

func (m *Memory) trimWindow(now time.Time) {
	cut := 0
	for cut < len(m.window) && now.Sub(m.window[cut]) >= m.o.Window {
		cut++
	}
	m.window = m.window[cut:]
}

// LastActivity is the time of the last call, step or transfer.
func (m *Memory) LastActivity() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// record appends a detection.
func (m *Memory) record(now time.Time, d Detection) {
	d.AtNS = now.UnixNano()
	m.detect = append(m.detect, d)
}
