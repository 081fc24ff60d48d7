package memory

import (
	"fmt"
	"slices"

	"github.com/lunad/lunad"
)

// Rules of the call graph.
const (
	RuleLoop  = "loop"
	RuleDepth = "depth"
)

// Edge is one transfer of control in the call graph.
type Edge struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason,omitempty"`
	AtNS   int64  `json:"at_ns"`
}

// Enter records a transfer of control from → to (the supervisor routing to
// a worker, a worker handing off to another). The first Enter makes from
// the root; after it, from must be the role in control (ErrInvalid
// otherwise). It returns a *LoopError (ErrLoop), and transfers nothing,
// when the chain would be deeper than MaxDepth or when the roles visited
// would end in the same cycle twice (A→B→A→B, A→B→C→A→B→C) or in a
// handoff to itself.
func (m *Memory) Enter(from, to, reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if from == "" || to == "" {
		return fmt.Errorf("%w: a transfer of control needs both roles (from %q, to %q)", lunad.ErrInvalid, from, to)
	}
	now := m.o.Clock()
	m.last = now
	path := m.stack
	if len(path) == 0 {
		path = []string{from}
	} else if top := path[len(path)-1]; top != from {
		return fmt.Errorf("%w: %s cannot hand off to %s: %s is in control (call Leave when a role returns)", lunad.ErrInvalid, from, to, top)
	}
	next := append(slices.Clip(path), to)
	rule := ""
	switch {
	case repeatsCycle(next):
		rule = RuleLoop
	case len(next)-1 > m.o.MaxDepth:
		rule = RuleDepth
	}
	if rule != "" {
		e := &LoopError{Run: m.run, Rule: rule, From: from, To: to, Path: next, MaxDepth: m.o.MaxDepth}
		m.record(now, Detection{Guard: GuardGraph, Rule: rule, Role: from, Subject: to, Message: e.Error()})
		return e
	}
	m.stack = next
	m.edges = append(m.edges, Edge{From: from, To: to, Reason: reason, AtNS: now.UnixNano()})
	return nil
}

// Leave returns control from role to the role that entered it. ErrInvalid
// if role is not in control.
func (m *Memory) Leave(role string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.stack); n == 0 || m.stack[n-1] != role {
		return fmt.Errorf("%w: %s leaves, but it is not in control (the chain is %s)", lunad.ErrInvalid, role, joinPath(m.stack))
	}
	m.last = m.o.Clock()
	m.stack = m.stack[:len(m.stack)-1]
	if len(m.stack) == 1 {
		m.stack = nil // the root left alone: the next Enter starts a new chain
	}
	return nil
}

// Path is the chain of roles in control, root first.
func (m *Memory) Path() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.stack)
}

// repeatsCycle reports whether p ends in a handoff to itself or in the same
// cycle of k ≥ 2 roles twice.
func repeatsCycle(p []string) bool {
	n := len(p)
	if n >= 2 && p[n-1] == p[n-2] {
		return true
	}
	for k := 2; 2*k <= n; k++ {
		if slices.Equal(p[n-2*k:n-k], p[n-k:]) {
			return true
		}
	}
	return false
}
