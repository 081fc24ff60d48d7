package memory

import (
	"errors"
	"fmt"
	"time"
)

// The sentinels of the guards. Each typed error below matches its sentinel
// with errors.Is, and carries the facts an adapter needs through errors.As.
var (
	// ErrBudget: a token, call or time budget is spent (the run ends with
	// status budget_exhausted).
	ErrBudget = errors.New("budget exhausted")
	// ErrLoop: a handoff loop or a call graph deeper than allowed.
	ErrLoop = errors.New("handoff loop")
	// ErrBreakerOpen: the provider failed repeatedly and is not called until
	// its cooldown has passed.
	ErrBreakerOpen = errors.New("provider circuit breaker open")
	// ErrStall: the agent repeats itself without progress.
	ErrStall = errors.New("agent stalled")
)

// Budget scopes.
const (
	ScopeRun    = "run"
	ScopeWorker = "worker"
)

// Budget kinds.
const (
	KindTokens = "tokens"
	KindCalls  = "calls"
	KindTime   = "time"
)

// BudgetError is a spent budget: Scope is ScopeRun or ScopeWorker (then
// Role names the worker), Kind is KindTokens, KindCalls or KindTime, Limit
// the budget and Used the consumption of that scope so far.
type BudgetError struct {
	Run   string
	Scope string
	Role  string
	Kind  string
	Limit Budget
	Used  Usage
}

func (e *BudgetError) Error() string {
	who := "the run's"
	if e.Scope == ScopeWorker {
		who = "worker " + e.Role + "'s"
	}
	var spent string
	switch e.Kind {
	case KindTokens:
		spent = fmt.Sprintf("%d of %d tokens used", e.Used.Tokens, e.Limit.Tokens)
	case KindCalls:
		spent = fmt.Sprintf("%d of %d model calls made", e.Used.Calls, e.Limit.Calls)
	default:
		spent = fmt.Sprintf("%s of %s elapsed", e.Used.Elapsed, e.Limit.Time)
	}
	return fmt.Sprintf("run %s: %s %s budget is spent (%s; so far %d tokens, %d calls, %s): raise %s %s in .luna/config.toml",
		e.Run, who, e.Kind, spent, e.Used.Tokens, e.Used.Calls, e.Used.Elapsed.Round(time.Millisecond), e.Setting(), e.Kind)
}

// Setting is the configuration table that holds the spent budget:
// [agents.budget] for the run, [agents.ROLE.budget] for a worker.
func (e *BudgetError) Setting() string {
	if e.Scope == ScopeWorker {
		return "[agents." + e.Role + ".budget]"
	}
	return "[agents.budget]"
}

func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// LoopError refuses a transfer of control: Rule is "loop" (the visits
// Path end in the same cycle twice, A→B→A→B, or a role hands off to
// itself) or "depth" (the chain would be deeper than MaxDepth).
type LoopError struct {
	Run      string
	Rule     string
	From, To string
	Path     []string // the roles visited, root first, ending with To
	MaxDepth int
}

func (e *LoopError) Error() string {
	if e.Rule == RuleDepth {
		return fmt.Sprintf("run %s: %s → %s would make the call chain %d deep (%s), over the maximum of %d: the agents keep handing off; make the request more specific or raise [agents] max_depth in .luna/config.toml",
			e.Run, e.From, e.To, len(e.Path)-1, joinPath(e.Path), e.MaxDepth)
	}
	return fmt.Sprintf("run %s: handoff loop %s → %s (%s): the workers hand the same work back and forth; the run stops, make the request more specific",
		e.Run, e.From, e.To, joinPath(e.Path))
}

func (e *LoopError) Is(target error) bool { return target == ErrLoop }

// BreakerOpenError refuses a call to a provider whose breaker is open (or
// half-open with its one trial call in flight). Fallback is the provider to
// call instead ("" if none is configured); Until is when a trial call will
// be let through.
type BreakerOpenError struct {
	Run      string
	Provider string
	Fallback string
	Failures int
	Until    time.Time
}

func (e *BreakerOpenError) Error() string {
	s := fmt.Sprintf("run %s: provider %s failed %d times in a row; its circuit breaker is open until %s",
		e.Run, e.Provider, e.Failures, e.Until.UTC().Format(time.RFC3339))
	if e.Fallback != "" {
		return s + ": calling the fallback " + e.Fallback + " instead"
	}
	return s + ": check that the provider is up and reachable, or set a fallback with [agents.ROLE] fallback in .luna/config.toml"
}

func (e *BreakerOpenError) Is(target error) bool { return target == ErrBreakerOpen }

// StallError is a stall: Rule names the rule that fired (RuleRepeat,
// RuleRepeatError, RuleMonologue, RuleAlternation, RuleNoProgress), Role
// the worker, Tool and Args the step it fired on, Count how many steps it
// looked at.
type StallError struct {
	Run   string
	Role  string
	Rule  string
	Tool  string
	Args  string // truncated to 200 bytes
	Count int
	Other string // RuleAlternation: the tool it alternated with
}

func (e *StallError) Error() string {
	var what string
	switch e.Rule {
	case RuleRepeat:
		what = fmt.Sprintf("called %s %s %d times with the same result", e.Tool, e.Args, e.Count)
	case RuleRepeatError:
		what = fmt.Sprintf("called %s %s %d times, failing each time", e.Tool, e.Args, e.Count)
	case RuleMonologue:
		what = fmt.Sprintf("answered %d turns in a row without calling a tool", e.Count)
	case RuleAlternation:
		what = fmt.Sprintf("alternated between %s and %s for %d steps with the same results", e.Tool, e.Other, e.Count)
	default:
		last := e.Tool
		if last == "" {
			last = "a turn without a tool call"
		}
		what = fmt.Sprintf("made %d steps without a successful write or a read of something new (last: %s)", e.Count, last)
	}
	return fmt.Sprintf("run %s: worker %s is stalled (%s): it %s; the run stops, make the request more specific (the no-progress limit is [agents.stall] no_progress_steps in .luna/config.toml)",
		e.Run, e.Role, e.Rule, what)
}

func (e *StallError) Is(target error) bool { return target == ErrStall }

func joinPath(p []string) string {
	s := ""
	for i, r := range p {
		if i > 0 {
			s += " → "
		}
		s += r
	}
	return s
}
