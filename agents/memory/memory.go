package memory

import (
	"context"
	"errors"
	"sync"
	"time"
)

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
