package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
)

// Control is a call that ends the worker's turn: a handoff to another
// worker, or finish.
type Control struct {
	Kind string `json:"kind"` // "handoff" or "finish"
	To   string `json:"to,omitempty"`
	// Target is the artifact a handoff asks the next worker to change,
	// besides the route's target ("" none).
	Target  string `json:"target,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// Result is a tool call's outcome, sent back to the model as the tool
// message (Content, IsError).
type Result struct {
	Content string
	IsError bool
	// Control is set by handoff and finish.
	Control *Control
	// Change is the artifact a write tool tried to change ("" for other
	// tools): the worker counts failed attempts per change.
	Change string
	// Progress: the call staged a change or recorded a finding.
	Progress bool
}

// Ack is an acknowledgement the reviewer recorded.
type Ack struct {
	ID     string `json:"id"`
	Symbol string `json:"symbol,omitempty"`
}

// Set is one role's tools over an Overlay: what the model is offered
// (Tools) and the execution of its calls (Call), with the role's
// permissions enforced. Safe for concurrent use.
type Set struct {
	role string
	ov   *Overlay

	mu sync.Mutex
	// scoped: writes are limited to scope and the created artifacts.
	scoped   bool
	scope    []string
	guard    func(path string) error
	findings []lunad.AskFinding
	acks     []Ack
}

// For is role's tool set over ov. ErrInvalid for an unknown role.
func For(role string, ov *Overlay) (*Set, error) {
	if _, ok := roleTools[role]; !ok {
		return nil, fmt.Errorf("%w: no worker role %q: the roles are %s", lunad.ErrInvalid, role, strings.Join(Roles, ", "))
	}
	return &Set{role: role, ov: ov}, nil
}

// Role is the set's role.
func (s *Set) Role() string { return s.role }

// Overlay is the overlay the set's writes are staged on.
func (s *Set) Overlay() *Overlay { return s.ov }

// Tools are the tools offered to the role's model.
func (s *Set) Tools() []llm.Tool { return toolsOf(s.role) }

// Findings are the reviewer's findings, in the order reported.
func (s *Set) Findings() []lunad.AskFinding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.findings)
}

// Acks are the acknowledgements the reviewer recorded, in order.
func (s *Set) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.acks)
}

// Call executes one tool call. Every failure — a tool the role may not
// call, bad arguments, a refused or failed write, an unknown artifact —
// is a Result with IsError and a message for the model, never a Go error:
// the model gets to correct itself (the worker bounds how often).
func (s *Set) Call(ctx context.Context, call llm.ToolCall) Result {
	sp, known := specs[call.Name]
	if !known {
		return fail("", "unknown tool %q: the tools you may call are %s", call.Name, strings.Join(roleTools[s.role], ", "))
	}
	if !slices.Contains(roleTools[s.role], call.Name) {
		if sp.write {
			return fail(idOf(call), "the %s cannot write: %s is refused; report what should change with report_finding, or hand off to the coder or the writer", s.role, call.Name)
		}
		return fail("", "the %s may not call %s: the tools you may call are %s", s.role, call.Name, strings.Join(roleTools[s.role], ", "))
	}
	switch call.Name {
	case ReadArtifact:
		return s.read(ctx, call)
	case ListArtifacts:
		return s.list(ctx, call)
	case FindReferences:
		return s.refs(ctx, call)
	case EditArtifact:
		return s.edit(ctx, call)
	case CreateArtifact:
		return s.create(ctx, call)
	case RewriteArtifact:
		return s.rewrite(ctx, call)
	case Handoff:
		return s.handoff(ctx, call)
	case Finish:
		var a struct {
			Summary string `json:"summary"`
		}
		if err := decode(call.Name, call.Arguments, &a); err != nil {
			return fail("", "%v", err)
		}
		return Result{Content: "finished", Control: &Control{Kind: "finish", Summary: a.Summary}}
	case ReportFinding:
		return s.report(ctx, call)
	case Acknowledge:
		return s.acknowledge(ctx, call)
	}
	return fail("", "unknown tool %q", call.Name)
}

func fail(change, format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true, Change: change}
}

// Scope limits the set's writes to the existing artifacts refs name (IDs
// or paths: the route's target, the artifact a handoff names) and the
// artifacts the stage creates; any other write is refused, saying to hand
// off or ask for a new route. Without Scope every artifact of the role's
// kind may be written.
func (s *Set) Scope(refs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scoped = true
	for _, r := range refs {
		if r != "" && !slices.Contains(s.scope, r) {
			s.scope = append(s.scope, r)
		}
	}
}

// Guard makes every write of the set — an edit, a rewrite, a create —
// pass check first: the workspace policy's rules on writing a path (.git,
// .luna, dotfiles, CI configuration, read_only, [[deny]] paths). A
// non-nil error refuses the write with its words, which should name the
// rule.
func (s *Set) Guard(check func(path string) error) {
	s.mu.Lock()
	s.guard = check
	s.mu.Unlock()
}

// guarded is the Guard's answer for a write of p (nil without a Guard).
func (s *Set) guarded(p string) error {
	s.mu.Lock()
	g := s.guard
	s.mu.Unlock()
	if g == nil {
		return nil
	}
	return g(p)
}

// inScope refuses a write of an existing artifact the set's Scope does
// not name.
func (s *Set) inScope(a lunad.Artifact, created bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.scoped || created || slices.Contains(s.scope, a.ID) || slices.Contains(s.scope, a.Path) {
		return nil
	}
	what := "this request names no artifact to change"
	if len(s.scope) > 0 {
		what = "this request changes " + strings.Join(s.scope, ", ")
	}
	return fmt.Errorf("%s (%s) is not the artifact this request is about (%s) nor one this stage created: leave it alone, or finish and say what else should change (a new request can target it)", a.ID, a.Path, what)
}

func (s *Set) handoff(ctx context.Context, call llm.ToolCall) Result {
	var a struct {
		To     string `json:"to"`
		Reason string `json:"reason"`
		Target string `json:"target"`
	}
	if err := decode(call.Name, call.Arguments, &a); err != nil {
		return fail("", "%v", err)
	}
	if _, ok := roleTools[a.To]; !ok {
		return fail("", "handoff: no worker %q: hand off to one of %s", a.To, strings.Join(Roles, ", "))
	}
	if a.To == s.role {
		return fail("", "handoff: you are the %s: hand off to another worker, or finish", s.role)
	}
	if a.Target != "" {
		if _, err := s.ov.Artifact(ctx, a.Target); err != nil {
			return fail("", "handoff: target: %v", notFound(err, a.Target))
		}
	}
	return Result{Content: "handed off to the " + a.To, Control: &Control{Kind: "handoff", To: a.To, Reason: a.Reason, Target: a.Target}}
}
